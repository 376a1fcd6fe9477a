//! Writes a file plan and its manifest into a staging directory beside the output, verifies it,
//! then swaps it in atomically. Entry: [`stage_artifact`]; [`check_output_dir`] refuses outputs
//! that would overwrite the project.
//!
//! The manifest is written last, so a staging directory with a manifest is complete. The staged
//! tree is verified (exactly the planned files, byte for byte, nothing else; every JSON document
//! parses; the hook client reads the manifest). The swap is one `renameat2(RENAME_EXCHANGE)`
//! where the kernel has it (the output is the old or the new
//! artifact at every instant), else two renames. Every build first recovers what a killed build
//! left: a previous artifact moved aside with no output in its place is moved back, and
//! leftover staging or aside directories are removed. Failpoints ([`super::failpoint`]) prove it.

use std::fs;
use std::path::{Component, Path, PathBuf};

use super::error::EmitError;
use super::failpoint::Failpoint;
use super::plan::FilePlan;

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

/// Writes `plan` and then `manifest` (its bytes, under `manifest_path`) into a staging sibling
/// of `out`, and swaps it in as `out`. `out` must come from [`check_output_dir`].
pub fn stage_artifact(
    plan: &FilePlan,
    manifest_path: &str,
    manifest: &[u8],
    out: &Path,
) -> Result<(), EmitError> {
    let parent = out.parent().unwrap_or(out);
    fs::create_dir_all(parent).map_err(EmitError::io("create", parent))?;
    let name = out
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    recover(parent, &name, out)?;
    let pid = std::process::id();
    let staging = parent.join(format!(".{name}.{STAGING_TAG}{pid}"));
    let aside = parent.join(format!(".{name}.{ASIDE_TAG}{pid}"));
    remove_if_present(&staging)?;
    let written = write_tree(plan, manifest_path, manifest, &staging)
        .and_then(|()| verify_tree(plan, manifest_path, &staging));
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
                return fs::remove_dir_all(&staging)
                    .map_err(EmitError::io("remove the previous artifact at", &staging));
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
    rename_swap(&staging, &aside, out)
}

/// Names of the sibling directories a build makes: `.<out>.<tag><pid>`.
const STAGING_TAG: &str = "abgen-staging-";
const ASIDE_TAG: &str = "abgen-old-";

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

/// The two-rename swap: previous output aside, staging in, aside removed. A death between the
/// renames leaves the previous artifact aside, which [`recover`] moves back.
fn rename_swap(staging: &Path, aside: &Path, out: &Path) -> Result<(), EmitError> {
    let had_previous = out.exists();
    if had_previous {
        remove_if_present(aside)?;
        fs::rename(out, aside).map_err(EmitError::io("move the previous artifact from", out))?;
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
        fs::remove_dir_all(aside)
            .map_err(EmitError::io("remove the previous artifact at", aside))?;
    }
    Ok(())
}

/// Undoes what a killed build left beside `out`: with no output, a complete previous artifact
/// set aside becomes the output again; every other leftover is removed.
fn recover(parent: &Path, name: &str, out: &Path) -> Result<(), EmitError> {
    let Ok(entries) = fs::read_dir(parent) else {
        return Ok(());
    };
    let mut leftovers: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok())
        .filter(|entry| {
            let file_name = entry.file_name();
            let file_name = file_name.to_string_lossy();
            let tagged = |tag: &str| file_name.starts_with(&format!(".{name}.{tag}"));
            tagged(STAGING_TAG) || tagged(ASIDE_TAG)
        })
        .map(|entry| entry.path())
        .collect();
    leftovers.sort();
    if !out.exists() {
        let is_aside = |path: &&PathBuf| {
            path.file_name().is_some_and(|file| {
                file.to_string_lossy()
                    .starts_with(&format!(".{name}.{ASIDE_TAG}"))
            })
        };
        let complete = |path: &&PathBuf| {
            path.join(abgen_runtime::manifest::MANIFEST_FILE_NAME)
                .is_file()
        };
        if let Some(previous) = leftovers
            .iter()
            .find(|path| is_aside(path) && complete(path))
        {
            fs::rename(previous, out).map_err(EmitError::io(
                "restore the previous artifact from",
                previous,
            ))?;
        }
    }
    for leftover in leftovers.iter().filter(|path| path.exists()) {
        remove_if_present(leftover)?;
    }
    Ok(())
}

/// The staged tree holds exactly the planned files and the manifest, as regular files with the
/// planned bytes: nothing else, no symlink, nothing outside.
fn verify_tree(plan: &FilePlan, manifest_path: &str, staging: &Path) -> Result<(), EmitError> {
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
                    || planned.is_some_and(|file| {
                        fs::read(entry.path()).is_ok_and(|bytes| bytes == file.contents)
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
    verify_documents(plan, manifest_path, staging)
}

/// Every JSON document parses, and the hook client can read the staged manifest (its hook view
/// skips the schemas, as it does inside a host's deadline).
fn verify_documents(plan: &FilePlan, manifest_path: &str, staging: &Path) -> Result<(), EmitError> {
    for (path, file) in plan.files().filter(|(path, _)| path.ends_with(".json")) {
        if serde_json::from_slice::<serde::de::IgnoredAny>(&file.contents).is_err() {
            return Err(EmitError::StagedTreeMismatch(format!("{path} is not JSON")));
        }
    }
    let manifest_file = staging.join(manifest_path);
    abgen_runtime::manifest::read_hook_view(&manifest_file).map_err(|error| {
        EmitError::StagedTreeMismatch(format!("the hook client cannot read the manifest: {error}"))
    })?;
    let manifest: serde_json::Value = fs::read(&manifest_file)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .ok_or_else(|| EmitError::StagedTreeMismatch(format!("{manifest_path} is not JSON")))?;
    if let Some(error) = manifest_validator().iter_errors(&manifest).next() {
        return Err(EmitError::StagedTreeMismatch(format!(
            "{manifest_path} breaks schemas/abgen-manifest.schema.json at `{}`: {error}",
            error.instance_path()
        )));
    }
    Ok(())
}

/// The manifest's own schema, compiled once: the run-time contract is checked before any
/// artifact that carries it replaces the previous one.
fn manifest_validator() -> &'static jsonschema::Validator {
    static VALIDATOR: std::sync::OnceLock<jsonschema::Validator> = std::sync::OnceLock::new();
    VALIDATOR.get_or_init(|| {
        let schema: serde_json::Value =
            serde_json::from_str(include_str!("../../../schemas/abgen-manifest.schema.json"))
                .expect("the manifest schema is JSON");
        jsonschema::draft202012::new(&schema).expect("the manifest schema compiles")
    })
}

fn write_tree(
    plan: &FilePlan,
    manifest_path: &str,
    manifest: &[u8],
    staging: &Path,
) -> Result<(), EmitError> {
    fs::create_dir_all(staging).map_err(EmitError::io("create", staging))?;
    Failpoint::StageWrite.hit()?;
    for (path, file) in plan.files() {
        write_file(staging, path, &file.contents, file.mode)?;
    }
    write_file(staging, manifest_path, manifest, super::plan::MODE_FILE)
}

fn write_file(staging: &Path, relative: &str, contents: &[u8], mode: u32) -> Result<(), EmitError> {
    let path = staging.join(relative);
    if let Some(directory) = path.parent() {
        fs::create_dir_all(directory).map_err(EmitError::io("create", directory))?;
    }
    fs::write(&path, contents).map_err(EmitError::io("write", &path))?;
    set_mode(&path, mode)
}

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

/// An absolute, lexically normalised path whose longest existing ancestor is canonicalised, so
/// `..` and symlinks cannot hide that two paths are the same.
fn resolve(path: &Path) -> Result<PathBuf, EmitError> {
    let absolute = if path.is_absolute() {
        path.to_owned()
    } else {
        std::env::current_dir()
            .map_err(EmitError::io("read", "the current directory"))?
            .join(path)
    };
    let mut normal = PathBuf::new();
    for component in absolute.components() {
        match component {
            Component::ParentDir => {
                normal.pop();
            }
            Component::CurDir => {}
            other => normal.push(other),
        }
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

#[cfg(test)]
#[path = "stage_tests.rs"]
mod tests;
