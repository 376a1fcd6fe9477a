//! Apps declared in config (`mcp.servers.<id>.apps.<name>`, seed 002 §MCP Apps): an App whose
//! entry may live anywhere in the project, with its own template and target restriction. At
//! check its entry is loaded as an App module of its server ([`declared_app_modules`]) and given
//! the declaration's `resourceUri` and `_meta` as its config ([`apply_app_declarations`]), so from
//! there on it is an App route like a conventional one: the same graph node, manifest route,
//! served `ui://` resource and compiled document.

use std::path::Path;

use serde_json::{Map, Value};

use crate::diagnostics::{Code, Diagnostic};
use crate::project::config::DeclaredApp;
use crate::project::{LoadedModule, ModuleKind, ProjectConfig, SourceModule, Target};

/// The entry module of every declared App of a server abgen generates, to load beside the
/// discovered modules; AB4325 (the name of an App route of the server), AB4328 (no entry file)
/// and AB4332 (no template file) for the rest.
pub fn declared_app_modules(
    root: &Path,
    config: &ProjectConfig,
    discovered: &[LoadedModule],
) -> (Vec<SourceModule>, Vec<Diagnostic>) {
    let mut modules = Vec::new();
    let mut diagnostics = Vec::new();
    for (server, name, app) in generated_apps(config) {
        let report = |code: Code, key: &str, message: String, recovery: &str| {
            let diagnostic = Diagnostic::new(code, message, recovery);
            match config.location(&format!("{}{key}", app.pointer)) {
                Some(location) => diagnostic.at(location),
                None => diagnostic,
            }
        };
        let kind = ModuleKind::App {
            server: server.to_owned(),
            name: name.to_owned(),
        };
        if let Some(route) = discovered.iter().find(|module| module.source.kind == kind) {
            diagnostics.push(report(
                Code::AB4325,
                "",
                format!(
                    "the App `{name}` declared on server `{server}` has the name of the App route `{}`",
                    route.source.path
                ),
                "rename one of them: an App's name is its document `mcp-apps/<name>.html`",
            ));
            continue;
        }
        if !root.join(&app.entry).is_file() {
            diagnostics.push(report(
                Code::AB4328,
                "/entry",
                format!("the entry `{}` of App `{name}` does not exist", app.entry),
                "create the module, or fix the path (it is relative to the project root)",
            ));
            continue;
        }
        if let Some(template) = &app.template
            && !root.join(template).is_file()
        {
            diagnostics.push(report(
                Code::AB4332,
                "/template",
                format!("the template `{template}` of App `{name}` does not exist"),
                "create the HTML file, or fix the path (it is relative to the project root)",
            ));
            continue;
        }
        modules.push(SourceModule {
            path: app.entry.clone(),
            absolute: root.join(&app.entry),
            kind,
        });
    }
    (modules, diagnostics)
}

/// Gives every loaded declared App its declaration as its config: `resourceUri` (located at the
/// declaration, for AB4829), `_meta`, and `excludeClients` for the hosts among its server's
/// targets that the App leaves out; drops the AB4812 its entry reported for having no `config`.
pub fn apply_app_declarations(
    modules: &mut [LoadedModule],
    config: &ProjectConfig,
    diagnostics: &mut Vec<Diagnostic>,
) {
    for (server, name, app) in generated_apps(config) {
        let Some(module) = modules.iter_mut().find(|module| {
            module.source.path == app.entry
                && module.source.kind
                    == ModuleKind::App {
                        server: server.to_owned(),
                        name: name.to_owned(),
                    }
        }) else {
            continue;
        };
        let extracted = std::sync::Arc::make_mut(&mut module.extracted);
        extracted.config = std::sync::Arc::new(declared_config(config, server, app));
        extracted.config_locations.clear();
        if let Some(location) = config.location(&format!("{}/resourceUri", app.pointer)) {
            extracted
                .config_locations
                .insert("/resourceUri".to_owned(), location);
        }
        diagnostics.retain(|diagnostic| {
            diagnostic.code != Code::AB4812
                || diagnostic
                    .location
                    .as_ref()
                    .is_none_or(|location| location.file != app.entry)
        });
    }
}

/// The declared App `name` of `server`, when one is (an App route's name is its file's).
pub fn declared_app<'c>(
    config: &'c ProjectConfig,
    server: &str,
    name: &str,
) -> Option<&'c DeclaredApp> {
    config.mcp_servers.get(server)?.apps.get(name)
}

/// The route config a declaration stands for.
fn declared_config(config: &ProjectConfig, server: &str, app: &DeclaredApp) -> Map<String, Value> {
    let mut route = Map::new();
    route.insert("resourceUri".into(), app.resource_uri.clone().into());
    if let Some(meta) = &app.meta {
        route.insert("_meta".into(), Value::Object(meta.clone()));
    }
    if let Some(targets) = &app.targets {
        let shipped = config
            .mcp_servers
            .get(server)
            .and_then(|declared| declared.targets.as_deref())
            .unwrap_or(&config.targets);
        // A host target the App leaves out: its clients do not list or read the App.
        let hidden: Vec<Value> = shipped
            .iter()
            .filter(|target| **target != Target::Portable && !targets.contains(target))
            .map(|target| Value::from(target.as_str()))
            .collect();
        if !hidden.is_empty() {
            route.insert("excludeClients".into(), Value::Array(hidden));
        }
    }
    route
}

/// Every declared App of a server abgen generates: `(server, name, declaration)`. Apps of a
/// prebuilt payload are its own to serve (seed 002), and the other launch kinds are AB4322.
fn generated_apps(config: &ProjectConfig) -> impl Iterator<Item = (&str, &str, &DeclaredApp)> {
    config
        .mcp_servers
        .iter()
        .filter(|(_, server)| server.entry_claim().is_none())
        .flat_map(|(id, server)| {
            server
                .apps
                .iter()
                .map(move |(name, app)| (id.as_str(), name.as_str(), app))
        })
}
