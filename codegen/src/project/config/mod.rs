//! The project config: find `agent-bundle.config.{ts,mts,js,mjs,json}`, read it statically,
//! fill gaps from package.json, and type it.
//!
//! Entry call: [`load_config`]. Invariant: the config is read, never executed; every problem is
//! a diagnostic, and a config is returned whenever the plugin has a name.

mod model;
mod typing;

use std::collections::BTreeMap;
use std::path::Path;

pub use model::{Author, DeclaredServer, PluginMetadata, ProjectConfig, ServerMode, Target};
pub use typing::{ConfigInput, PackageIdentity, escape_pointer, type_config};

use super::reader::{ReadFailure, SourceReader, read_text};
use crate::diagnostics::{Code, Diagnostic, Location};
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
#[derive(Debug, Default)]
pub struct ConfigReturn {
    /// `None` exactly when the plugin has no name (AB4000 or AB5305 says why).
    pub config: Option<ProjectConfig>,
    pub diagnostics: Vec<Diagnostic>,
    /// The texts read (config file, package.json), by project-relative path, for rendering.
    pub texts: BTreeMap<String, String>,
}

/// Reads and types the config of the project at `root`; `target_override` (from `--target`)
/// replaces the config's `targets`.
pub fn load_config(
    root: &Path,
    reader: &dyn SourceReader,
    target_override: Option<&[String]>,
) -> ConfigReturn {
    let mut output = ConfigReturn::default();
    let mut file = None;
    let mut extracted = None;
    for name in CONFIG_FILE_NAMES {
        let text = match read_text(reader, &root.join(name), name) {
            Ok(text) => text,
            Err(ReadFailure::Missing) => continue,
            Err(ReadFailure::Rejected(diagnostic)) => {
                output.diagnostics.push(diagnostic);
                file.get_or_insert(name);
                continue;
            }
        };
        if let Some(first) = file {
            output.diagnostics.push(
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
            output.diagnostics.extend(module.diagnostics);
            extracted = Some((module.value, module.locations));
        }
        output.texts.insert(name.to_owned(), text);
    }
    let package = read_package_json(root, reader, &mut output);
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
    let (config, diagnostics) = type_config(&input);
    output.diagnostics.extend(diagnostics);
    output.config = (!config.plugin.name.is_empty()).then_some(config);
    output
}

/// `name` and `version` of `<root>/package.json`. No file is fine; an unusable one is AB4011.
fn read_package_json(
    root: &Path,
    reader: &dyn SourceReader,
    output: &mut ConfigReturn,
) -> PackageIdentity {
    const FILE: &str = "package.json";
    let text = match read_text(reader, &root.join(FILE), FILE) {
        Ok(text) => text,
        Err(ReadFailure::Missing) => return PackageIdentity::default(),
        Err(ReadFailure::Rejected(diagnostic)) => {
            output
                .diagnostics
                .push(package_json_unusable(&diagnostic.message));
            return PackageIdentity::default();
        }
    };
    let parsed = serde_json::from_str::<serde_json::Value>(&text);
    output.texts.insert(FILE.to_owned(), text);
    let fields = match parsed {
        Ok(serde_json::Value::Object(fields)) => fields,
        Ok(_) => {
            output
                .diagnostics
                .push(package_json_unusable("package.json is not a JSON object"));
            return PackageIdentity::default();
        }
        Err(error) => {
            output.diagnostics.push(package_json_unusable(&format!(
                "package.json does not parse: {error}"
            )));
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
