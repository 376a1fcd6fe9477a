//! `abgen build --check`: how an output directory differs from the artifact the sources produce,
//! file by file and in the contracts a reviewer cares about (routes and hook bindings).
//! Entry: [`compare_with_directory`].
//!
//! Invariant: only reads. A file's mode is compared by its executable bit alone, the only part
//! of a mode git keeps, so a committed artifact checked out under another umask still matches.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use abgen_runtime::manifest::MANIFEST_FILE_NAME;
use serde::Serialize;
use serde_json::Value;

use super::build::PlannedArtifact;
use super::error::EmitError;
use super::plan::MODE_EXECUTABLE;

/// How a directory differs from a planned artifact; every list sorted.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ArtifactComparison {
    /// Files the sources produce that the directory lacks.
    pub added: Vec<String>,
    /// Files of the directory the sources do not produce.
    pub removed: Vec<String>,
    /// Files whose bytes or executable bit differ.
    pub changed: Vec<String>,
    /// Routes (by id) whose manifest entry changed, appeared or went away.
    pub routes: Vec<ContractChange>,
    /// Hook bindings (`<host> <native event>`) that changed, appeared or went away.
    pub hooks: Vec<ContractChange>,
}

impl ArtifactComparison {
    /// The directory holds exactly the planned artifact.
    pub fn is_unchanged(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.changed.is_empty()
    }
}

/// One route or hook binding whose contract differs.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct ContractChange {
    pub id: String,
    pub change: Change,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Change {
    Added,
    Removed,
    Changed,
}

impl Change {
    pub fn as_str(self) -> &'static str {
        match self {
            Change::Added => "added",
            Change::Removed => "removed",
            Change::Changed => "changed",
        }
    }
}

/// A file found in the directory: its bytes (`None` for what is not a regular file, which no
/// artifact holds) and whether it is executable.
struct FoundFile {
    contents: Option<Vec<u8>>,
    executable: bool,
}

/// Compares `artifact` (planned, with its manifest) with what `dir` (or, when it is a symlink,
/// its target) holds. An absent `dir` is an empty one.
pub fn compare_with_directory(
    artifact: &PlannedArtifact,
    dir: &Path,
) -> Result<ArtifactComparison, EmitError> {
    let mut found = BTreeMap::new();
    // An output that is a symlink is judged by its target, as `abgen build` judges it; inside
    // it no symlink is followed.
    let target = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_owned());
    if std::fs::symlink_metadata(&target).is_ok() {
        walk(&target, &target, &mut found)?;
    }
    let manifest = artifact.manifest_text.to_string();
    let mut planned: BTreeMap<&str, (&[u8], bool)> = artifact
        .files
        .files()
        .map(|(path, file)| {
            (
                path,
                (
                    &file.contents[..],
                    file.mode & 0o111 == MODE_EXECUTABLE & 0o111,
                ),
            )
        })
        .collect();
    planned.insert(MANIFEST_FILE_NAME, (manifest.as_bytes(), false));
    let mut comparison = ArtifactComparison::default();
    for (path, (contents, executable)) in &planned {
        match found.get(*path) {
            None => comparison.added.push((*path).to_owned()),
            Some(file) => {
                if file.contents.as_deref() != Some(*contents) || file.executable != *executable {
                    comparison.changed.push((*path).to_owned());
                }
            }
        }
    }
    comparison.removed = found
        .keys()
        .filter(|path| !planned.contains_key(path.as_str()))
        .cloned()
        .collect();
    let before = found
        .get(MANIFEST_FILE_NAME)
        .and_then(|file| file.contents.as_deref())
        .and_then(|bytes| serde_json::from_slice::<Value>(bytes).ok())
        .unwrap_or(Value::Null);
    // The planned manifest's routes carry their schemas in its text alone.
    let after: Value = serde_json::from_str(&manifest).map_err(|source| EmitError::Serialize {
        what: "the manifest",
        source,
    })?;
    comparison.routes = changes(&route_contracts(&before), &route_contracts(&after));
    comparison.hooks = changes(&hook_contracts(&before), &hook_contracts(&after));
    Ok(comparison)
}

/// Every entry under `dir`, by `/`-separated path relative to `root`; symlinks are not followed.
fn walk(root: &Path, dir: &Path, found: &mut BTreeMap<String, FoundFile>) -> Result<(), EmitError> {
    let metadata = std::fs::symlink_metadata(dir).map_err(EmitError::io("read", dir))?;
    if !metadata.is_dir() {
        // The output is a file (or a link): it holds no artifact file at all, and the check
        // says so by listing every planned file as added.
        return Ok(());
    }
    let entries = std::fs::read_dir(dir).map_err(EmitError::io("read the directory", dir))?;
    for entry in entries {
        let entry = entry.map_err(EmitError::io("read the directory", dir))?;
        let path = entry.path();
        let metadata = std::fs::symlink_metadata(&path).map_err(EmitError::io("read", &path))?;
        if metadata.is_dir() {
            walk(root, &path, found)?;
            continue;
        }
        let relative = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .components()
            .map(|part| part.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        let contents = if metadata.is_file() {
            Some(std::fs::read(&path).map_err(EmitError::io("read", &path))?)
        } else {
            None
        };
        found.insert(
            relative,
            FoundFile {
                contents,
                executable: is_executable(&metadata),
            },
        );
    }
    Ok(())
}

#[cfg(unix)]
fn is_executable(metadata: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    metadata.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn is_executable(_metadata: &std::fs::Metadata) -> bool {
    false
}

/// A manifest's routes by id.
fn route_contracts(manifest: &Value) -> BTreeMap<String, &Value> {
    manifest
        .get("routes")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|route| Some((route.get("id")?.as_str()?.to_owned(), route)))
        .collect()
}

/// A manifest's hook bindings by `<host> <native event>`, with the canonical event added when
/// one host binds a native event for more than one (the matcher is part of the contract, not
/// of the name, so a changed matcher reads as a changed binding).
fn hook_contracts(manifest: &Value) -> BTreeMap<String, &Value> {
    let mut contracts = BTreeMap::new();
    let Some(hosts) = manifest.get("hooks").and_then(Value::as_object) else {
        return contracts;
    };
    for (host, bindings) in hosts {
        let bindings: Vec<&Value> = bindings.as_array().into_iter().flatten().collect();
        let field = |binding: &Value, name: &str| {
            binding
                .get(name)
                .and_then(Value::as_str)
                .unwrap_or("?")
                .to_owned()
        };
        for binding in &bindings {
            let native = field(binding, "nativeEvent");
            let shared = bindings
                .iter()
                .filter(|other| field(other, "nativeEvent") == native)
                .count()
                > 1;
            let id = if shared {
                format!("{host} {native} {}", field(binding, "event"))
            } else {
                format!("{host} {native}")
            };
            contracts.insert(id, *binding);
        }
    }
    contracts
}

fn changes(
    before: &BTreeMap<String, &Value>,
    after: &BTreeMap<String, &Value>,
) -> Vec<ContractChange> {
    let ids: BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    ids.into_iter()
        .filter_map(|id| {
            let change = match (before.get(id), after.get(id)) {
                (None, Some(_)) => Change::Added,
                (Some(_), None) => Change::Removed,
                (Some(old), Some(new)) if old != new => Change::Changed,
                _ => return None,
            };
            Some(ContractChange {
                id: id.clone(),
                change,
            })
        })
        .collect()
}

/// The readable summary `abgen build --check` prints when the directory differs.
pub fn render_comparison(out_dir: &Path, comparison: &ArtifactComparison) -> String {
    let mut text = format!(
        "{} differs from what the sources produce: {} added, {} removed, {} changed\n",
        out_dir.display(),
        comparison.added.len(),
        comparison.removed.len(),
        comparison.changed.len()
    );
    for (label, paths) in [
        ("added", &comparison.added),
        ("removed", &comparison.removed),
        ("changed", &comparison.changed),
    ] {
        for path in paths {
            text.push_str(&format!("  {label:<8} {path}\n"));
        }
    }
    for (what, contracts) in [("route", &comparison.routes), ("hook", &comparison.hooks)] {
        for contract in contracts {
            text.push_str(&format!(
                "  {what} {}: {}\n",
                contract.change.as_str(),
                contract.id
            ));
        }
    }
    text.push_str(&format!(
        "run `abgen build --out {}` to update it\n",
        out_dir.display()
    ));
    text
}
