//! `abgen build` as a library call: check the project, turn its route graph into an
//! [`EmitInput`], bundle the render worker and emit the artifact. Entry: [`build_project`].
//!
//! A project with error diagnostics is not built: the caller prints the diagnostics of the
//! returned [`BuildFailure::Diagnostics`] exactly as `abgen check` would.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use abgen_runtime::manifest::RouteKind as ManifestRouteKind;
use rayon::prelude::*;

use super::build::{EmitOptions, EmitReturn, emit_claimed, locate_host_binary};
use super::error::EmitError;
use super::input::{
    EmitDeclaredServer, EmitEntry, EmitInput, EmitLaunch, EmitLayout, EmitProvider, EmitRoute,
    EmitServer, PLUGIN_ROOT_TOKEN, PluginIdentity,
};
use super::output::claim_output;
use crate::bundle::{
    BundleError, BundleModule, BundleRequest, WorkerEntry, bundle_stdio_entry, bundle_worker,
    default_node_modules,
};
use crate::check::{CheckOptions, CheckReturn, check_project};
use crate::diagnostics::Diagnostic;
use crate::graph::{RouteGraph, RouteKind, ServerModeState};
use crate::project::ProjectConfig;
use crate::project::config::Author;

/// The environment variable naming a prebuilt worker bundle to ship instead of bundling one.
pub const WORKER_BUNDLE_ENV: &str = "ABGEN_WORKER_BUNDLE";

/// The version written when neither the config nor package.json gives one.
const DEFAULT_VERSION: &str = "0.0.0";

/// What to build.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    pub root: PathBuf,
    /// `--target`: replaces the config's targets when set.
    pub targets: Option<Vec<String>>,
    /// `--out`; default `<root>/artifact`.
    pub out: Option<PathBuf>,
    /// The runtime binary to ship; default [`locate_host_binary`].
    pub host_binary: Option<PathBuf>,
    /// abgen's JavaScript toolchain; default [`default_node_modules`].
    pub node_modules: Option<PathBuf>,
}

/// A build that produced an artifact, with the check's warnings.
#[derive(Debug)]
pub struct BuildReturn {
    pub emitted: EmitReturn,
    /// What was emitted from (kept so that a caller decides when to free it).
    pub input: EmitInput,
    /// Every diagnostic of the check (none is an error).
    pub diagnostics: Vec<Diagnostic>,
    /// The text of every file read, by project-relative path, to render the diagnostics.
    pub sources: BTreeMap<String, String>,
}

/// Why nothing was written.
#[derive(Debug, thiserror::Error)]
pub enum BuildFailure {
    #[error("the project has errors")]
    Diagnostics {
        diagnostics: Vec<Diagnostic>,
        sources: BTreeMap<String, String>,
    },
    #[error(transparent)]
    Emit(#[from] EmitError),
    #[error(transparent)]
    Bundle(#[from] BundleError),
}

/// Checks, bundles and emits the project at `options.root`.
pub fn build_project(options: &BuildOptions) -> Result<BuildReturn, BuildFailure> {
    let checked = check_project(&CheckOptions {
        root: options.root.clone(),
        targets: options.targets.clone(),
    });
    let (Some(config), Some(graph)) = (&checked.config, &checked.graph) else {
        return Err(BuildFailure::Diagnostics {
            diagnostics: checked.diagnostics,
            sources: checked.sources,
        });
    };
    if checked.has_errors() {
        return Err(BuildFailure::Diagnostics {
            diagnostics: checked.diagnostics,
            sources: checked.sources,
        });
    }
    let input = checked_emit_input(&options.root, &checked, config, graph);
    // The output is claimed before the slow steps, so a refusal comes at once, and held to the
    // end, so a second build of the same output waits for this one.
    let out = options
        .out
        .clone()
        .unwrap_or_else(|| options.root.join("artifact"));
    let claim = match claim_output(&input.project_root, &out) {
        Ok(claim) => claim,
        Err(error) => return Err(refused(error, &input.project_root, &checked)),
    };
    let worker_bundle = match std::env::var_os(WORKER_BUNDLE_ENV).filter(|path| !path.is_empty()) {
        // A prebuilt bundle: benchmarks measure abgen without esbuild, offline builds reuse one.
        Some(path) => {
            std::fs::read(&path).map_err(EmitError::io("read the worker bundle at", path))?
        }
        None => bundle_worker(&BundleRequest {
            project_root: input.project_root.clone(),
            entry: worker_entry(&input),
            node_modules: options
                .node_modules
                .clone()
                .unwrap_or_else(default_node_modules),
        })?,
    };
    let node_modules = options
        .node_modules
        .clone()
        .unwrap_or_else(default_node_modules);
    let mut input = input;
    bundle_entry_servers(&mut input, &node_modules)?;
    let host_binary = match &options.host_binary {
        Some(path) => path.clone(),
        None => locate_host_binary()?,
    };
    let emit_options = EmitOptions {
        targets: graph
            .targets
            .iter()
            .map(|target| target.as_str().to_owned())
            .collect(),
        out_dir: out,
        host_binary,
        worker_bundle,
    };
    let emitted = match emit_claimed(&input, &emit_options, &claim) {
        Ok(emitted) => emitted,
        Err(error) => return Err(refused(error, &input.project_root, &checked)),
    };
    // The route types are the project's own (for its bundler and editor), beside `src/`.
    super::typegen::write_route_types(&options.root, &input)?;
    Ok(BuildReturn {
        emitted,
        input,
        diagnostics: checked.diagnostics,
        sources: checked.sources,
    })
}

/// A refused output is one more error diagnostic beside the check's; any other emit failure
/// stays an [`EmitError`].
fn refused(
    error: EmitError,
    project_root: &std::path::Path,
    checked: &CheckReturn,
) -> BuildFailure {
    match error.output_diagnostic(project_root) {
        Some(diagnostic) => {
            let mut diagnostics = checked.diagnostics.clone();
            diagnostics.push(diagnostic);
            crate::diagnostics::sort(&mut diagnostics);
            BuildFailure::Diagnostics {
                diagnostics,
                sources: checked.sources.clone(),
            }
        }
        None => BuildFailure::Emit(error),
    }
}

/// [`emit_input`] completed with what only the check has: every schema projection for the
/// graph's targets, and the skills.
pub fn checked_emit_input(
    root: &std::path::Path,
    checked: &CheckReturn,
    config: &ProjectConfig,
    graph: &RouteGraph,
) -> EmitInput {
    let mut input = emit_input(root, config, graph);
    let targets: Vec<&str> = graph.targets.iter().map(|target| target.as_str()).collect();
    // One projection per host profile of every schema: the build's largest step, in parallel.
    input.schemas = checked
        .schemas
        .par_iter()
        .map(|(id, schemas)| (id.clone(), schemas.to_manifest(&targets)))
        .collect();
    input.skills = checked.skills.clone();
    input
        .declared
        .extend(conventional_entries(checked, config, graph));
    input.declared.sort_by(|a, b| a.id.cmp(&b.id));
    input
}

/// The emitter's view of a checked project: generated servers (with what a declaration beside
/// each adds), the config's command and remote servers, every route of a generated server and
/// every event route.
pub fn emit_input(root: &std::path::Path, config: &ProjectConfig, graph: &RouteGraph) -> EmitInput {
    let generated: Vec<&crate::graph::ServerNode> = graph
        .servers
        .iter()
        .filter(|server| server.mode == ServerModeState::Generated)
        .collect();
    let served = |server: &Option<String>| {
        server
            .as_ref()
            .is_some_and(|id| generated.iter().any(|generated| &generated.id == id))
    };
    let routes = graph
        .routes
        .iter()
        .filter(|route| route.kind == RouteKind::Event || served(&route.server))
        .map(|route| EmitRoute {
            id: route.id.clone(),
            kind: match route.kind {
                RouteKind::Tool => ManifestRouteKind::Tool,
                RouteKind::Resource => ManifestRouteKind::Resource,
                RouteKind::Prompt => ManifestRouteKind::Prompt,
                RouteKind::App => ManifestRouteKind::App,
                RouteKind::Event => ManifestRouteKind::Event,
            },
            source: route.path.clone(),
            server: route.server.clone(),
            wire_name: route.wire_name.clone(),
            event: route.event.clone(),
            config: route.config.clone(),
        })
        .collect();
    let plugin = &config.plugin;
    EmitInput {
        project_root: root.canonicalize().unwrap_or_else(|_| root.to_owned()),
        plugin: PluginIdentity {
            name: plugin.name.clone(),
            version: plugin
                .version
                .clone()
                .unwrap_or_else(|| DEFAULT_VERSION.to_owned()),
            description: plugin.description.clone(),
            author: plugin.author.as_ref().map(|author| match author {
                Author::Name(name) | Author::Person { name, .. } => name.clone(),
            }),
            license: plugin.license.clone(),
            homepage: plugin.homepage.clone(),
            keywords: plugin.keywords.clone(),
        },
        routes,
        servers: generated
            .iter()
            .map(|server| {
                let declared = config.mcp_servers.get(&server.id);
                EmitServer {
                    id: server.id.clone(),
                    routes: server.routes.clone(),
                    args: declared.map(|d| d.args.clone()).unwrap_or_default(),
                    env: declared.map(|d| d.env.clone()).unwrap_or_default(),
                    targets: declared.and_then(|d| target_names(d.targets.as_deref())),
                }
            })
            .collect(),
        declared: declared_servers(config, graph),
        schemas: BTreeMap::new(),
        providers: graph
            .providers
            .iter()
            .map(|provider| EmitProvider {
                key: provider.key.clone(),
                source: provider.path.clone(),
            })
            .collect(),
        layouts: graph
            .layouts
            .iter()
            .map(|layout| EmitLayout {
                id: layout.id.clone(),
                source: layout.path.clone(),
            })
            .collect(),
        // Read with the check (`CheckReturn::skills`); `build_project` fills them in.
        skills: Vec::new(),
        commands: crate::graph::mcp_commands(config, graph).0,
    }
}

/// The config's `command` and `url` servers that own no generated routes (a declaration beside
/// a generated server augments it instead).
fn declared_servers(config: &ProjectConfig, graph: &RouteGraph) -> Vec<EmitDeclaredServer> {
    let generated = |id: &str| {
        graph
            .servers
            .iter()
            .any(|server| server.id == id && server.mode == ServerModeState::Generated)
    };
    config
        .mcp_servers
        .iter()
        .filter(|(id, _)| !generated(id))
        .filter_map(|(id, declared)| {
            let (launch, entry) = match (&declared.entry, &declared.command, &declared.url) {
                (Some(entry), None, None) => {
                    let entry = declared_entry(id, entry, declared.prebuilt);
                    (entry_launch(&entry, declared), Some(entry))
                }
                (None, Some(command), None) => (
                    EmitLaunch::Command {
                        command: command.clone(),
                        args: declared.args.clone(),
                        cwd: declared.cwd.clone(),
                        env: declared.env.clone(),
                    },
                    None,
                ),
                (None, None, Some(url)) => (
                    EmitLaunch::Remote {
                        url: url.clone(),
                        headers: declared.headers.clone(),
                    },
                    None,
                ),
                // No claim: a conventional `src/mcp/<id>.ts` serves it, or AB4304 says nothing
                // does; two claims are AB4304.
                _ => return None,
            };
            Some(EmitDeclaredServer {
                id: id.clone(),
                launch,
                targets: target_names(declared.targets.as_deref()),
                entry,
                files: Vec::new(),
            })
        })
        .collect()
}

/// Where an entry server's file sits in every artifact: the bundle is `mcp/<id>.mjs`, a prebuilt
/// file keeps its name under `mcp/<id>/`.
fn declared_entry(id: &str, entry: &str, prebuilt: bool) -> EmitEntry {
    let source = entry.trim_start_matches("./").to_owned();
    if prebuilt {
        let name = source.rsplit('/').next().unwrap_or(&source).to_owned();
        EmitEntry::Prebuilt {
            file: format!("{MCP_DIR}/{id}/{name}"),
            source,
        }
    } else {
        EmitEntry::Bundle {
            file: format!("{MCP_DIR}/{id}.mjs"),
            source,
        }
    }
}

/// `node <root>/<file>` from the plugin root, with the declaration's `args` and `env`.
fn entry_launch(
    entry: &EmitEntry,
    declared: &crate::project::config::DeclaredServer,
) -> EmitLaunch {
    let (EmitEntry::Bundle { file, .. } | EmitEntry::Prebuilt { file, .. }) = entry;
    let mut args = vec![format!("{PLUGIN_ROOT_TOKEN}/{file}")];
    args.extend(declared.args.iter().cloned());
    EmitLaunch::Command {
        command: NODE_COMMAND.to_owned(),
        args,
        cwd: Some(PLUGIN_ROOT_TOKEN.to_owned()),
        env: declared.env.clone(),
    }
}

/// Where stdio entries sit in every artifact.
pub const MCP_DIR: &str = "mcp";
/// What launches an entry server: the `node` the host finds on its `PATH`.
const NODE_COMMAND: &str = "node";

/// The servers a conventional `src/mcp/<id>.<ext>` module serves: a server with no routes, or
/// one whose mode hands its routes to something else, that the config does not launch another
/// way (AB4733 and AB4800 report the other cases).
fn conventional_entries(
    checked: &CheckReturn,
    config: &ProjectConfig,
    graph: &RouteGraph,
) -> Vec<EmitDeclaredServer> {
    checked
        .modules
        .iter()
        .filter_map(|module| {
            let crate::project::ModuleKind::ServerEntry { server } = &module.source.kind else {
                return None;
            };
            let routed = graph.servers.iter().find(|node| &node.id == server);
            if routed.is_some_and(|node| {
                matches!(
                    node.mode,
                    ServerModeState::Generated | ServerModeState::Conflict
                )
            }) {
                return None;
            }
            let declared = config.mcp_servers.get(server);
            if declared.is_some_and(|declared| declared.entry_claim().is_some()) {
                return None;
            }
            let default = crate::project::config::DeclaredServer::default();
            let declared = declared.unwrap_or(&default);
            let entry = declared_entry(server, &module.source.path, false);
            Some(EmitDeclaredServer {
                id: server.clone(),
                launch: entry_launch(&entry, declared),
                targets: target_names(declared.targets.as_deref()),
                entry: Some(entry),
                files: Vec::new(),
            })
        })
        .collect()
}

/// Bundles (or reads) the file of every entry server of `input`.
pub fn bundle_entry_servers(
    input: &mut EmitInput,
    node_modules: &Path,
) -> Result<(), BuildFailure> {
    let root = input.project_root.clone();
    for server in &mut input.declared {
        let Some(entry) = &server.entry else { continue };
        server.files = match entry {
            EmitEntry::Bundle { source, file } => {
                let no_env = BTreeMap::new();
                let manifest_env = match &server.launch {
                    EmitLaunch::Command { env, .. } => env,
                    EmitLaunch::Remote { .. } => &no_env,
                };
                let bundle =
                    bundle_stdio_entry(&root, node_modules, &server.id, source, manifest_env)?;
                vec![(file.clone(), bundle)]
            }
            EmitEntry::Prebuilt { source, file } => {
                let bytes = std::fs::read(root.join(source)).map_err(EmitError::io(
                    "read the prebuilt entry at",
                    root.join(source),
                ))?;
                vec![(file.clone(), bytes)]
            }
        };
    }
    Ok(())
}

fn target_names(targets: Option<&[crate::project::Target]>) -> Option<Vec<String>> {
    targets.map(|targets| targets.iter().map(|t| t.as_str().to_owned()).collect())
}

/// The worker imports every route it may render (tools, prompts, resources, Apps, events), every
/// provider and every layout.
pub fn worker_entry(input: &EmitInput) -> WorkerEntry {
    WorkerEntry {
        plugin: input.plugin.name.clone(),
        protocol: abgen_runtime::manifest::WORKER_PROTOCOL_VERSION,
        routes: input
            .routes
            .iter()
            .map(|route| BundleModule {
                key: route.id.clone(),
                source: route.source.clone(),
            })
            .collect(),
        providers: input
            .providers
            .iter()
            .map(|provider| BundleModule {
                key: provider.key.clone(),
                source: provider.source.clone(),
            })
            .collect(),
        layouts: input
            .layouts
            .iter()
            .map(|layout| BundleModule {
                key: layout.id.clone(),
                source: layout.source.clone(),
            })
            .collect(),
    }
}
