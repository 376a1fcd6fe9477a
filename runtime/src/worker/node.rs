//! Finding the Node.js that runs the worker: `$ABGEN_NODE`, else `node` on `PATH`, version ≥ 20.
//!
//! Entries: [`find_node`] (the executable only: what a worker start pays for) and
//! [`locate_node`] (the executable and its version). Invariant: a failure says exactly what was
//! looked for, so a user can install Node or point `ABGEN_NODE` at one.
//!
//! Why two: asking Node its version starts a process, a tenth of a cold render's Node start-up.
//! A worker start does not ask: the worker's own loader refuses an older Node before its hello,
//! and only a worker that fails before its hello asks the version, to say why
//! ([`NodeBinary::explain_early_failure`]).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::supervisor::WorkerError;

/// The oldest Node major version the worker supports.
pub const MIN_NODE_MAJOR: u32 = 20;

/// A Node.js executable (new enough, when [`locate_node`] found it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeBinary {
    pub path: PathBuf,
}

/// Finds Node from this process's `ABGEN_NODE` and `PATH`, and checks its version.
pub fn locate_node() -> Result<NodeBinary, WorkerError> {
    locate_node_in(std::env::var_os("ABGEN_NODE"), std::env::var_os("PATH"))
}

/// Finds Node from the given `ABGEN_NODE` and `PATH` values, and checks its version.
pub fn locate_node_in(
    explicit: Option<OsString>,
    path: Option<OsString>,
) -> Result<NodeBinary, WorkerError> {
    let node = find_node_in(explicit, path)?;
    node.check_version()?;
    Ok(node)
}

/// Finds Node's executable from this process's `ABGEN_NODE` and `PATH`, without running it.
pub fn find_node() -> Result<NodeBinary, WorkerError> {
    find_node_in(std::env::var_os("ABGEN_NODE"), std::env::var_os("PATH"))
}

/// Finds Node's executable from the given `ABGEN_NODE` and `PATH` values, without running it.
pub fn find_node_in(
    explicit: Option<OsString>,
    path: Option<OsString>,
) -> Result<NodeBinary, WorkerError> {
    let path = match explicit.filter(|value| !value.is_empty()) {
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
    Ok(NodeBinary { path })
}

impl NodeBinary {
    /// Runs `node --version`: an error unless it is [`MIN_NODE_MAJOR`] or newer.
    pub fn check_version(&self) -> Result<(), WorkerError> {
        let output = Command::new(&self.path)
            .arg("--version")
            .output()
            .map_err(|error| WorkerError::NodeNotFound {
                looked_for: format!("{} (could not run it: {error})", self.path.display()),
            })?;
        let version = String::from_utf8_lossy(&output.stdout).trim().to_owned();
        let major = version
            .strip_prefix('v')
            .and_then(|rest| rest.split('.').next())
            .and_then(|major| major.parse::<u32>().ok());
        match major {
            Some(major) if major >= MIN_NODE_MAJOR => Ok(()),
            _ => Err(WorkerError::NodeTooOld {
                path: self.path.clone(),
                version,
                minimum: MIN_NODE_MAJOR,
            }),
        }
    }

    /// What to report for a worker on this Node that failed with `error` before its hello: that
    /// the Node is too old (or cannot run) when it is, else `error` itself.
    pub fn explain_early_failure(&self, error: WorkerError) -> WorkerError {
        match self.check_version() {
            Ok(()) => error,
            Err(why) => why,
        }
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

        // Found without running it; the version is asked only to explain an early failure.
        let found = find_node_in(None, Some(directory.path().as_os_str().to_owned())).unwrap();
        let explained = found.explain_early_failure(WorkerError::Exited);
        assert!(
            matches!(explained, WorkerError::NodeTooOld { ref version, .. } if version == "v18.19.0"),
            "{explained}"
        );
    }
}
