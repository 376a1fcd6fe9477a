//! What `abgen build --json` prints: one document of `schemas/build-report.schema.json`, written
//! by the canonical writer, whatever the outcome. Entry: [`BuildReport`]'s constructors, then
//! [`BuildReport::to_json`].

use std::path::Path;

use serde::Serialize;

use super::build::PlannedArtifact;
use super::canonical_json::to_canonical_json;
use super::compare::ArtifactComparison;
use crate::diagnostics::Diagnostic;
use crate::diagnostics::render::{JsonEntry, Summary, json_entries};

/// The `version` of `schemas/build-report.schema.json` this abgen writes.
pub const BUILD_REPORT_VERSION: u32 = 1;

/// One compiled MCP App view and its size.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BuiltApp {
    pub name: String,
    pub server: String,
    pub target: String,
    /// The emitted view, relative to the artifact root.
    pub path: String,
    pub bytes: u64,
    pub gzip_bytes: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BuildStatus {
    Built,
    Failed,
    Unchanged,
    Differs,
}

/// The report of one `abgen build`.
#[derive(Debug, Serialize)]
pub struct BuildReport<'a> {
    version: u32,
    status: BuildStatus,
    out: Option<String>,
    targets: Vec<String>,
    digest: Option<&'a str>,
    files: usize,
    apps: &'a [BuiltApp],
    diagnostics: Vec<JsonEntry<'a>>,
    summary: Summary,
    #[serde(skip_serializing_if = "Option::is_none")]
    check: Option<&'a ArtifactComparison>,
}

impl<'a> BuildReport<'a> {
    /// A build that wrote `artifact` to `out`.
    pub fn built(out: &Path, artifact: &'a PlannedArtifact, diagnostics: &'a [Diagnostic]) -> Self {
        Self::of_artifact(BuildStatus::Built, out, artifact, diagnostics, None)
    }

    /// A build that wrote nothing; `out` when it was known.
    pub fn failed(out: Option<&Path>, diagnostics: &'a [Diagnostic]) -> Self {
        BuildReport {
            version: BUILD_REPORT_VERSION,
            status: BuildStatus::Failed,
            out: out.map(|out| out.display().to_string()),
            targets: Vec::new(),
            digest: None,
            files: 0,
            apps: &[],
            diagnostics: json_entries(diagnostics),
            summary: Summary::of(diagnostics),
            check: None,
        }
    }

    /// `--check`: `artifact` is what the sources produce, `comparison` how `out` differs.
    pub fn checked(
        out: &Path,
        artifact: &'a PlannedArtifact,
        comparison: &'a ArtifactComparison,
        diagnostics: &'a [Diagnostic],
    ) -> Self {
        let status = if comparison.is_unchanged() {
            BuildStatus::Unchanged
        } else {
            BuildStatus::Differs
        };
        Self::of_artifact(status, out, artifact, diagnostics, Some(comparison))
    }

    fn of_artifact(
        status: BuildStatus,
        out: &Path,
        artifact: &'a PlannedArtifact,
        diagnostics: &'a [Diagnostic],
        check: Option<&'a ArtifactComparison>,
    ) -> Self {
        BuildReport {
            version: BUILD_REPORT_VERSION,
            status,
            out: Some(out.display().to_string()),
            targets: artifact.targets.clone(),
            digest: Some(&artifact.manifest.digest),
            files: artifact.manifest.files.len() + 1,
            apps: &artifact.apps,
            diagnostics: json_entries(diagnostics),
            summary: Summary::of(diagnostics),
            check,
        }
    }

    /// The report as canonical JSON with a final newline.
    pub fn to_json(&self) -> String {
        // Strings, numbers and lists of them: serializing cannot fail.
        to_canonical_json(&serde_json::to_value(self).unwrap_or_default())
    }
}
