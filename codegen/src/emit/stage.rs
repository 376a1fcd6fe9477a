//! Writes a file plan and its manifest into a staging directory beside the output, then swaps
//! the staging directory in. Entry: [`stage_artifact`]; [`check_output_dir`] refuses outputs
//! that would overwrite the project.
//!
//! The manifest is written last, so a staging directory with a manifest is complete. The swap is
//! two renames (old output aside, staging in) followed by removing the old output: a build that
//! fails before the swap leaves the previous artifact untouched, but a crash between the two
//! renames leaves no output directory (the old one survives as `<out>.abgen-old-<pid>`). The
//! atomic swap (renameat2 RENAME_EXCHANGE) with recovery of a half-finished swap on the next
//! build replaces this in a later change.

use std::fs;
use std::path::{Component, Path, PathBuf};

use super::error::EmitError;
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
    let pid = std::process::id();
    let staging = parent.join(format!(".{name}.abgen-staging-{pid}"));
    let aside = parent.join(format!(".{name}.abgen-old-{pid}"));
    remove_if_present(&staging)?;
    let written = write_tree(plan, manifest_path, manifest, &staging);
    if let Err(error) = written {
        let _ = fs::remove_dir_all(&staging);
        return Err(error);
    }
    let had_previous = out.exists();
    if had_previous {
        remove_if_present(&aside)?;
        fs::rename(out, &aside).map_err(EmitError::io("move the previous artifact from", out))?;
    }
    if let Err(source) = fs::rename(&staging, out) {
        // Put the previous artifact back so a failed swap changes nothing.
        if had_previous {
            let _ = fs::rename(&aside, out);
        }
        let _ = fs::remove_dir_all(&staging);
        return Err(EmitError::Io {
            action: "move the new artifact to",
            path: out.to_owned(),
            source,
        });
    }
    if had_previous {
        fs::remove_dir_all(&aside)
            .map_err(EmitError::io("remove the previous artifact at", &aside))?;
    }
    Ok(())
}

fn write_tree(
    plan: &FilePlan,
    manifest_path: &str,
    manifest: &[u8],
    staging: &Path,
) -> Result<(), EmitError> {
    fs::create_dir_all(staging).map_err(EmitError::io("create", staging))?;
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
