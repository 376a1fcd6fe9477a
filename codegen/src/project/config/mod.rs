//! The project config: find `agent-bundle.config.{ts,mts,js,mjs,json}`, read it statically,
//! fill gaps from package.json, and type it.
//!
//! Entry call: [`load_config`]. Invariant: the config is read, never executed; every problem is
//! a diagnostic, and a typed config (with defaults where values were rejected) is always
//! returned.

mod model;
#[cfg(test)]
mod tests;
mod typing;
mod web;

use std::collections::BTreeMap;
use std::path::Path;

pub use model::{
    AppSourceMap, Author, DeclaredApp, DeclaredServer, McpCommands, PluginMetadata, ProjectConfig,
    ServerMode, Target, locate,
};
pub use typing::{ConfigInput, PackageIdentity, escape_pointer, type_config};

use super::reader::{ReadFailure, SourceReader, read_text};
use crate::diagnostics::{Code, Diagnostic, Location, Span};
use crate::extract::extract_config_module;

/// Config file names, in the order that decides which one is read when several exist.
pub const CONFIG_FILE_NAMES: [&str; 5] = [
    "agent-bundle.config.ts",
    "agent-bundle.config.mts",
    "agent-bundle.config.js",
    "agent-bundle.config.mjs",
    "agent-bundle.config.json",
];

/// The output of [`load_config`].
#[derive(Debug)]
pub struct ConfigReturn {
    /// The typed config; `plugin.name` is empty exactly when AB4000 or AB5305 says why.
    pub config: ProjectConfig,
    pub diagnostics: Vec<Diagnostic>,
    /// The texts read (config file, package.json), by project-relative path, for rendering.
    pub texts: BTreeMap<String, String>,
    /// The config file found (read, or there but unreadable); `None` without one.
    pub file: Option<&'static str>,
}

/// Reads and types the config of the project at `root`; `target_override` (from `--target`)
/// replaces the config's `targets`.
pub fn load_config(
    root: &Path,
    reader: &dyn SourceReader,
    target_override: Option<&[String]>,
) -> ConfigReturn {
    let mut diagnostics = Vec::new();
    let mut texts = BTreeMap::new();
    let mut file = None;
    let mut extracted = None;
    for name in CONFIG_FILE_NAMES {
        let text = match read_text(reader, &root.join(name), name) {
            Ok(text) => text,
            Err(ReadFailure::Missing) => continue,
            Err(ReadFailure::Rejected(diagnostic)) => {
                diagnostics.push(*diagnostic);
                file.get_or_insert(name);
                continue;
            }
        };
        if let Some(first) = file {
            diagnostics.push(
                Diagnostic::new(
                    Code::AB5306,
                    format!("`{name}` and `{first}` are both config files; `{first}` is read"),
                    format!("keep one config file and delete `{name}`"),
                )
                .at(Location::file(name)),
            );
        } else {
            file = Some(name);
            let module = extract_config_module(name, &text);
            diagnostics.extend(module.diagnostics);
            extracted = Some((module.value, module.locations));
        }
        texts.insert(name.to_owned(), text);
    }
    let package = read_package_json(root, reader, &mut diagnostics, &mut texts);
    let no_locations = BTreeMap::new();
    let (value, locations) = match &extracted {
        Some((value, locations)) => (value.as_ref(), locations),
        None => (None, &no_locations),
    };
    let input = ConfigInput {
        value,
        locations,
        file,
        package: &package,
        target_override,
    };
    let (config, typing) = type_config(&input);
    diagnostics.extend(typing);
    if let Some(value) = value {
        diagnostics.extend(super::support::check_config_keys(value, locations, file));
    }
    ConfigReturn {
        config,
        diagnostics,
        texts,
        file,
    }
}

/// `name` and `version` of `<root>/package.json`. No file is fine; an unusable one is AB4011.
fn read_package_json(
    root: &Path,
    reader: &dyn SourceReader,
    diagnostics: &mut Vec<Diagnostic>,
    texts: &mut BTreeMap<String, String>,
) -> PackageIdentity {
    const FILE: &str = "package.json";
    let text = match read_text(reader, &root.join(FILE), FILE) {
        Ok(text) => text,
        Err(ReadFailure::Missing) => return PackageIdentity::default(),
        Err(ReadFailure::Rejected(diagnostic)) => {
            diagnostics.push(package_json_unusable(&diagnostic.message));
            return PackageIdentity::default();
        }
    };
    let parsed = serde_json::from_str::<serde_json::Value>(&text);
    texts.insert(FILE.to_owned(), text);
    let fields = match parsed {
        Ok(serde_json::Value::Object(fields)) => fields,
        Ok(_) => {
            diagnostics.push(package_json_unusable("package.json is not a JSON object"));
            return PackageIdentity::default();
        }
        Err(error) => {
            let reason = format!("package.json does not parse: {error}");
            let location = texts.get(FILE).map(|text| {
                let offset = offset_of(text, error.line(), error.column());
                Location::span(FILE, text, Span::new(offset, offset))
            });
            let diagnostic = package_json_unusable(&reason);
            diagnostics.push(match location {
                Some(location) => diagnostic.at(location),
                None => diagnostic,
            });
            return PackageIdentity::default();
        }
    };
    let text_field = |key: &str| {
        fields
            .get(key)
            .and_then(|v| v.as_str())
            .map(str::trim)
            .filter(|v| !v.is_empty())
    };
    PackageIdentity {
        // A scoped npm name (`@acme/notes`) names the plugin by its last part (`notes`).
        name: text_field("name").map(|name| name.rsplit('/').next().unwrap_or(name).to_owned()),
        version: text_field("version").map(str::to_owned),
    }
}

fn package_json_unusable(reason: &str) -> Diagnostic {
    Diagnostic::new(
        Code::AB4011,
        format!("{reason}; its `name` and `version` are not used"),
        "fix package.json, or set `plugin.name` and `plugin.version` in the config",
    )
    .at(Location::file("package.json"))
}

/// The byte offset of a 1-based line and column as serde_json reports them (column 0 means
/// the end of the previous line).
fn offset_of(text: &str, line: usize, column: usize) -> u32 {
    let line_start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    let offset = if column == 0 {
        line_start.saturating_sub(1)
    } else {
        line_start + column - 1
    };
    u32::try_from(offset.min(text.len())).unwrap_or(u32::MAX)
}
