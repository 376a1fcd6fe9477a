//! Renders the worker entry: one lazy `import()` per route, provider and layout module, handed to
//! `startWorker` of `@agent-bundle/runtime/worker`. Entry: [`render_worker_entry`].

use std::collections::BTreeMap;

use minijinja::Environment;
use serde::Serialize;

use super::error::BundleError;

const TEMPLATE: &str = include_str!("../../../templates/worker-entry.mjs.j2");

/// What the entry imports.
#[derive(Clone, Debug, Default)]
pub struct WorkerEntry {
    pub plugin: String,
    /// The worker protocol version the entry asks for.
    pub protocol: u32,
    pub routes: Vec<BundleModule>,
    pub providers: Vec<BundleModule>,
    /// Keyed by layout id (`layout:root`, `layout:mcp:<server>`).
    pub layouts: Vec<BundleModule>,
    /// Each generated MCP server's declared `env`, by server id: what the manifest's `servers`
    /// say, compiled in so that a worker's start reads nothing of the manifest but its digest.
    pub declared_envs: BTreeMap<String, BTreeMap<String, String>>,
}

/// One lazily imported module.
#[derive(Clone, Debug)]
pub struct BundleModule {
    /// The route id (`tool:library/search_books`), the provider key (`catalog`) or the layout id
    /// (`layout:root`).
    pub key: String,
    /// The module's path relative to the project root, `/`-separated (`src/…`).
    pub source: String,
}

/// A module as the template reads it: key and specifier as JavaScript (JSON) string literals.
#[derive(Serialize)]
struct TemplateModule {
    key: String,
    specifier: String,
}

/// The entry's JavaScript source, modules sorted by key.
pub fn render_worker_entry(entry: &WorkerEntry) -> Result<String, BundleError> {
    let mut environment = Environment::new();
    environment.add_template("worker-entry.mjs", TEMPLATE)?;
    let context = minijinja::context! {
        plugin => entry.plugin,
        protocol => entry.protocol,
        routes => template_modules(&entry.routes),
        providers => template_modules(&entry.providers),
        layouts => template_modules(&entry.layouts),
        // A string for `JSON.parse`: in an object literal, a server or variable named
        // `__proto__` would set the object's prototype instead.
        declared_envs => string_literal(&declared_envs_json(&entry.declared_envs)),
    };
    let mut source = environment
        .get_template("worker-entry.mjs")?
        .render(context)?;
    source.push('\n');
    Ok(source)
}

/// Modules as the template reads them, sorted by key; specifiers are project-relative.
fn template_modules(list: &[BundleModule]) -> Vec<TemplateModule> {
    let mut sorted: Vec<&BundleModule> = list.iter().collect();
    sorted.sort_by(|a, b| a.key.cmp(&b.key));
    sorted
        .into_iter()
        .map(|module| TemplateModule {
            key: string_literal(&module.key),
            specifier: string_literal(&format!("./{}", module.source)),
        })
        .collect()
}

/// `declared_envs` as one JSON object of objects of strings.
fn declared_envs_json(declared_envs: &BTreeMap<String, BTreeMap<String, String>>) -> String {
    let servers: serde_json::Map<String, serde_json::Value> = declared_envs
        .iter()
        .map(|(server, env)| {
            let env = env
                .iter()
                .map(|(name, value)| (name.clone(), serde_json::Value::String(value.clone())))
                .collect();
            (server.clone(), serde_json::Value::Object(env))
        })
        .collect();
    serde_json::Value::Object(servers).to_string()
}

fn string_literal(text: &str) -> String {
    serde_json::Value::String(text.to_owned()).to_string()
}
