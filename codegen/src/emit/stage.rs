//! Writes a file plan and its manifest into a staging directory beside the output, verifies it,
//! then swaps it in atomically. Entry: [`stage_artifact`], on an output that
//! [`super::output::claim_output`] resolved, locked and found to be abgen's own.
//!
//! The manifest is written last and removed first, so a directory of abgen's with a manifest is
//! a complete artifact. The staged tree is verified (exactly the planned files, byte for byte,
//! nothing else; every JSON document parses; the hook client reads the manifest). The swap is
//! one `renameat2(RENAME_EXCHANGE)` where the kernel has it (the output is the old or the new
//! artifact at every instant), else two renames: the previous artifact aside, then the new one
//! in. No rename can replace a non-empty directory, so between those two the output name is
//! free; the previous artifact is then complete under its aside name and [`recover`], which
//! every build runs first, moves it back. Failpoints ([`super::failpoint`]) prove each step.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use abgen_runtime::manifest::{
    FileEntry, HookRoute, HookView, MANIFEST_FILE_NAME, MANIFEST_VERSION,
};
use serde::Deserialize as _;

use super::error::EmitError;
use super::failpoint::Failpoint;
use super::output::{ASIDE_TAG, OutputClaim, STAGING_TAG, check_owned, has_manifest, sibling};
use super::plan::FilePlan;
use super::reuse::{EmitCache, FileStamp, InPlace, ManifestCheck};
use super::route_check::{RouteForCheck, SERDE_JSON_MAX_DEPTH};

/// Writes `plan` and then `manifest` (its bytes, under `manifest_path`) into a staging sibling
/// of the claimed output, and swaps it in. The manifest staged is checked against its schema
/// as `manifest_check` says, else read back and checked whole.
#[cfg(test)]
pub(super) fn stage_artifact(
    plan: &FilePlan,
    manifest_path: &str,
    manifest: &[&[u8]],
    claim: &OutputClaim,
) -> Result<(), EmitError> {
    stage_artifact_reusing(plan, manifest_path, manifest, None, claim, None)
}

/// [`stage_artifact`], given `reuse`: the cache of the emits of this output and the planned
/// file table. A file the artifact in place already holds with the planned digest and mode,
/// unchanged since abgen put it there, is hard-linked into the staging tree rather than written
/// (the swap replaces directories, never a file in place, so the linked inode is never written
/// again), and verified by its stamp rather than read back; every other step is as without.
pub(super) fn stage_artifact_reusing(
    plan: &FilePlan,
    manifest_path: &str,
    manifest: &[&[u8]],
    manifest_check: Option<&ManifestCheck<'_>>,
    claim: &OutputClaim,
    reuse: Option<(&EmitCache, &[FileEntry])>,
) -> Result<(), EmitError> {
    let Some((cache, table)) = reuse else {
        let previous = stage_and_swap(plan, manifest_path, manifest, manifest_check, claim, None)?;
        return previous.map_or(Ok(()), |previous| remove_artifact(&previous));
    };
    let digests: BTreeMap<String, String> = table
        .iter()
        .map(|entry| (entry.path.clone(), entry.sha256.clone()))
        .collect();
    let in_place = cache
        .in_place()
        .filter(|in_place| in_place.out == claim.path());
    let staged = stage_and_swap(
        plan,
        manifest_path,
        manifest,
        manifest_check,
        claim,
        Some(Linkable {
            digests: &digests,
            in_place,
        }),
    );
    match staged {
        Ok(previous) => {
            cache.placed(claim.path(), plan, &digests);
            // The previous artifact goes once the caller has reported the build
            // (`EmitCache::remove_previous`), not on the way to it.
            cache.set_previous(previous);
            Ok(())
        }
        Err(error) => {
            cache.forget_in_place();
            Err(error)
        }
    }
}

/// What staging may link from the output instead of writing: the planned digests, and the
/// artifact in place as the cache recorded it.
struct Linkable<'a> {
    digests: &'a BTreeMap<String, String>,
    in_place: Option<InPlace>,
}

/// Stages the artifact beside the output, verifies it and swaps it in. Returns the directory
/// that holds the previous artifact after an exchange, for the caller to remove (a staging
/// sibling of this process, which the next build or its recovery also removes).
fn stage_and_swap(
    plan: &FilePlan,
    manifest_path: &str,
    manifest: &[&[u8]],
    manifest_check: Option<&ManifestCheck<'_>>,
    claim: &OutputClaim,
    mut linkable: Option<Linkable<'_>>,
) -> Result<Option<PathBuf>, EmitError> {
    let out = claim.path();
    let pid = std::process::id();
    let staging = sibling(out, &format!("{STAGING_TAG}{pid}"));
    let aside = sibling(out, &format!("{ASIDE_TAG}{pid}"));
    remove_if_present(&staging)?;
    // A manifest checked in parts is checked in the very text being staged, not in the file:
    // the check runs while the tree is written.
    let (written, parts_checked) = rayon::join(
        || {
            write_tree(
                plan,
                manifest_path,
                manifest,
                &staging,
                out,
                linkable.as_mut(),
            )
        },
        || manifest_check.map(|check| check_manifest_parts(manifest_path, check)),
    );
    let written = written
        .and_then(|linked| {
            let manifest_checked = parts_checked.transpose()?.is_some();
            verify_tree(plan, manifest_path, &staging, &linked, manifest_checked)
        })
        // Files may have been put into the output while the artifact was bundled and staged:
        // it is judged again just before it is replaced.
        .and_then(|()| {
            check_owned(
                out,
                linkable
                    .as_ref()
                    .and_then(|linkable| linkable.in_place.as_ref()),
                claim.table(),
            )
            .map(|_| ())
        });
    if let Err(error) = written {
        let _ = fs::remove_dir_all(&staging);
        return Err(error);
    }
    Failpoint::BeforeSwap.hit()?;
    if out.exists() {
        match exchange(&staging, out) {
            Ok(()) => {
                Failpoint::AfterSwap.hit()?;
                // `staging` now holds the previous artifact.
                return Ok(Some(staging));
            }
            Err(error) if exchange_unsupported(&error) => {}
            Err(source) => {
                let _ = fs::remove_dir_all(&staging);
                return Err(EmitError::Io {
                    action: "swap the new artifact into",
                    path: out.to_owned(),
                    source,
                });
            }
        }
    }
    rename_swap(&staging, &aside, out).map(|()| None)
}

/// Atomically exchanges two existing directories.
fn exchange(staging: &Path, out: &Path) -> std::io::Result<()> {
    if Failpoint::ExchangeUnsupported.is_set() {
        return Err(std::io::Error::from_raw_os_error(
            rustix::io::Errno::NOSYS.raw_os_error(),
        ));
    }
    rustix::fs::renameat_with(
        rustix::fs::CWD,
        staging,
        rustix::fs::CWD,
        out,
        rustix::fs::RenameFlags::EXCHANGE,
    )
    .map_err(std::io::Error::from)
}

/// Kernels or file systems without RENAME_EXCHANGE say so with these.
fn exchange_unsupported(error: &std::io::Error) -> bool {
    let unsupported = [
        rustix::io::Errno::NOSYS,
        rustix::io::Errno::INVAL,
        rustix::io::Errno::NOTSUP,
    ];
    error
        .raw_os_error()
        .is_some_and(|code| unsupported.iter().any(|errno| errno.raw_os_error() == code))
}

/// The two-rename swap: previous output aside, staging in, aside removed.
fn rename_swap(staging: &Path, aside: &Path, out: &Path) -> Result<(), EmitError> {
    let had_previous = out.exists();
    if had_previous {
        remove_if_present(aside)?;
        fs::rename(out, aside).map_err(EmitError::io("move the previous artifact from", out))?;
        // No artifact is at `out` until the next rename; killed here, the complete previous
        // artifact waits under `aside` and the next build's `recover` puts it back first.
        Failpoint::BetweenRenames.hit()?;
    }
    if let Err(source) = fs::rename(staging, out) {
        // Put the previous artifact back so a failed swap changes nothing.
        if had_previous {
            let _ = fs::rename(aside, out);
        }
        let _ = fs::remove_dir_all(staging);
        return Err(EmitError::Io {
            action: "move the new artifact to",
            path: out.to_owned(),
            source,
        });
    }
    if had_previous {
        Failpoint::AfterRenames.hit()?;
        remove_artifact(aside)?;
    }
    Ok(())
}

/// Undoes what a killed build left beside `out` (the caller holds the build lock, so no live
/// build owns any of it). With no output, a complete previous artifact set aside becomes the
/// output again. An aside without a manifest is never the only copy of an artifact and goes; a
/// complete one goes only once the output is an artifact itself. Staged trees always go: one
/// holds either a new tree that never replaced anything or, after an exchange, the previous
/// artifact whose replacement is in place.
pub(super) fn recover(out: &Path) -> Result<(), EmitError> {
    let (Some(parent), Some(name)) = (out.parent(), out.file_name()) else {
        return Ok(());
    };
    let name = name.to_string_lossy();
    let Ok(entries) = fs::read_dir(parent) else {
        return Ok(());
    };
    let (mut asides, mut stagings) = (Vec::new(), Vec::new());
    for entry in entries.filter_map(|entry| entry.ok()) {
        // A non-directory under these names is not abgen's (an older abgen exchanged a file
        // `--out` into the staging name): it is left where it is.
        if !entry.file_type().is_ok_and(|kind| kind.is_dir()) {
            continue;
        }
        let file_name = entry.file_name().to_string_lossy().into_owned();
        if file_name.starts_with(&format!(".{name}.{ASIDE_TAG}")) {
            asides.push(entry.path());
        } else if file_name.starts_with(&format!(".{name}.{STAGING_TAG}")) {
            stagings.push(entry.path());
        }
    }
    asides.sort();
    if fs::symlink_metadata(out).is_err()
        && let Some(previous) = asides.iter().find(|path| has_manifest(path))
    {
        fs::rename(previous, out).map_err(EmitError::io(
            "restore the previous artifact from",
            previous,
        ))?;
    }
    let out_is_artifact = has_manifest(out);
    for aside in &asides {
        if aside.exists() && (out_is_artifact || !has_manifest(aside)) {
            remove_artifact(aside)?;
        }
    }
    for staging in &stagings {
        remove_artifact(staging)?;
    }
    Ok(())
}

/// Removes an artifact directory of abgen's, its manifest first: a directory that still has
/// one is complete.
pub(super) fn remove_artifact(dir: &Path) -> Result<(), EmitError> {
    let manifest = dir.join(MANIFEST_FILE_NAME);
    match fs::remove_file(&manifest) {
        Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
            return Err(EmitError::io("remove", manifest)(error));
        }
        _ => {}
    }
    remove_if_present(dir)
}

/// The staged tree holds exactly the planned files and the manifest, as regular files with the
/// planned bytes: nothing else, no symlink, nothing outside.
/// A file linked from the output (in `linked`, with the stamp it had there) is verified by being
/// that same file, unchanged, rather than by reading it back. `manifest_checked`: the manifest
/// passed [`check_manifest_parts`], so its file is not read back for its schema.
fn verify_tree(
    plan: &FilePlan,
    manifest_path: &str,
    staging: &Path,
    linked: &BTreeMap<String, FileStamp>,
    manifest_checked: bool,
) -> Result<(), EmitError> {
    let mut found = Vec::new();
    let mut pending = vec![staging.to_owned()];
    while let Some(dir) = pending.pop() {
        for entry in fs::read_dir(&dir).map_err(EmitError::io("read", &dir))? {
            let entry = entry.map_err(EmitError::io("read", &dir))?;
            let kind = entry
                .file_type()
                .map_err(EmitError::io("inspect", entry.path()))?;
            if kind.is_dir() {
                pending.push(entry.path());
                continue;
            }
            let relative = entry
                .path()
                .strip_prefix(staging)
                .map(|path| path.to_string_lossy().replace('\\', "/"))
                .unwrap_or_default();
            let planned = plan.get(&relative);
            let expected = kind.is_file()
                && (relative == manifest_path
                    || planned.is_some_and(|file| match linked.get(&relative) {
                        Some(stamp) => FileStamp::of(&entry.path())
                            .is_some_and(|now| now.same_content_as(stamp)),
                        None => fs::read(entry.path()).is_ok_and(|bytes| *bytes == *file.contents),
                    }));
            if !expected {
                return Err(EmitError::StagedTreeMismatch(relative));
            }
            found.push(relative);
        }
    }
    let planned = plan.files().count() + 1;
    if found.len() != planned {
        return Err(EmitError::StagedTreeMismatch(format!(
            "{} files staged, {planned} planned",
            found.len()
        )));
    }
    verify_documents(plan, manifest_path, staging, manifest_checked)
}

/// Every JSON document of the plan parses, and, unless `manifest_checked` says
/// [`check_manifest_parts`] passed, the hook client can read the staged manifest (its head and
/// the routes its hooks name, as it reads them inside a host's deadline) and the manifest read
/// back whole passes its schema.
fn verify_documents(
    plan: &FilePlan,
    manifest_path: &str,
    staging: &Path,
    manifest_checked: bool,
) -> Result<(), EmitError> {
    for (path, file) in plan.files().filter(|(path, _)| path.ends_with(".json")) {
        if serde_json::from_slice::<serde::de::IgnoredAny>(&file.contents).is_err() {
            return Err(EmitError::StagedTreeMismatch(format!("{path} is not JSON")));
        }
    }
    if manifest_checked {
        return Ok(());
    }
    let manifest_file = staging.join(manifest_path);
    // The hook client's read of the staged file (its head and hook routes) and the schema
    // check (the whole file) are independent, so they run side by side.
    let (read, checked) = rayon::join(
        || {
            abgen_runtime::manifest::read_hook_view(&manifest_file).map_err(|error| {
                EmitError::StagedTreeMismatch(format!(
                    "the hook client cannot read the manifest: {error}"
                ))
            })
        },
        || check_manifest_file(manifest_path, &manifest_file),
    );
    read.and(checked)
}

fn manifest_schema_broken(
    manifest_path: &str,
    error: &jsonschema::ValidationError<'_>,
    at: &str,
) -> EmitError {
    EmitError::StagedTreeMismatch(format!(
        "{manifest_path} breaks schemas/abgen-manifest.schema.json at `{at}{}`: {error}",
        error.instance_path()
    ))
}

/// The staged manifest, read back whole, passes its schema.
fn check_manifest_file(manifest_path: &str, manifest_file: &Path) -> Result<(), EmitError> {
    let manifest: serde_json::Value = fs::read(manifest_file)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .ok_or_else(|| EmitError::StagedTreeMismatch(format!("{manifest_path} is not JSON")))?;
    if let Some(error) = manifest_validator().iter_errors(&manifest).next() {
        return Err(manifest_schema_broken(manifest_path, &error, ""));
    }
    Ok(())
}

/// The manifest being staged, checked in parts with `check`, as the hook client reads it and
/// against its schema: here the manifest without its routes; each route whose fragment is new
/// (every route, but for a rebuild) was checked against `#/$defs/route` by
/// [`check_written_route`] in the task that wrote it. That is the whole check's verdict because
/// the schema judges each route alone: `routes` is `{"type": "array", "items": {"$ref":
/// "#/$defs/route"}}`, and no keyword anywhere looks across items or through a dynamic
/// reference (`uniqueItems`, `contains`, `unevaluatedItems`, `$dynamicRef`;
/// `manifest_schema_judges_each_route_alone` keeps it so), while every kept fragment is the
/// text of a route equal to one that passed in a manifest verified before. The hook client's
/// read is checked the same way: the manifest without its routes read as its hook view, and
/// each new route as a hook route. JSON composes: an array of values that each parse is a
/// value, and the staged bytes are those pieces (`canonical_json_tests` holds the pieces equal
/// to the whole document), so that is the verdict of reading the staged file whole, which a
/// build without a check still does.
fn check_manifest_parts(manifest_path: &str, check: &ManifestCheck<'_>) -> Result<(), EmitError> {
    if let Some(error) = manifest_validator()
        .iter_errors(check.without_routes)
        .next()
    {
        return Err(manifest_schema_broken(manifest_path, &error, ""));
    }
    let view = HookView::deserialize(check.without_routes).map_err(|e| unreadable(&e))?;
    if view.manifest_version != MANIFEST_VERSION {
        return Err(unreadable(&format!(
            "manifestVersion {} is not {MANIFEST_VERSION}",
            view.manifest_version
        )));
    }
    Ok(())
}

/// The route at `/routes/<index>` of the manifest at `manifest_path`, newly written, as the
/// manifest's check in parts reads it ([`check_manifest_parts`]): read as
/// [`super::route_check`] says (the nesting its writer counted, and the route itself with its
/// schema forms emptied), against `#/$defs/route` and as the hook client reads a route.
pub(super) fn check_written_route(
    manifest_path: &str,
    index: usize,
    route: &RouteForCheck,
) -> Result<(), EmitError> {
    if !route.readable() {
        return Err(EmitError::StagedTreeMismatch(format!(
            "{manifest_path} nests `/routes/{index}` {} arrays and objects deep, and its reader reads at most {SERDE_JSON_MAX_DEPTH}",
            route.depth
        )));
    }
    // A valid route is the rule: `is_valid` stops at nothing and builds no error.
    let validator = route_validator();
    if !validator.is_valid(&route.value)
        && let Some(error) = validator.iter_errors(&route.value).next()
    {
        return Err(manifest_schema_broken(
            manifest_path,
            &error,
            &format!("/routes/{index}"),
        ));
    }
    // What the hook client reads of a route: its id and config (no schema form).
    HookRoute::deserialize(&route.value).map_err(|e| unreadable(&e))?;
    Ok(())
}

/// The staged manifest fails the hook client's reading of it.
fn unreadable(error: &dyn std::fmt::Display) -> EmitError {
    EmitError::StagedTreeMismatch(format!("the hook client cannot read the manifest: {error}"))
}

/// The manifest's own schema, compiled once: the run-time contract is checked before any
/// artifact that carries it replaces the previous one.
fn manifest_validator() -> &'static jsonschema::Validator {
    static VALIDATOR: std::sync::OnceLock<jsonschema::Validator> = std::sync::OnceLock::new();
    VALIDATOR.get_or_init(|| {
        jsonschema::draft202012::new(&manifest_schema()).expect("the manifest schema compiles")
    })
}

/// The manifest schema's `#/$defs/route`, compiled once: one route of a manifest.
fn route_validator() -> &'static jsonschema::Validator {
    static VALIDATOR: std::sync::OnceLock<jsonschema::Validator> = std::sync::OnceLock::new();
    VALIDATOR.get_or_init(|| {
        let mut schema = manifest_schema();
        let object = schema
            .as_object_mut()
            .expect("the manifest schema is an object");
        object.retain(|key, _| key.starts_with('$'));
        object.insert("$ref".to_owned(), "#/$defs/route".into());
        jsonschema::draft202012::new(&schema).expect("the route schema compiles")
    })
}

fn manifest_schema() -> serde_json::Value {
    serde_json::from_str(include_str!("../../../schemas/abgen-manifest.schema.json"))
        .expect("the manifest schema is JSON")
}

/// Writes the tree, linking from `out` what `linkable` allows; returns the linked files with the
/// stamp each had in `out` (linking changes a file's change time, so `linkable`'s record of the
/// output is brought up to date for the ownership check that follows).
fn write_tree(
    plan: &FilePlan,
    manifest_path: &str,
    manifest: &[&[u8]],
    staging: &Path,
    out: &Path,
    mut linkable: Option<&mut Linkable<'_>>,
) -> Result<BTreeMap<String, FileStamp>, EmitError> {
    fs::create_dir_all(staging).map_err(EmitError::io("create", staging))?;
    Failpoint::StageWrite.hit()?;
    // The manifest, the largest file, is written beside the others.
    let (files, manifest) = rayon::join(
        || -> Result<BTreeMap<String, FileStamp>, EmitError> {
            let mut linked = BTreeMap::new();
            for (path, file) in plan.files() {
                if let Some(linkable) = linkable.as_deref_mut()
                    && let Some(stamp) = link_unchanged(linkable, path, file.mode, out, staging)
                {
                    linked.insert(path.to_owned(), stamp);
                    continue;
                }
                write_file(staging, path, &file.contents, file.mode)?;
            }
            Ok(linked)
        },
        || write_pieces(staging, manifest_path, manifest, super::plan::MODE_FILE),
    );
    let linked = files?;
    manifest?;
    Ok(linked)
}

/// Links `out/<path>` to `staging/<path>` when the output holds it with the planned digest and
/// mode, as abgen put it there; the stamp it had, or none when it must be written.
fn link_unchanged(
    linkable: &mut Linkable<'_>,
    path: &str,
    mode: u32,
    out: &Path,
    staging: &Path,
) -> Option<FileStamp> {
    let in_place = linkable.in_place.as_mut()?;
    let placed = in_place.files.get_mut(path)?;
    let source = out.join(path);
    let unchanged = placed.mode == mode
        && linkable.digests.get(path) == Some(&placed.sha256)
        && FileStamp::of(&source) == Some(placed.stamp);
    if !unchanged {
        return None;
    }
    let target = staging.join(path);
    if let Some(directory) = target.parent() {
        fs::create_dir_all(directory).ok()?;
    }
    // A file system without hard links (or a race with an edit) falls back to writing.
    fs::hard_link(&source, &target).ok()?;
    let stamp = placed.stamp;
    match FileStamp::of(&source) {
        Some(now) if now.same_content_as(&stamp) => placed.stamp = now,
        _ => {
            let _ = fs::remove_file(&target);
            return None;
        }
    }
    Some(stamp)
}

fn write_file(staging: &Path, relative: &str, contents: &[u8], mode: u32) -> Result<(), EmitError> {
    let path = staging.join(relative);
    if let Some(directory) = path.parent() {
        fs::create_dir_all(directory).map_err(EmitError::io("create", directory))?;
    }
    fs::write(&path, contents).map_err(EmitError::io("write", &path))?;
    set_mode(&path, mode)
}

/// [`write_file`] of the concatenation of `pieces`, which is never made.
fn write_pieces(
    staging: &Path,
    relative: &str,
    pieces: &[&[u8]],
    mode: u32,
) -> Result<(), EmitError> {
    use std::io::{IoSlice, Write as _};
    let path = staging.join(relative);
    if let Some(directory) = path.parent() {
        fs::create_dir_all(directory).map_err(EmitError::io("create", directory))?;
    }
    let mut file = fs::File::create(&path).map_err(EmitError::io("write", &path))?;
    // The pieces go to the file as they are, many to a call, not copied into a buffer first
    // (an empty one left out: a call given only empty slices writes nothing and says so).
    let mut slices: Vec<IoSlice<'_>> = pieces
        .iter()
        .filter(|piece| !piece.is_empty())
        .map(|piece| IoSlice::new(piece))
        .collect();
    let mut rest = &mut slices[..];
    while !rest.is_empty() {
        let written = match file.write_vectored(&rest[..rest.len().min(IOV_MAX)]) {
            Ok(0) => Err(std::io::Error::from(std::io::ErrorKind::WriteZero)),
            Ok(written) => Ok(written),
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => Err(error),
        }
        .map_err(EmitError::io("write", &path))?;
        IoSlice::advance_slices(&mut rest, written);
    }
    set_mode(&path, mode)
}

/// The most slices one `writev` takes (POSIX's `IOV_MAX` on Linux and macOS).
const IOV_MAX: usize = 1024;

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) -> Result<(), EmitError> {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(mode))
        .map_err(EmitError::io("set the mode of", path))
}

#[cfg(not(unix))]
fn set_mode(_path: &Path, _mode: u32) -> Result<(), EmitError> {
    Ok(())
}

fn remove_if_present(path: &Path) -> Result<(), EmitError> {
    match fs::remove_dir_all(path) {
        Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
            Err(EmitError::io("remove", path)(error))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
#[path = "stage_tests.rs"]
pub(super) mod tests;
