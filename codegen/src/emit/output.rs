//! Which `--out` abgen may replace, and the lock that keeps two builds of one output apart.
//! Entry: [`claim_output`]; [`check_output_dir`] alone for the refusals that need no file system.
//!
//! abgen never deletes what it did not write: an output is replaced only when it is absent,
//! empty, or an artifact whose `abgen.manifest.json` file table lists every file it holds with
//! the sha256 it holds (files of the table that are missing lose nothing and are allowed; the
//! manifest is not in its own table). Everything else — a folder of user files, an artifact with
//! a file added or edited, a file, a symlink whose target is any of these — is refused before
//! anything is moved, with the paths that are in the way. A symlink `--out` is judged by what it
//! points at, and that is what gets replaced.
//!
//! Builds of one output take an exclusive lock on `.<out>.abgen-lock` beside it for recovery,
//! the ownership check and the swap, so a second build waits instead of failing.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Component, Path, PathBuf};

use abgen_runtime::manifest::{FileEntry, MANIFEST_FILE_NAME};

use super::error::{EmitError, ForeignPath};
use super::plan::sha256_hex;
use super::reuse::{EmitCache, FileStamp, InPlace};
use super::stage::recover;

/// How many unexpected paths a refusal names.
pub const NAMED_PATHS: usize = 5;
/// Names of the siblings a build makes beside the output: `.<out>.<tag><pid>` and the lock.
pub(super) const STAGING_TAG: &str = "abgen-staging-";
pub(super) const ASIDE_TAG: &str = "abgen-old-";
const LOCK_TAG: &str = "abgen-lock";
/// Symlinks followed when resolving `--out`, as the kernel's own limit (`ELOOP`).
const MAX_SYMLINKS: usize = 40;
/// Each retry means another build removed the lock file between our open and our lock.
const MAX_LOCK_ATTEMPTS: usize = 1000;

/// An output directory this process may replace: resolved, locked, recovered and checked.
#[derive(Debug)]
pub struct OutputClaim {
    out: PathBuf,
    _lock: BuildLock,
    /// The file table the claim read from the output's manifest, for the check before the swap.
    table: Option<ReadTable>,
}

impl OutputClaim {
    /// The resolved output directory (a symlink `--out` resolved to its target).
    pub fn path(&self) -> &Path {
        &self.out
    }

    /// The file table the claim read from the output's manifest.
    pub(super) fn table(&self) -> Option<&ReadTable> {
        self.table.as_ref()
    }
}

/// A file table read from the manifest of an output, with the stamp the manifest had before it
/// was read: while the manifest keeps that stamp, it holds that table.
#[derive(Debug)]
pub(super) struct ReadTable {
    stamp: Option<FileStamp>,
    table: BTreeMap<String, String>,
}

/// Resolves `out`, refuses what it must not replace, takes the build lock, recovers what a
/// killed build left, and checks that what is there now is abgen's own.
pub fn claim_output(project_root: &Path, out: &Path) -> Result<OutputClaim, EmitError> {
    claim_output_reusing(project_root, out, None)
}

/// [`claim_output`], taking the digest of each file the last emit through `cache` put in the
/// output, unchanged since, from there instead of hashing it again.
pub fn claim_output_reusing(
    project_root: &Path,
    out: &Path,
    cache: Option<&EmitCache>,
) -> Result<OutputClaim, EmitError> {
    let out = check_output_dir(project_root, out)?;
    refuse_non_directory(&out)?;
    let parent = out.parent().unwrap_or(&out);
    fs::create_dir_all(parent).map_err(EmitError::io("create", parent))?;
    let lock = BuildLock::acquire(sibling(&out, LOCK_TAG))?;
    recover(&out)?;
    let table = check_owned(&out, cache.and_then(EmitCache::in_place).as_ref(), None)?;
    Ok(OutputClaim {
        out,
        _lock: lock,
        table,
    })
}

/// Resolves `out` (relative to the current directory when relative) and refuses it when it is
/// the project root, contains it, or lies inside the project's `src/`.
pub fn check_output_dir(project_root: &Path, out: &Path) -> Result<PathBuf, EmitError> {
    let root = resolve(project_root)?;
    let out = resolve(out)?;
    let refuse = |why| {
        Err(EmitError::UnsafeOutputDir {
            out: out.clone(),
            why,
        })
    };
    if out == root {
        return refuse("it is the project root");
    }
    if root.starts_with(&out) {
        return refuse("it contains the project root");
    }
    if out.starts_with(root.join("src")) {
        return refuse("it lies inside the project's src/ directory");
    }
    if out.parent().is_none() {
        return refuse("it is a filesystem root");
    }
    Ok(out)
}

/// Refuses an output that exists and is not a directory (a file, a device, a symlink loop).
fn refuse_non_directory(out: &Path) -> Result<(), EmitError> {
    match fs::symlink_metadata(out) {
        Ok(metadata) if !metadata.is_dir() => Err(EmitError::OutputNotDirectory {
            out: out.to_owned(),
        }),
        _ => Ok(()),
    }
}

/// Refuses `out` unless it is absent, empty, or an artifact abgen wrote (see the module doc).
/// `in_place`, what an earlier emit recorded putting there, gives the table and the digests of
/// the files whose stamps are still the recorded ones; else `read_before`, the table an earlier
/// check read, while the manifest keeps its stamp (the 20 MB manifest of a large project is
/// then read once per build, not at the claim and again before the swap). Returns the table it
/// read from the manifest, if it read one.
pub(super) fn check_owned(
    out: &Path,
    in_place: Option<&InPlace>,
    read_before: Option<&ReadTable>,
) -> Result<Option<ReadTable>, EmitError> {
    refuse_non_directory(out)?;
    if !out.exists() {
        return Ok(None);
    }
    let mut read = None;
    let table = match in_place.and_then(|in_place| in_place.file_table(out)) {
        Some(table) => Some(table),
        None => match read_before.filter(|before| {
            before.stamp.is_some() && FileStamp::of(&out.join(MANIFEST_FILE_NAME)) == before.stamp
        }) {
            Some(before) => Some(before.table.clone()),
            None => {
                read = read_file_table(out);
                read.as_ref().map(|read| read.table.clone())
            }
        },
    };
    let mut foreign = Foreign::default();
    match &table {
        Some(table) => {
            let walk = Walk {
                out,
                table,
                directories: &directories_of(table),
                in_place,
            };
            walk_artifact(&walk, out, "", &mut foreign)?;
        }
        None => {
            for (name, kind) in sorted_entries(out)? {
                let shown = if kind.is_dir() {
                    format!("{name}/")
                } else {
                    name
                };
                if !foreign.push(shown, false) {
                    break;
                }
            }
        }
    }
    if foreign.paths.is_empty() {
        return Ok(read);
    }
    Err(EmitError::OutputNotOwned {
        out: out.to_owned(),
        has_manifest: table.is_some(),
        paths: foreign.paths,
        more: foreign.more,
    })
}

/// Whether `dir` holds a manifest: abgen writes it last and removes it first, so a directory
/// of abgen's with a manifest is a complete artifact.
pub(super) fn has_manifest(dir: &Path) -> bool {
    fs::symlink_metadata(dir.join(MANIFEST_FILE_NAME)).is_ok_and(|metadata| metadata.is_file())
}

/// The manifest's file table by path (sha256), or `None` when there is no readable manifest
/// with one. Only `files` is read, so an artifact of an older abgen is still recognised; of a
/// manifest in the canonical layout only the lines up to its end (see [`canonical_file_table`]).
fn read_file_table(out: &Path) -> Option<ReadTable> {
    #[derive(serde::Deserialize)]
    struct FileTable {
        files: Vec<FileEntry>,
    }
    if !has_manifest(out) {
        return None;
    }
    let manifest = out.join(MANIFEST_FILE_NAME);
    let stamp = FileStamp::of(&manifest);
    let table: FileTable = match canonical_file_table(&manifest) {
        Some(text) => serde_json::from_str(&text).ok()?,
        None => serde_json::from_slice(&fs::read(manifest).ok()?).ok()?,
    };
    Some(ReadTable {
        stamp,
        table: table
            .files
            .into_iter()
            .map(|entry| (entry.path, entry.sha256))
            .collect(),
    })
}

/// The top-level `files` member of the manifest at `path` as the object `{"files": [...]}`,
/// read up to the line that closes it: the canonical writer puts every top-level member on a
/// line of its own at an indent of two spaces, and `files` sorts before the routes and their
/// schemas, nearly all of the file, which are not read. `None` when the file is not in that
/// layout (the caller reads it whole).
fn canonical_file_table(path: &Path) -> Option<String> {
    use std::io::BufRead;
    let mut reader = std::io::BufReader::new(fs::File::open(path).ok()?);
    let mut line = String::new();
    let mut read_line = |line: &mut String| {
        line.clear();
        reader.read_line(line).ok().filter(|read| *read > 0)
    };
    read_line(&mut line).filter(|_| line == "{\n")?;
    loop {
        read_line(&mut line)?;
        if line == "  \"files\": [\n" {
            break;
        }
        // Another top-level member, or a line inside one.
        if !line.starts_with("  ") {
            return None;
        }
    }
    let mut text = String::from("{\n");
    text.push_str(&line);
    loop {
        read_line(&mut line)?;
        if line == "  ],\n" || line == "  ]\n" {
            text.push_str("  ]\n}\n");
            return Some(text);
        }
        text.push_str(&line);
    }
}

/// Every directory that some path of the table lies in, `/`-separated.
fn directories_of(table: &BTreeMap<String, String>) -> BTreeSet<String> {
    let mut directories = BTreeSet::new();
    for path in table.keys() {
        let mut end = path.len();
        while let Some(slash) = path[..end].rfind('/') {
            directories.insert(path[..slash].to_owned());
            end = slash;
        }
    }
    directories
}

/// The unexpected paths found so far; the walk stops once it has more than it will name.
#[derive(Default)]
struct Foreign {
    paths: Vec<ForeignPath>,
    more: bool,
}

impl Foreign {
    /// Records `path`; false when the walk can stop.
    fn push(&mut self, path: String, changed: bool) -> bool {
        if self.paths.len() == NAMED_PATHS {
            self.more = true;
            return false;
        }
        self.paths.push(ForeignPath { path, changed });
        true
    }
}

/// What a walk of an artifact compares the tree with.
struct Walk<'a> {
    out: &'a Path,
    table: &'a BTreeMap<String, String>,
    directories: &'a BTreeSet<String>,
    in_place: Option<&'a InPlace>,
}

/// Compares the tree under `dir` (artifact-relative `prefix`) with the table, without
/// following symlinks, in sorted order so a refusal names the same paths every time. False
/// once `foreign` is full.
fn walk_artifact(
    walk: &Walk<'_>,
    dir: &Path,
    prefix: &str,
    foreign: &mut Foreign,
) -> Result<bool, EmitError> {
    let Walk {
        table, directories, ..
    } = walk;
    for (name, kind) in sorted_entries(dir)? {
        let relative = format!("{prefix}{name}");
        let path = dir.join(&name);
        let unexpected = if kind.is_dir() && directories.contains(&relative) {
            if !walk_artifact(walk, &path, &format!("{relative}/"), foreign)? {
                return Ok(false);
            }
            continue;
        } else if kind.is_dir() {
            // A folder abgen did not make: naming it is enough, its contents are not walked.
            Some((format!("{relative}/"), false))
        } else if !kind.is_file() {
            Some((relative, false))
        } else if relative == MANIFEST_FILE_NAME {
            None
        } else {
            match table.get(&relative) {
                None => Some((relative, false)),
                Some(sha256) => {
                    let kept = walk
                        .in_place
                        .and_then(|in_place| in_place.digest(walk.out, &relative));
                    let found = match kept {
                        Some(kept) => kept.to_owned(),
                        None => sha256_hex(&fs::read(&path).map_err(EmitError::io("read", &path))?),
                    };
                    (found != *sha256).then_some((relative, true))
                }
            }
        };
        if let Some((shown, changed)) = unexpected
            && !foreign.push(shown, changed)
        {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The entries of `dir` except abgen's own build siblings, sorted by name.
fn sorted_entries(dir: &Path) -> Result<Vec<(String, fs::FileType)>, EmitError> {
    let mut entries = Vec::new();
    for entry in fs::read_dir(dir).map_err(EmitError::io("read", dir))? {
        let entry = entry.map_err(EmitError::io("read", dir))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if is_build_sibling(&name) {
            continue;
        }
        let kind = entry
            .file_type()
            .map_err(EmitError::io("inspect", entry.path()))?;
        entries.push((name, kind));
    }
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(entries)
}

/// `.<name>.<tag>` beside `out`.
pub(super) fn sibling(out: &Path, tag: &str) -> PathBuf {
    let name = out
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    out.with_file_name(format!(".{name}.{tag}"))
}

/// Whether `name` is one abgen gives a staging, aside or lock sibling of some output.
fn is_build_sibling(name: &str) -> bool {
    let Some(rest) = name.strip_prefix('.') else {
        return false;
    };
    let Some((_, tag)) = rest.rsplit_once('.') else {
        return false;
    };
    let pid_after = |prefix: &str| {
        tag.strip_prefix(prefix)
            .is_some_and(|pid| !pid.is_empty() && pid.bytes().all(|byte| byte.is_ascii_digit()))
    };
    tag == LOCK_TAG || pid_after(STAGING_TAG) || pid_after(ASIDE_TAG)
}

/// An exclusive `flock` on a lock file beside the output, removed when released. After locking,
/// the file at the path must still be the one locked: otherwise a build that just finished
/// removed it, and the next lock is taken on whatever is at the path now.
#[derive(Debug)]
struct BuildLock {
    path: PathBuf,
    _file: fs::File,
}

impl BuildLock {
    fn acquire(path: PathBuf) -> Result<Self, EmitError> {
        for _ in 0..MAX_LOCK_ATTEMPTS {
            let file = fs::OpenOptions::new()
                .create(true)
                .truncate(false)
                .read(true)
                .write(true)
                .open(&path)
                .map_err(EmitError::io("open the build lock", &path))?;
            file.lock()
                .map_err(EmitError::io("take the build lock", &path))?;
            if still_at(&file, &path) {
                return Ok(Self { path, _file: file });
            }
        }
        Err(EmitError::Io {
            action: "take the build lock",
            path,
            source: std::io::Error::other("other builds kept replacing the lock file"),
        })
    }
}

impl Drop for BuildLock {
    fn drop(&mut self) {
        // Removed while still locked; the lock itself goes when the file closes, after this.
        let _ = fs::remove_file(&self.path);
    }
}

#[cfg(unix)]
fn still_at(file: &fs::File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), fs::symlink_metadata(path)) {
        (Ok(locked), Ok(current)) => locked.dev() == current.dev() && locked.ino() == current.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn still_at(_file: &fs::File, path: &Path) -> bool {
    path.exists()
}

/// An absolute, lexically normalised path with a symlink at its end followed (also when its
/// target does not exist yet) and its longest existing ancestor canonicalised, so `..` and
/// symlinks cannot hide that two paths are the same.
fn resolve(path: &Path) -> Result<PathBuf, EmitError> {
    let absolute = if path.is_absolute() {
        path.to_owned()
    } else {
        std::env::current_dir()
            .map_err(EmitError::io("read", "the current directory"))?
            .join(path)
    };
    let mut normal = normalize(&absolute);
    for _ in 0..MAX_SYMLINKS {
        let Ok(target) = fs::read_link(&normal) else {
            break;
        };
        let base = normal.parent().map(Path::to_owned).unwrap_or_default();
        normal = normalize(&base.join(target));
    }
    let mut existing = normal.as_path();
    let mut rest = Vec::new();
    while !existing.exists() {
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_owned());
                existing = parent;
            }
            _ => break,
        }
    }
    let mut resolved = existing
        .canonicalize()
        .unwrap_or_else(|_| existing.to_owned());
    resolved.extend(rest.iter().rev());
    Ok(resolved)
}

fn normalize(path: &Path) -> PathBuf {
    let mut normal = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                normal.pop();
            }
            Component::CurDir => {}
            other => normal.push(other),
        }
    }
    normal
}

#[cfg(test)]
#[path = "output_tests.rs"]
mod tests;
