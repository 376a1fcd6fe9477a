//! Why an artifact could not be emitted. Each variant names what the user must change; I/O
//! errors carry the path they concern.

use std::path::PathBuf;

/// An emit failure. The previous artifact, if any, is left untouched.
#[derive(Debug, thiserror::Error)]
pub enum EmitError {
    #[error("abgen cannot emit for `{0}` (it emits for {known}); choose targets with --target", known = crate::matrix::hosts().iter().map(|host| host.host.as_str()).collect::<Vec<_>>().join(", "))]
    UnknownTarget(String),
    /// An event route the matrix refuses on a target (`check` reports the same as diagnostics).
    #[error("{}", .0.join("; "))]
    Refused(Vec<String>),
    #[error("the host matrix template of {host} is not JSON: {source}")]
    Template {
        host: String,
        source: serde_json::Error,
    },
    #[error("cannot render .agent-bundle/routes.d.ts: {0}")]
    TypesTemplate(String),
    #[error("cannot render INSTALL.md: {0}")]
    InstallTemplate(String),
    #[error("the staged artifact does not match its plan ({0}); nothing was replaced")]
    StagedTreeMismatch(String),
    #[error("two outputs write `{0}`")]
    DuplicatePath(String),
    #[error("refusing to write the artifact to {out}: {why}")]
    UnsafeOutputDir { out: PathBuf, why: &'static str },
    #[error(
        "cannot find the abgen-host runtime binary: set ABGEN_HOST to its path, install it beside the abgen executable (looked for {beside}), or in abgen's cargo workspace run `cargo build -p abgen-runtime`"
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
