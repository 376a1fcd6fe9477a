//! Why the worker (or a stdio entry) could not be bundled, and the coded diagnostics of each
//! reason ([`BundleError::diagnostics`]).

use std::path::PathBuf;
use std::process::ExitStatus;

use serde::Deserialize;

use crate::diagnostics::{Code, Diagnostic, Location};

#[derive(Debug, thiserror::Error)]
pub enum BundleError {
    #[error("cannot render the worker entry template: {0}")]
    Template(#[from] minijinja::Error),
    #[error(
        "cannot run Node ({node}): {source}; install Node.js 20 or newer, or set ABGEN_NODE to its path"
    )]
    NodeMissing {
        node: String,
        source: std::io::Error,
    },
    /// `path`: the `node_modules` folder that lacks esbuild, or the executable no ancestor of
    /// which has one.
    #[error(
        "esbuild is not installed beside abgen (looked from {path}); install abgen from npm (`npm install --save-dev abgen`), which brings its esbuild, or set ABGEN_NODE_MODULES to a node_modules folder with esbuild"
    )]
    ToolchainMissing { path: PathBuf },
    /// What the bundling script reported: esbuild's messages and the checks around them.
    #[error("bundling {what} failed:\n{}", messages.iter().map(BundleMessage::to_string).collect::<Vec<_>>().join("\n"))]
    Failed {
        what: String,
        messages: Vec<BundleMessage>,
    },
}

/// One error of the bundling script (`templates/esbuild-worker.mjs`).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct BundleMessage {
    pub kind: MessageKind,
    pub text: String,
    /// Relative to the project root, as esbuild names it.
    #[serde(default)]
    pub file: Option<String>,
    #[serde(default)]
    pub line: Option<u32>,
    #[serde(default)]
    pub column: Option<u32>,
    #[serde(default)]
    pub package: Option<String>,
    #[serde(default)]
    pub version: Option<String>,
    #[serde(default)]
    pub copies: Vec<String>,
    #[serde(default)]
    pub suggestion: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MessageKind {
    Esbuild,
    UseClient,
    MissingPackage,
    ReactVersion,
    DuplicateReact,
    /// Anything the script could not say in its own format (it crashed, Node printed).
    #[serde(other)]
    Other,
}

impl std::fmt::Display for BundleMessage {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(file) = &self.file {
            write!(formatter, "{file}")?;
            if let Some(line) = self.line {
                write!(formatter, ":{line}")?;
                if let Some(column) = self.column {
                    write!(formatter, ":{column}")?;
                }
            }
            formatter.write_str(": ")?;
        }
        formatter.write_str(&self.text)
    }
}

/// The key of the script's one error line on stderr.
const ERRORS_KEY: &str = "abgenBundleErrors";

#[derive(Deserialize)]
struct ScriptErrors {
    #[serde(rename = "abgenBundleErrors")]
    errors: Vec<BundleMessage>,
}

impl BundleError {
    /// The failure of a bundling script that exited with `status` and wrote `stderr`.
    pub(crate) fn from_script(what: String, stderr: &str, status: ExitStatus) -> Self {
        let reported = stderr
            .lines()
            .rev()
            .filter(|line| line.contains(ERRORS_KEY))
            .find_map(|line| serde_json::from_str::<ScriptErrors>(line).ok());
        let messages = match reported {
            Some(reported) if !reported.errors.is_empty() => reported.errors,
            _ => {
                return Self::script_failed(
                    what,
                    if stderr.trim().is_empty() {
                        format!("the bundler exited with {status}")
                    } else {
                        stderr.trim_end().to_owned()
                    },
                );
            }
        };
        BundleError::Failed { what, messages }
    }

    /// The failure of a bundling script that could not say why in its own format (it crashed,
    /// Node printed, its report was unreadable): one message of `text`.
    pub(crate) fn script_failed(what: String, text: String) -> Self {
        BundleError::Failed {
            what,
            messages: vec![BundleMessage {
                kind: MessageKind::Other,
                text,
                file: None,
                line: None,
                column: None,
                package: None,
                version: None,
                copies: Vec::new(),
                suggestion: None,
            }],
        }
    }

    /// This failure as coded diagnostics, one per reported error (the missing packages of one
    /// run together, so one `npm install` fixes them).
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        match self {
            BundleError::Failed { what, messages } => {
                let mut diagnostics: Vec<Diagnostic> = messages
                    .iter()
                    .filter(|message| message.kind != MessageKind::MissingPackage)
                    .map(|message| message_diagnostic(what, message))
                    .collect();
                let missing: Vec<&str> = messages
                    .iter()
                    .filter(|message| message.kind == MessageKind::MissingPackage)
                    .filter_map(|message| message.package.as_deref())
                    .collect();
                if !missing.is_empty() {
                    diagnostics.insert(0, missing_packages(&missing));
                }
                diagnostics
            }
            BundleError::ToolchainMissing { .. } => vec![Diagnostic::new(
                Code::AB5361,
                self.to_string(),
                "run `npm install --save-dev abgen` in the project (it brings esbuild), or set ABGEN_NODE_MODULES to a node_modules folder holding esbuild",
            )],
            BundleError::NodeMissing { .. } => vec![Diagnostic::new(
                Code::AB5362,
                self.to_string(),
                "install Node.js 20 or newer, or set ABGEN_NODE to its path",
            )],
            BundleError::Template(_) => vec![Diagnostic::new(
                Code::AB5369,
                self.to_string(),
                "this is a bug in abgen: report it with the project that shows it",
            )],
        }
    }
}

/// The `npm install` that brings `packages`, React's pinned to the worker's version.
fn install_command(packages: &[&str]) -> String {
    let pinned: Vec<String> = packages
        .iter()
        .map(|package| {
            if is_react_package(package) {
                format!("{package}@{}", abgen_runtime::manifest::REACT_VERSION)
            } else {
                (*package).to_owned()
            }
        })
        .collect();
    format!("npm install {}", pinned.join(" "))
}

fn is_react_package(package: &str) -> bool {
    matches!(package, "react" | "react-dom" | "react-server-dom-webpack")
}

fn missing_packages(missing: &[&str]) -> Diagnostic {
    let names: Vec<String> = missing.iter().map(|name| format!("`{name}`")).collect();
    Diagnostic::new(
        Code::AB5361,
        format!(
            "{} {} not installed in the project: the render worker bundles {} from the project's node_modules",
            names.join(", "),
            if missing.len() == 1 { "is" } else { "are" },
            if missing.len() == 1 { "it" } else { "them" },
        ),
        format!("run `{}` in the project root", install_command(missing)),
    )
}

fn message_diagnostic(what: &str, message: &BundleMessage) -> Diagnostic {
    let react = abgen_runtime::manifest::REACT_VERSION;
    let package = message.package.as_deref().unwrap_or("react");
    let diagnostic = match message.kind {
        MessageKind::ReactVersion => Diagnostic::new(
            Code::AB5363,
            format!(
                "`{package}` {} is installed, but the render worker is pinned to React {react}",
                message.version.as_deref().unwrap_or("of another version"),
            ),
            format!(
                "run `{}` in the project root (abgen's runtime and Flight decoder are built and tested against exactly this React)",
                install_command(&["react", "react-dom", "react-server-dom-webpack"])
            ),
        ),
        MessageKind::DuplicateReact => Diagnostic::new(
            Code::AB5364,
            format!(
                "the render worker would bundle {} copies of `{package}`: {}",
                message.copies.len(),
                message.copies.join(", ")
            ),
            format!(
                "keep one copy: run `npm ls {package}` to see who brings the other, align it on {react} (npm `overrides`), then `npm dedupe`"
            ),
        ),
        MessageKind::Esbuild | MessageKind::UseClient | MessageKind::Other => {
            let recovery = match &message.suggestion {
                Some(suggestion) => format!(
                    "esbuild suggests `{suggestion}`; fix the module and build again"
                ),
                None if message.text.contains("Could not resolve") => "install the package the import names (`npm install <package>`) or fix the path, then build again".to_owned(),
                None if message.kind == MessageKind::UseClient => "move the client component out of the route's imports: routes render on the server only".to_owned(),
                None => "fix the module the message names and build again".to_owned(),
            };
            Diagnostic::new(
                Code::AB5360,
                format!("bundling {what}: {}", message.text),
                recovery,
            )
        }
        // Handled together by `missing_packages`.
        MessageKind::MissingPackage => Diagnostic::new(
            Code::AB5361,
            message.text.clone(),
            format!("run `{}`", install_command(&[package])),
        ),
    };
    match &message.file {
        Some(file) => diagnostic.at(Location {
            file: file.clone(),
            span: None,
            line: message.line,
            column: message.column,
        }),
        None => diagnostic,
    }
}
