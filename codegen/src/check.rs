//! `check`: run every stage up to the route graph and collect diagnostics; writes nothing.
//!
//! Entry call: [`check_project`] (or [`check_project_with`] to read through another
//! [`SourceReader`]). Invariant: user errors never abort the check: every stage runs and the
//! return value holds all diagnostics, sorted, plus what each stage produced, so later stages
//! (schemas, build) reuse the extracted modules and source texts without reading or parsing
//! a file again.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use rayon::iter::ParallelBridge;

use crate::diagnostics::{self, Code, Diagnostic, Location};
use crate::extract::ExtractedModule;
use crate::graph::{RouteGraph, build_graph};
use crate::project::{
    ExtractionCache, FsReader, KeepTexts, LoadedModule, ProjectConfig, SourceModule, SourceReader,
    load_config, load_modules_from, load_modules_reusing, load_modules_then, read_released_again,
    walk_modules,
};
use crate::schema::{
    ImportedModules, RouteSchemas, TranslateOptions, TranslationCache, collect_translations,
    translate_in_task, translate_routes_reusing,
};

/// What to check.
#[derive(Clone, Debug, Default)]
pub struct CheckOptions {
    /// The project root (the folder holding `agent-bundle.config.*` and `src/`).
    pub root: PathBuf,
    /// `--target`: replaces the config's `targets` when set.
    pub targets: Option<Vec<String>>,
}

/// The result of a check: every stage's output plus all diagnostics.
#[derive(Debug, Default)]
pub struct CheckReturn {
    /// The typed config; `None` when the plugin has no name.
    pub config: Option<ProjectConfig>,
    /// The route graph; `None` exactly when `config` is.
    pub graph: Option<RouteGraph>,
    /// Every discovered module with its extraction, in path order. Its captured schema
    /// expressions are kept only for a check with a [`CheckCache`], which translates after the
    /// load; any other check translates each route in the task that extracted it and releases
    /// them there ([`crate::extract::extract_module_then`]).
    pub modules: Vec<LoadedModule>,
    /// The text of every file read (modules, config, package.json), by project-relative path;
    /// of the MCP routes, a check that keeps no schemas ([`check_project_diagnostics`]) holds
    /// only the texts of files its diagnostics point into.
    pub sources: BTreeMap<String, String>,
    /// Sorted by file, position, then code.
    pub diagnostics: Vec<Diagnostic>,
    /// Every tool's input and output schema, translated statically where abgen can.
    pub schemas: BTreeMap<String, Arc<RouteSchemas>>,
    /// Every skill under `src/skills/` whose SKILL.md is valid, sorted by name.
    pub skills: Vec<crate::emit::EmitSkill>,
}

impl CheckReturn {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Checks the project at `options.root`, reading from the file system.
pub fn check_project(options: &CheckOptions) -> CheckReturn {
    check_project_with(options, &FsReader)
}

/// Checks the project at `options.root`, reading every file through `reader`.
pub fn check_project_with(options: &CheckOptions, reader: &dyn SourceReader) -> CheckReturn {
    check_project_reusing(options, reader, None)
}

/// [`check_project`] for a caller that reads only the diagnostics (and the sources to render
/// them with), as `abgen check` does: every schema is translated and checked, none is kept
/// ([`CheckReturn::schemas`] is empty), so a route's translated schemas do not outlive the
/// task that extracts and translates it, and the next file reuses their memory.
pub fn check_project_diagnostics(options: &CheckOptions) -> CheckReturn {
    check_project_diagnostics_with(options, &FsReader)
}

/// [`check_project_diagnostics`], reading every file through `reader`.
pub fn check_project_diagnostics_with(
    options: &CheckOptions,
    reader: &dyn SourceReader,
) -> CheckReturn {
    check_stages(options, reader, None, true)
}

/// What one check keeps for the next check of the same project (a watch loop's rebuild): each
/// module's extraction, by its text and settled stamp, and each route's translated schemas, by
/// that extraction and the imports it followed.
#[derive(Debug, Default)]
pub struct CheckCache {
    pub extraction: ExtractionCache,
    pub translation: TranslationCache,
}

/// [`check_project_with`], reusing what `cache` kept of every module that did not change since
/// the cache last saw it (what a watch loop's rebuild does).
pub fn check_project_reusing(
    options: &CheckOptions,
    reader: &dyn SourceReader,
    cache: Option<&CheckCache>,
) -> CheckReturn {
    check_stages(options, reader, cache, false)
}

fn check_stages(
    options: &CheckOptions,
    reader: &dyn SourceReader,
    cache: Option<&CheckCache>,
    discard_schemas: bool,
) -> CheckReturn {
    let translation = cache.map(|cache| &cache.translation);
    let cache = cache.map(|cache| &cache.extraction);
    let root = options.root.as_path();
    // The modules schemas import from outside the route set, read once for the whole check.
    let imported = ImportedModules::new(root, reader);
    // The config and the modules need nothing of each other. The modules are read and extracted
    // as the walk of `src/` finds them, instead of after it: the walk is serial, and the reads
    // keep both threads busy while it goes on. The host matrices, which the hook check needs
    // at the end, are parsed beside the config, which takes less time than the walk. Unless a
    // watch loop keeps translations for its next check (which needs every route module loaded
    // to key them), each route is translated in the task that extracts it. A check that keeps no
    // schemas reports diagnostics only, so it keeps no MCP route's text either: it reads back
    // the few its diagnostics point into (`project::texts`).
    let in_task = translation.is_none();
    let keep = if discard_schemas {
        KeepTexts::NotOfMcpRoutes
    } else {
        KeepTexts::All
    };
    let (config, (mut loaded, translated, walk_diagnostics)) = rayon::join(
        || {
            let config = load_config(root, reader, options.targets.as_deref());
            crate::matrix::hosts();
            config
        },
        || {
            let mut walk = walk_modules(root);
            let modules = walk.by_ref().par_bridge();
            let (loaded, translated) = if in_task {
                let translate = |source: &SourceModule, module: &ExtractedModule, text: &str| {
                    translate_in_task(&imported, source, module, text, discard_schemas)
                };
                load_modules_then(modules, reader, keep, &translate)
            } else {
                (load_modules_from(modules, reader, cache), Vec::new())
            };
            (loaded, translated, walk.diagnostics)
        },
    );
    crate::apps::split_view_modules(&mut loaded.modules, &mut loaded.diagnostics);
    // Apps declared in config load beside the discovered modules, as App modules of their server.
    let (declared, declared_diagnostics) =
        crate::apps::declared_app_modules(root, &config.config, &loaded.modules);
    let declared = load_modules_reusing(declared, reader, None);
    loaded.modules.extend(declared.modules);
    loaded
        .modules
        .sort_by(|a, b| a.source.path.cmp(&b.source.path));
    loaded.texts.extend(declared.texts);
    loaded.diagnostics.extend(declared.diagnostics);
    loaded.diagnostics.extend(declared_diagnostics);
    crate::apps::apply_app_declarations(
        &mut loaded.modules,
        &config.config,
        &mut loaded.diagnostics,
    );

    let mut diagnostics = config.diagnostics;
    diagnostics.extend(walk_diagnostics);
    diagnostics.extend(loaded.diagnostics);
    let fallback = crate::bundle::fallback_node_modules();
    let mut sources = loaded.texts;
    sources.extend(config.texts);
    // The stages below read the modules and write nothing the others read, so they run side by
    // side: translation (itself parallel per route) beside the import check, the route graph,
    // the conventional paths and the skills, which would otherwise run one after the other on
    // this thread. Their diagnostics join in the same order as before.
    let modules = &loaded.modules;
    let project = &config.config;
    let targets: Vec<&str> = project.targets.iter().map(|t| t.as_str()).collect();
    let translate = TranslateOptions {
        targets: &targets,
        discard: discard_schemas,
    };
    let ((imports, schemas), (graph, (conventional, skills))) = rayon::join(
        || {
            rayon::join(
                || crate::project::imports::check_imports(root, modules, fallback.as_deref()),
                || {
                    if in_task {
                        return collect_translations(translated, &targets, &imported);
                    }
                    translate_routes_reusing(&imported, modules, &sources, translate, translation)
                },
            )
        },
        || {
            rayon::join(
                // Without a name there is no plugin to describe, but the identity rules still
                // run so that one check reports every problem.
                || build_graph(project, modules),
                || {
                    (
                        crate::project::support::check_conventional_paths(root),
                        crate::emit::read_skills(root),
                    )
                },
            )
        },
    );
    diagnostics.extend(imports);
    diagnostics.extend(graph.diagnostics);
    diagnostics.extend(crate::graph::cli_commands(&config.config, &graph.graph).1);
    let extracted = loaded
        .modules
        .iter()
        .map(|module| (module.source.path.as_str(), &*module.extracted))
        .collect();
    let hook_diagnostics =
        crate::matrix::check_hooks(&graph.graph, &sources, &extracted, &diagnostics);
    diagnostics.extend(hook_diagnostics);
    diagnostics.extend(conventional);
    diagnostics.extend(check_server_cwds(&config.config));
    diagnostics.extend(check_plugin_bin(&config.config));
    diagnostics.extend(check_entry_files(root, &config.config));
    diagnostics.extend(check_web(&config.config, &graph.graph));
    diagnostics.extend(skills.diagnostics);
    diagnostics.extend(schemas.diagnostics);
    sources.extend(schemas.sources);
    let named = !config.config.plugin.name.is_empty();
    let empty =
        graph.graph.routes.is_empty() && graph.graph.servers.is_empty() && skills.skills.is_empty();
    // Without a name AB5305 already says this is no plugin; with errors, they say why.
    if named && config.file.is_none() && empty && !diagnostics.iter().any(Diagnostic::is_error) {
        diagnostics.push(nothing_to_build());
    }
    diagnostics::sort(&mut diagnostics);
    diagnostics.dedup();
    read_released_again(root, reader, &loaded.released, &diagnostics, &mut sources);

    CheckReturn {
        graph: named.then_some(graph.graph),
        config: named.then_some(config.config),
        modules: loaded.modules,
        sources,
        diagnostics,
        schemas: schemas.routes,
        skills: skills.skills,
    }
}

/// AB4307: a declared `entry` (or `{ prebuilt }`) names no file of the project.
fn check_entry_files(root: &std::path::Path, config: &ProjectConfig) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    for (id, server) in &config.mcp_servers {
        let Some(entry) = &server.entry else { continue };
        let relative = entry.trim_start_matches("./");
        let inside =
            !relative.starts_with('/') && !relative.split('/').any(|segment| segment == "..");
        if inside && root.join(relative).is_file() {
            continue;
        }
        let key = if server.prebuilt {
            "entry/prebuilt"
        } else {
            "entry"
        };
        let diagnostic = Diagnostic::new(
            Code::AB4307,
            if inside {
                format!(
                    "`mcp.servers.{id}` names the entry `{entry}`, which is not a file of the project"
                )
            } else {
                format!(
                    "`mcp.servers.{id}` names the entry `{entry}`, which is outside the project"
                )
            },
            "write the path of the server's module relative to the project root, e.g. `entry: './src/server/docs.ts'`",
        );
        found.push(
            match config.location(&format!("{}/{key}", server.pointer)) {
                Some(location) => diagnostic.at(location),
                None => diagnostic,
            },
        );
    }
    found
}

/// AB4766: `bin/<plugin>` is the path of the runtime binary every artifact ships.
fn check_plugin_bin(config: &ProjectConfig) -> Vec<Diagnostic> {
    let name = &config.plugin.name;
    if name.is_empty() || crate::emit::plugin_bin_path(name) != crate::emit::HOST_BINARY_PATH {
        return Vec::new();
    }
    let diagnostic = Diagnostic::new(
        Code::AB4766,
        format!(
            "the plugin is named `{name}`, so its executable `bin/{name}` would replace the runtime abgen ships at `{}`",
            crate::emit::HOST_BINARY_PATH
        ),
        "give the plugin another name",
    );
    vec![match config.location("/plugin/name") {
        Some(location) => diagnostic.at(location),
        None => diagnostic,
    }]
}

/// AB4315: a declared server's `cwd` carries a path token (other than the plugin root itself)
/// that a selected host does not expand in `cwd`.
fn check_server_cwds(config: &ProjectConfig) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    for (id, server) in &config.mcp_servers {
        let Some(cwd) = &server.cwd else { continue };
        if !cwd.contains("${") || crate::emit::is_plugin_root_cwd(cwd) {
            continue;
        }
        let targets = server.targets.as_deref().unwrap_or(&config.targets);
        let refusing: Vec<&str> = targets
            .iter()
            .filter_map(|target| crate::matrix::host(target.as_str()))
            .filter(|host| !host.mcp.cwd_tokens)
            .map(|host| host.display_name.as_str())
            .collect();
        if refusing.is_empty() {
            continue;
        }
        let diagnostic = Diagnostic::new(
            Code::AB4315,
            format!(
                "`mcp.servers.{id}.cwd` is `{cwd}`, but {} expand no path token in a server's working directory",
                refusing.join(", ")
            ),
            "use a plain path, the plugin root (`${PLUGIN_ROOT}`), or leave `cwd` out and resolve paths against `AGENT_BUNDLE_PLUGIN_ROOT`",
        )
        .with_note("the server would start in a folder whose name is the unexpanded token");
        let pointer = format!("{}/cwd", server.pointer);
        found.push(match config.location(&pointer) {
            Some(location) => diagnostic.at(location),
            None => diagnostic,
        });
    }
    found
}

/// AB5344: a package.json names the plugin, but there is no config and nothing under `src/`.
/// Almost always the wrong `--root`; an empty plugin built there would replace a working one.
/// AB4341 for each `web.apps` entry the route graph cannot open: no such App, or no tool to open
/// it with (`tool` unknown, or none given while not exactly one tool of the server links it).
fn check_web(config: &ProjectConfig, graph: &RouteGraph) -> Vec<Diagnostic> {
    use crate::graph::RouteKind;
    let Some(web) = &config.web else {
        return Vec::new();
    };
    let mut found = Vec::new();
    let mut report = |index: usize, key: Option<&str>, message: String, recovery: String| {
        let pointer = match key {
            Some(key) => format!("/web/apps/{index}/{key}"),
            None => format!("/web/apps/{index}"),
        };
        let diagnostic = Diagnostic::new(Code::AB4341, message, recovery);
        found.push(match config.location(&pointer) {
            Some(location) => diagnostic.at(location),
            None => diagnostic,
        });
    };
    let named = |route: &&crate::graph::RouteNode| {
        Some(format!(
            "{}/{}",
            route.server.as_deref()?,
            route.wire_name.as_deref()?
        ))
    };
    let apps: Vec<&crate::graph::RouteNode> = graph
        .routes
        .iter()
        .filter(|route| route.kind == RouteKind::App)
        .collect();
    for (index, entry) in web.apps.iter().enumerate() {
        let Some(app) = apps
            .iter()
            .find(|route| named(route).as_deref() == Some(entry.app.as_str()))
        else {
            let known: Vec<String> = apps.iter().filter_map(named).collect();
            report(
                index,
                None,
                format!(
                    "`web.apps` names `{}`, which is no App of this plugin",
                    entry.app
                ),
                if known.is_empty() {
                    "add the App under `src/mcp/<server>/apps/`, or remove the entry".to_owned()
                } else {
                    format!("name one of its Apps: {}", known.join(", "))
                },
            );
            continue;
        };
        let uri = app
            .config
            .get("resourceUri")
            .and_then(serde_json::Value::as_str);
        let tools: Vec<&crate::graph::RouteNode> = graph
            .routes
            .iter()
            .filter(|route| route.kind == RouteKind::Tool && route.server == app.server)
            .collect();
        let wire = |route: &&crate::graph::RouteNode| route.wire_name.clone().unwrap_or_default();
        match &entry.tool {
            Some(tool)
                if !tools
                    .iter()
                    .any(|route| route.wire_name.as_deref() == Some(tool)) =>
            {
                report(
                    index,
                    Some("tool"),
                    format!(
                        "`web.apps` opens `{}` with `{tool}`, which is no tool of its server",
                        entry.app
                    ),
                    format!(
                        "name one of its tools: {}",
                        tools.iter().map(wire).collect::<Vec<_>>().join(", ")
                    ),
                )
            }
            Some(_) => {}
            None => {
                let linked: Vec<String> = tools
                    .iter()
                    .filter(|route| uri.is_some() && linked_app(route) == uri)
                    .map(wire)
                    .collect();
                match linked.as_slice() {
                    [_] => {}
                    [] => report(
                        index,
                        None,
                        format!("no tool opens `{}`: none links it through `_meta.ui.resourceUri`", entry.app),
                        "give the entry its opening tool, `{ app, tool: '<tool name>' }`, or link a tool to the App".to_owned(),
                    ),
                    several => report(
                        index,
                        None,
                        format!("several tools link `{}`: {}", entry.app, several.join(", ")),
                        "name the opening one: `{ app, tool: '<tool name>' }`".to_owned(),
                    ),
                }
            }
        }
    }
    found
}

/// The App a tool opens: `_meta.ui.resourceUri`, or the deprecated flat `_meta["ui/resourceUri"]`.
fn linked_app(route: &crate::graph::RouteNode) -> Option<&str> {
    let meta = route.config.get("_meta")?;
    meta.get("ui")
        .and_then(|ui| ui.get("resourceUri"))
        .or_else(|| meta.get("ui/resourceUri"))
        .and_then(serde_json::Value::as_str)
}

fn nothing_to_build() -> Diagnostic {
    Diagnostic::new(
        Code::AB5344,
        "nothing to build: no `agent-bundle.config.ts`, and no routes, servers or skills under `src/`",
        "run abgen in the plugin project or pass `--root` its folder; to start a plugin here, add `agent-bundle.config.ts` and a route such as `src/mcp/<server>/tools/<name>.ts`",
    )
    .at(Location::file("package.json"))
    .with_note("abgen builds no empty plugin by accident: it would replace a working artifact without a word")
}
