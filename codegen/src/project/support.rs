//! What abgen builds of the config and of the entry conventions, and the diagnostics for the
//! rest: a key the schema does not know (AB5352), a key abgen does not build yet (AB5350), a
//! conventional file it does not build yet (AB5351, AB5354) or that no convention reads
//! (AB4736, AB5353). Entry calls: [`check_config_keys`] and [`check_conventional_paths`].
//!
//! The config's shape is `schemas/agent-bundle-config.schema.json`; which of its keys and
//! conventions abgen builds is `support.toml`, beside this file. Both are embedded, and the
//! config-walk test keeps them equal: every key and pattern of the schema has a row, and every
//! supported row an effect in the artifact. So nothing a project declares is dropped without a
//! word.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;

use globset::{Glob, GlobBuilder, GlobMatcher};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::config::{escape_pointer, locate};
use crate::diagnostics::{Code, Diagnostic, Location};

/// The config's JSON Schema.
pub const CONFIG_SCHEMA: &str = include_str!("../../../schemas/agent-bundle-config.schema.json");
/// abgen's support table.
pub const SUPPORT_TABLE: &str = include_str!("support.toml");

/// The support table as data.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SupportTable {
    pub key: Vec<KeyRow>,
    pub path: Vec<PathRow>,
}

/// One config key by dotted path (`mcp.servers.*.env`).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyRow {
    pub path: String,
    pub support: KeySupport,
    /// A valid value of the key, as JSON text (deferred rows).
    #[serde(default)]
    pub example: Option<String>,
    /// Why the key is not built yet (deferred rows).
    #[serde(default)]
    pub why: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KeySupport {
    Supported,
    Deferred,
}

/// One convention by its schema pattern.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PathRow {
    pub pattern: String,
    /// `supported` for conventions abgen discovers; else `code` says how a file is reported.
    #[serde(default)]
    pub support: Option<String>,
    #[serde(default)]
    pub code: Option<String>,
    /// A project path the convention matches, which the config-walk test creates.
    pub example: String,
    #[serde(default)]
    pub why: Option<String>,
}

impl PathRow {
    pub fn is_supported(&self) -> bool {
        self.support.as_deref() == Some("supported")
    }

    /// The code a matching file is reported with (`None` for supported conventions).
    pub fn code(&self) -> Option<Code> {
        let name = self.code.as_deref()?;
        Code::ALL.iter().copied().find(|code| code.as_str() == name)
    }
}

/// One `x-conventions` entry of the schema.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Convention {
    pub pattern: String,
    pub meaning: String,
    #[serde(default)]
    pub opt_out: Option<String>,
}

/// The parsed schema, support table and conventions (embedded, checked by tests: a parse
/// failure here is a defect of abgen itself).
pub struct Support {
    pub schema: Value,
    pub table: SupportTable,
    pub conventions: Vec<Convention>,
    keys: BTreeMap<String, KeyRow>,
    /// Reported patterns (not supported), compiled, in table order.
    reported: Vec<(PathRow, GlobMatcher)>,
}

pub fn support() -> &'static Support {
    static SUPPORT: OnceLock<Support> = OnceLock::new();
    SUPPORT.get_or_init(|| {
        let schema: Value = serde_json::from_str(CONFIG_SCHEMA)
            .unwrap_or_else(|error| panic!("the config schema does not parse: {error}"));
        let table: SupportTable = toml::from_str(SUPPORT_TABLE)
            .unwrap_or_else(|error| panic!("support.toml does not parse: {error}"));
        let conventions: Vec<Convention> = serde_json::from_value(schema["x-conventions"].clone())
            .unwrap_or_else(|error| panic!("the schema's x-conventions: {error}"));
        let keys = table
            .key
            .iter()
            .map(|row| (row.path.clone(), row.clone()))
            .collect();
        let reported = table
            .path
            .iter()
            .filter(|row| !row.is_supported())
            .map(|row| (row.clone(), compile_pattern(&row.pattern)))
            .collect();
        Support {
            schema,
            table,
            conventions,
            keys,
            reported,
        }
    })
}

/// A convention pattern as a matcher: `*` stays inside one path segment, `**` spans segments.
pub fn compile_pattern(pattern: &str) -> GlobMatcher {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map(|glob: Glob| glob.compile_matcher())
        .unwrap_or_else(|error| panic!("convention pattern `{pattern}`: {error}"))
}

impl Support {
    pub fn key(&self, path: &str) -> Option<&KeyRow> {
        self.keys.get(path)
    }

    pub fn convention(&self, pattern: &str) -> Option<&Convention> {
        self.conventions.iter().find(|c| c.pattern == pattern)
    }

    /// `#/$defs/x` resolved; any other schema as it is.
    fn resolve<'s>(&'s self, schema: &'s Value) -> &'s Value {
        match schema.get("$ref").and_then(Value::as_str) {
            Some(reference) => reference
                .strip_prefix("#/$defs/")
                .and_then(|name| self.schema["$defs"].get(name))
                .unwrap_or(schema),
            None => schema,
        }
    }

    /// The object form of `schema` (itself, or its `oneOf` branch that has properties).
    fn object_form<'s>(&'s self, schema: &'s Value) -> Option<&'s Value> {
        let schema = self.resolve(schema);
        if schema.get("properties").is_some() || schema.get("additionalProperties").is_some() {
            return Some(schema);
        }
        schema.get("oneOf")?.as_array()?.iter().find_map(|branch| {
            let branch = self.resolve(branch);
            (branch.get("properties").is_some()
                || branch
                    .get("additionalProperties")
                    .is_some_and(Value::is_object))
            .then_some(branch)
        })
    }

    /// Every key path the schema declares (`plugin.author.email`, `mcp.servers.*.env`), in
    /// schema order; a map's entries are `*`.
    pub fn schema_key_paths(&self) -> Vec<String> {
        let mut paths = Vec::new();
        self.collect_paths(&self.schema, "", &mut paths, 0);
        paths
    }

    fn collect_paths(&self, schema: &Value, prefix: &str, paths: &mut Vec<String>, depth: usize) {
        // The schema is abgen's own and shallow; the bound only guards against a `$ref` cycle.
        if depth > 16 {
            return;
        }
        let Some(object) = self.object_form(schema) else {
            return;
        };
        let join = |key: &str| {
            if prefix.is_empty() {
                key.to_owned()
            } else {
                format!("{prefix}.{key}")
            }
        };
        if let Some(Value::Object(properties)) = object.get("properties") {
            for (key, child) in properties {
                let path = join(key);
                paths.push(path.clone());
                self.collect_paths(child, &path, paths, depth + 1);
            }
        }
        if let Some(child @ Value::Object(_)) = object.get("additionalProperties") {
            let path = join("*");
            if self.object_form(child).is_some() {
                paths.push(path.clone());
                self.collect_paths(child, &path, paths, depth + 1);
            }
        }
    }
}

/// AB5352 for every key the schema does not know, AB5350 for every key abgen does not build
/// yet; `locations` are the config's value locations by JSON Pointer, `file` the config file.
pub fn check_config_keys(
    value: &Map<String, Value>,
    locations: &BTreeMap<String, Location>,
    file: Option<&str>,
) -> Vec<Diagnostic> {
    let support = support();
    let mut walk = KeyWalk {
        support,
        locations,
        file,
        diagnostics: Vec::new(),
    };
    walk.object(value, &support.schema, "", "", 0);
    walk.diagnostics
}

struct KeyWalk<'a> {
    support: &'a Support,
    locations: &'a BTreeMap<String, Location>,
    file: Option<&'a str>,
    diagnostics: Vec<Diagnostic>,
}

impl KeyWalk<'_> {
    /// `value` is at `pointer` (JSON Pointer) and `path` (dotted, maps as `*`) under `schema`.
    fn object(
        &mut self,
        value: &Map<String, Value>,
        schema: &Value,
        pointer: &str,
        path: &str,
        depth: usize,
    ) {
        if depth > 16 {
            return;
        }
        let Some(object) = self.support.object_form(schema) else {
            return;
        };
        let properties = object.get("properties").and_then(Value::as_object);
        for (key, child) in value {
            let child_pointer = format!("{pointer}/{}", escape_pointer(key));
            let (child_schema, child_path) = match properties.and_then(|p| p.get(key)) {
                Some(schema) => (schema, join(path, key)),
                None => match object.get("additionalProperties") {
                    Some(Value::Bool(false)) => {
                        self.unknown(&child_pointer, &join(path, key), properties);
                        continue;
                    }
                    Some(schema @ Value::Object(_)) => (schema, join(path, "*")),
                    // A free-form object (`_meta`, host extensions) has no keys to check.
                    _ => continue,
                },
            };
            match self.support.key(&child_path) {
                Some(row) if row.support == KeySupport::Deferred => {
                    self.deferred(&child_pointer, row);
                    continue;
                }
                // A map entry has no row of its own when its values are plain (`env`).
                _ => {}
            }
            if let Value::Object(child_value) = child {
                self.object(
                    child_value,
                    child_schema,
                    &child_pointer,
                    &child_path,
                    depth + 1,
                );
            }
        }
    }

    fn unknown(&mut self, pointer: &str, path: &str, known: Option<&Map<String, Value>>) {
        let known: Vec<String> = known
            .map(|known| known.keys().map(|key| format!("`{key}`")).collect())
            .unwrap_or_default();
        let recovery = if known.is_empty() {
            "remove it".to_owned()
        } else {
            format!("remove it, or use one of {}", known.join(", "))
        };
        self.push(
            Diagnostic::new(
                Code::AB5352,
                format!("`{}` is not a key of the config", dotted(pointer)),
                recovery,
            )
            .with_note(format!(
                "`{path}` would be ignored; the config's keys are in schemas/agent-bundle-config.schema.json"
            )),
            pointer,
        );
    }

    fn deferred(&mut self, pointer: &str, row: &KeyRow) {
        let why = row.why.as_deref().unwrap_or("it is not built yet");
        self.push(
            Diagnostic::new(
                Code::AB5350,
                format!("`{}` is not supported by abgen yet: {why}", dotted(pointer)),
                format!(
                    "remove `{}` from the config; abgen would build the plugin without it",
                    dotted(pointer)
                ),
            ),
            pointer,
        );
    }

    fn push(&mut self, diagnostic: Diagnostic, pointer: &str) {
        self.diagnostics
            .push(match locate(self.locations, self.file, pointer) {
                Some(location) => diagnostic.at(location),
                None => diagnostic,
            });
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// `/mcp/servers/docs/env` → `mcp.servers.docs.env`, for messages.
fn dotted(pointer: &str) -> String {
    pointer
        .trim_start_matches('/')
        .split('/')
        .map(|segment| segment.replace("~1", "/").replace("~0", "~"))
        .collect::<Vec<_>>()
        .join(".")
}

/// Every file of the project at `root` that a convention abgen does not build matches, as one
/// diagnostic each (in path order). Walks only the top-level names the reported patterns
/// start with, never `node_modules`, and honours the `_`/`.` opt-out below the top level.
pub fn check_conventional_paths(root: &Path) -> Vec<Diagnostic> {
    let support = support();
    let mut paths = Vec::new();
    let tops: Vec<&str> = support
        .reported
        .iter()
        .filter_map(|(row, _)| row.pattern.split('/').next())
        .collect();
    for top in tops
        .iter()
        .copied()
        .collect::<std::collections::BTreeSet<_>>()
    {
        let start = root.join(top);
        // A symlink is discovery's and the skills' concern; it is not followed here either.
        let Ok(metadata) = std::fs::symlink_metadata(&start) else {
            continue;
        };
        if metadata.is_file() {
            paths.push(top.to_owned());
        } else if metadata.is_dir() {
            collect_files(&start, top, &mut paths, 0);
        }
    }
    paths.sort();
    let mut diagnostics = Vec::new();
    // A file discovery reads as a module is the route graph's to judge.
    for path in paths
        .into_iter()
        .filter(|path| super::classify(path).is_none())
    {
        let Some((row, _)) = support
            .reported
            .iter()
            .find(|(_, matcher)| matcher.is_match(&path))
        else {
            continue;
        };
        if let Some(diagnostic) = reported_path(support, row, &path) {
            diagnostics.push(diagnostic);
        }
    }
    diagnostics
}

/// Regular files under `dir` (shown as `shown`), skipping opted-out names; bounded depth.
fn collect_files(dir: &Path, shown: &str, paths: &mut Vec<String>, depth: usize) {
    if depth > 32 {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name().to_string_lossy().into_owned();
        let skipped = name.starts_with('_') || name.starts_with('.') || name.ends_with(".d.ts");
        if skipped || name == "node_modules" {
            continue;
        }
        let path = format!("{shown}/{name}");
        match entry.file_type() {
            Ok(kind) if kind.is_dir() => collect_files(&entry.path(), &path, paths, depth + 1),
            Ok(kind) if kind.is_file() => paths.push(path),
            _ => {}
        }
    }
}

fn reported_path(support: &Support, row: &PathRow, path: &str) -> Option<Diagnostic> {
    let code = row.code()?;
    let convention = support.convention(&row.pattern);
    let meaning = convention.map_or("a convention", |c| c.meaning.as_str());
    let why = row.why.as_deref().unwrap_or("it is not built yet");
    let opt_out = convention.and_then(|c| c.opt_out.as_deref());
    let (message, recovery) = match code {
        Code::AB5354 => (
            format!("`{path}` is the developer's environment file: {why}"),
            "put the operator's `.env` in the installed plugin's root, or give the variables to the host's environment; rename this file with a leading `_` to silence this".to_owned(),
        ),
        Code::AB5351 => (
            format!("`{path}` is not built by abgen yet: {why}"),
            format!(
                "remove `{path}`, or rename it with a leading `_` to keep it out of the build{}",
                opt_out
                    .map(|opt_out| format!(" (agent-bundle's opt-out: {opt_out})"))
                    .unwrap_or_default()
            ),
        ),
        _ => (
            format!("`{path}` is read by no convention: {why}"),
            opt_out.map(str::to_owned).unwrap_or_else(|| {
                format!(
                    "move `{path}` where a convention reads it, or rename it with a leading `_`"
                )
            }),
        ),
    };
    let diagnostic = Diagnostic::new(code, message, recovery).at(Location::file(path));
    Some(match code {
        Code::AB5351 | Code::AB5354 => {
            diagnostic.with_note(format!("by convention it is {meaning}"))
        }
        _ => diagnostic,
    })
}

#[cfg(test)]
#[path = "support_tests.rs"]
mod tests;
