//! Why an artifact could not be emitted. Each variant names what the user must change; I/O
//! errors carry the path they concern.

use std::path::{Path, PathBuf};

use crate::diagnostics::{Code, Diagnostic, Location};

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
    /// The build bundles entry servers before emitting; an input without the bundle would
    /// point a host document at a file the artifact lacks.
    #[error("the entry of server `{server}` was not bundled; nothing was written")]
    EntryNotBundled { server: String },
    /// Likewise for a plain script: the manifest would name a bundle the artifact lacks.
    #[error("the plain script `{module}` was not bundled; nothing was written")]
    ScriptNotBundled { module: String },
    #[error("refusing to write the artifact to {out}: {why}")]
    UnsafeOutputDir { out: PathBuf, why: &'static str },
    #[error("refusing to write the artifact to {out}: it is not a directory")]
    OutputNotDirectory { out: PathBuf },
    /// The output holds `paths` (up to [`super::output::NAMED_PATHS`], `more` when there are
    /// others), which abgen did not write or which changed since.
    #[error("refusing to replace {out}: it holds files abgen did not write: {}", .paths.iter().map(ForeignPath::to_string).collect::<Vec<_>>().join(", "))]
    OutputNotOwned {
        out: PathBuf,
        has_manifest: bool,
        paths: Vec<ForeignPath>,
        more: bool,
    },
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

/// A path in an output that abgen did not write, relative to the output (a folder ends in `/`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ForeignPath {
    pub path: String,
    /// The manifest lists it with other contents: the user edited a file of the artifact.
    pub changed: bool,
}

impl std::fmt::Display for ForeignPath {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "`{}`", self.path)?;
        if self.changed {
            formatter.write_str(" (changed since abgen wrote it)")?;
        }
        Ok(())
    }
}

impl EmitError {
    /// The error diagnostic of a refused `--out` (AB5340–AB5342), located at the output as the
    /// user sees it from `project_root`; `None` for every other failure.
    pub fn output_diagnostic(&self, project_root: &Path) -> Option<Diagnostic> {
        let shown = |out: &Path| {
            let root = project_root
                .canonicalize()
                .unwrap_or_else(|_| project_root.to_owned());
            out.strip_prefix(&root)
                .unwrap_or(out)
                .to_string_lossy()
                .replace('\\', "/")
        };
        let diagnostic = match self {
            Self::UnsafeOutputDir { out, why } => Diagnostic::new(
                Code::AB5342,
                format!("refusing to write the artifact to `{}`: {why}", shown(out)),
                "pass `--out` a folder outside `src/` that is neither the project root nor one of its parents (the default is `<root>/artifact`); nothing was changed",
            )
            .at(Location::file(shown(out))),
            Self::OutputNotDirectory { out } => Diagnostic::new(
                Code::AB5341,
                format!("`--out` names `{}`, which is not a directory", shown(out)),
                "pass `--out` the path of a directory (a missing one is created), or move that file away; nothing was changed",
            )
            .at(Location::file(shown(out))),
            Self::OutputNotOwned {
                out,
                has_manifest,
                paths,
                more,
            } => {
                let mut listed: Vec<String> = paths.iter().map(ForeignPath::to_string).collect();
                if *more {
                    listed.push("and more".to_owned());
                }
                let what = if *has_manifest {
                    "files abgen did not write there, or changed since"
                } else {
                    "files, and no `abgen.manifest.json` says abgen wrote them"
                };
                Diagnostic::new(
                    Code::AB5340,
                    format!(
                        "refusing to replace `{}`: it holds {what}: {}",
                        shown(out),
                        listed.join(", ")
                    ),
                    "move those files out of the folder (or delete them yourself), or pass `--out` a new or empty folder; nothing was changed",
                )
                .at(Location::file(shown(out)))
                .with_note(
                    "abgen replaces its output only when it is absent, empty, or exactly the artifact its manifest describes, so it never deletes what it did not write",
                )
            }
            _ => return None,
        };
        Some(diagnostic)
    }

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
