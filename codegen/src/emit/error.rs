//! Why an artifact could not be emitted. Each variant names what the user must change; I/O
//! errors carry the path they concern.

use std::path::PathBuf;

/// An emit failure. The previous artifact, if any, is left untouched.
#[derive(Debug, thiserror::Error)]
pub enum EmitError {
    #[error("abgen cannot emit for `{0}` yet (it emits for {known}); choose targets with --target", known = super::hosts::HOSTS.iter().map(|host| host.name).collect::<Vec<_>>().join(", "))]
    UnknownTarget(String),
    #[error(
        "`{route}` handles `{event}`, which {host} cannot deliver: {reason}; add `targets` to the route to leave {host} out"
    )]
    UnsupportedEvent {
        route: String,
        event: String,
        host: &'static str,
        reason: String,
    },
    #[error(
        "`{route}` lists the tool selector `{selector}`, which is not one of shell, file.read, file.write, mcp, agent, other or `<host>:<tool name>`"
    )]
    UnknownToolSelector { route: String, selector: String },
    #[error(
        "`{route}` lists the file name `{file}`, which cannot be matched (it is empty or contains `|`)"
    )]
    InvalidFileName { route: String, file: String },
    #[error("two outputs write `{0}`")]
    DuplicatePath(String),
    #[error("refusing to write the artifact to {out}: {why}")]
    UnsafeOutputDir { out: PathBuf, why: &'static str },
    #[error(
        "cannot find the abgen-host runtime binary: set ABGEN_HOST to its path, or install it beside the abgen executable (looked for {beside})"
    )]
    HostBinaryMissing { beside: PathBuf },
    #[error("cannot {action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot serialize {what}: {source}")]
    Serialize {
        what: &'static str,
        source: serde_json::Error,
    },
}

impl EmitError {
    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
    ) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.into();
        move |source| Self::Io {
            action,
            path,
            source,
        }
    }
}
