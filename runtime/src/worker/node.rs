//! Finding the Node.js that runs the worker: `$ABGEN_NODE`, else `node` on `PATH`, version ≥ 20.
//!
//! Entry: [`locate_node`]. Invariant: a failure says exactly what was looked for, so a user can
//! install Node or point `ABGEN_NODE` at one.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::supervisor::WorkerError;

/// The oldest Node major version the worker supports.
pub const MIN_NODE_MAJOR: u32 = 20;

/// A Node.js executable that is new enough.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeBinary {
    pub path: PathBuf,
    /// As `node --version` prints it, e.g. `v20.20.2`.
    pub version: String,
}

/// Finds Node from this process's `ABGEN_NODE` and `PATH`.
pub fn locate_node() -> Result<NodeBinary, WorkerError> {
    locate_node_in(std::env::var_os("ABGEN_NODE"), std::env::var_os("PATH"))
}

/// Finds Node from the given `ABGEN_NODE` and `PATH` values.
pub fn locate_node_in(
    explicit: Option<OsString>,
    path: Option<OsString>,
) -> Result<NodeBinary, WorkerError> {
    let candidate = match explicit.filter(|value| !value.is_empty()) {
        Some(explicit) => {
            let explicit = PathBuf::from(explicit);
            if !is_executable(&explicit) {
                return Err(WorkerError::NodeNotFound {
                    looked_for: format!(
                        "ABGEN_NODE={} (not an executable file)",
                        explicit.display()
                    ),
                });
            }
            explicit
        }
        None => {
            let directories: Vec<PathBuf> = path
                .as_deref()
                .map(|path| std::env::split_paths(path).collect())
                .unwrap_or_default();
            directories
                .iter()
                .map(|directory| directory.join("node"))
                .find(|candidate| is_executable(candidate))
                .ok_or_else(|| WorkerError::NodeNotFound {
                    looked_for: format!(
                        "$ABGEN_NODE (unset) and `node` in PATH ({})",
                        if directories.is_empty() {
                            "empty".to_owned()
                        } else {
                            directories
                                .iter()
                                .map(|d| d.display().to_string())
                                .collect::<Vec<_>>()
                                .join(":")
                        }
                    ),
                })?
        }
    };
    let output = Command::new(&candidate)
        .arg("--version")
        .output()
        .map_err(|error| WorkerError::NodeNotFound {
            looked_for: format!("{} (could not run it: {error})", candidate.display()),
        })?;
    let version = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    let major = version
        .strip_prefix('v')
        .and_then(|rest| rest.split('.').next())
        .and_then(|major| major.parse::<u32>().ok());
    match major {
        Some(major) if major >= MIN_NODE_MAJOR => Ok(NodeBinary {
            path: candidate,
            version,
        }),
        _ => Err(WorkerError::NodeTooOld {
            path: candidate,
            version,
            minimum: MIN_NODE_MAJOR,
        }),
    }
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    path.metadata()
        .is_ok_and(|metadata| metadata.is_file() && metadata.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_node_names_what_was_looked_for() {
        let error = locate_node_in(None, Some("/nonexistent-a:/nonexistent-b".into())).unwrap_err();
        let message = error.to_string();
        assert!(
            message.contains("ABGEN_NODE") && message.contains("/nonexistent-a:/nonexistent-b"),
            "{message}"
        );
        let error = locate_node_in(Some("/nonexistent/node".into()), None).unwrap_err();
        assert!(
            error.to_string().contains("ABGEN_NODE=/nonexistent/node"),
            "{error}"
        );
    }

    #[test]
    fn an_old_node_is_refused_with_its_version() {
        let directory = tempfile::tempdir().unwrap();
        let fake = directory.path().join("node");
        std::fs::write(&fake, "#!/bin/sh\necho v18.19.0\n").unwrap();
        std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        let error =
            locate_node_in(None, Some(directory.path().as_os_str().to_owned())).unwrap_err();
        assert!(error.to_string().contains("v18.19.0"), "{error}");
    }
}
