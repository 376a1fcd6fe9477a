//! `abgen build` as a library call: check the project, turn its route graph into an
//! [`EmitInput`], bundle the render worker and emit the artifact. Entry: [`build_project`].
//!
//! A project with error diagnostics is not built: the caller prints the diagnostics of the
//! returned [`BuildFailure::Diagnostics`] exactly as `abgen check` would.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use abgen_runtime::manifest::{
    RouteKind as ManifestRouteKind, RouteSchemas as ManifestRouteSchemas,
};
use rayon::prelude::*;

use super::build::{
    EmitOptions, EmitReturn, PlannedArtifact, emit_claimed_reusing, locate_host_binary,
    plan_artifact,
};
use super::compare::{ArtifactComparison, compare_with_directory};
use super::error::EmitError;
use super::input::{
    EmitDeclaredServer, EmitEntry, EmitInput, EmitLaunch, EmitLayout, EmitProvider, EmitRoute,
    EmitSchemas, EmitServer, PLUGIN_ROOT_TOKEN, PluginIdentity,
};
use super::output::claim_output_reusing;
use super::platform::{PlatformBinary, locate_platform_binaries};
use super::reuse::EmitCache;
use super::typegen::RouteTypes;
use crate::apps::{AppProfile, AppSource, CompiledApp, compile_apps_reusing, human_size};
use crate::bundle::{
    BundleError, BundleModule, BundleRequest, ScriptCache, Toolchain, WorkerEntry, WorkerMode,
    bundle_plain_script, bundle_stdio_entry, bundle_worker_reusing, locate_toolchain,
};
use crate::check::{CheckCache, CheckOptions, CheckReturn, check_project, check_project_reusing};
use crate::diagnostics::{Code, Diagnostic};
use crate::extract::DefaultExport;
use crate::graph::{RouteGraph, RouteKind, ServerModeState};
use crate::project::config::Author;
use crate::project::{FsReader, LoadedModule, ProjectConfig};
use crate::schema::RouteSchemas;
use crate::sync::lock;

/// The environment variable naming a prebuilt worker bundle to ship instead of bundling one.
pub const WORKER_BUNDLE_ENV: &str = "ABGEN_WORKER_BUNDLE";

/// The version written when neither the config nor package.json gives one.
const DEFAULT_VERSION: &str = "0.0.0";

/// What to build.
#[derive(Clone, Debug, Default)]
pub struct BuildOptions {
    pub root: PathBuf,
    /// `--target`: replaces the config's targets when set.
    pub targets: Option<Vec<String>>,
    /// `--out`; default `<root>/artifact`.
    pub out: Option<PathBuf>,
    /// The runtime binary to ship; default [`locate_host_binary`]. With `platforms`, the
    /// running platform's.
    pub host_binary: Option<PathBuf>,
    /// `--platform`: the platform keys whose runtimes `bin/<platform>/` holds behind the
    /// `bin/abgen-host` launcher ([`locate_platform_binaries`]); default one runtime at
    /// `bin/abgen-host`, the running platform's.
    pub platforms: Option<Vec<String>>,
    /// One `node_modules` folder for esbuild and the packages the project lacks
    /// ([`Toolchain::at`]); default [`locate_toolchain`].
    pub node_modules: Option<PathBuf>,
    /// How the render worker holds the project's modules: one bundle (every build), or
    /// module by module (`abgen dev`, whose rebuild then recompiles only what changed).
    pub worker: WorkerMode,
}

/// A build that produced an artifact, with the check's warnings.
#[derive(Debug)]
pub struct BuildReturn {
    pub emitted: EmitReturn,
    /// What was emitted from (kept so that a caller decides when to free it), but for its
    /// `schemas`, moved into the manifest.
    pub input: EmitInput,
    /// Every diagnostic of the check (none is an error).
    pub diagnostics: Vec<Diagnostic>,
    /// The text of every file read, by project-relative path, to render the diagnostics.
    pub sources: BTreeMap<String, String>,
    /// The check's modules with their extractions, kept for the same reason as `input`:
    /// freeing a thousand routes' syntax facts is serial work a one-off build skips at exit,
    /// and a watch loop does after it said the build is in place.
    pub modules: Vec<LoadedModule>,
    /// The check's route graph, kept for the same reason.
    pub graph: Option<RouteGraph>,
    /// Every route's translated schemas, kept for the same reason (freeing the trees of a
    /// thousand routes took 3.7 ms between the swap and the report).
    pub schemas: BTreeMap<String, Arc<RouteSchemas>>,
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

impl BuildFailure {
    /// This failure as coded diagnostics, for reports that carry only diagnostics.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        match self {
            BuildFailure::Diagnostics { diagnostics, .. } => diagnostics.clone(),
            BuildFailure::Bundle(error) => error.diagnostics(),
            BuildFailure::Emit(error) => vec![Diagnostic::new(
                Code::AB5369,
                error.to_string(),
                "fix what the message names (a missing file, a permission) and build again; anything else is a bug in abgen",
            )],
        }
    }
}

/// What one build keeps for the next build of the same project, so that a rebuild redoes only
/// what a change reaches: each module's extraction (by its text) and each bundle and App
/// document (by its request and the files the bundler read), each route's schema projections
/// (by its translated schemas), and what the last emit put in the output (the files it need not
/// write or hash again).
#[derive(Debug, Default)]
pub struct BuildCache {
    pub check: CheckCache,
    pub scripts: ScriptCache,
    pub projections: ProjectionCache,
    pub emit: EmitCache,
}

/// Checks, bundles and emits the project at `options.root`, with production App documents
/// (minified, no source maps), as `abgen build` ships them.
pub fn build_project(options: &BuildOptions) -> Result<BuildReturn, BuildFailure> {
    build_project_with(options, AppProfile::Production)
}

/// [`build_project`] with the App documents compiled in `app_profile`.
pub fn build_project_with(
    options: &BuildOptions,
    app_profile: AppProfile,
) -> Result<BuildReturn, BuildFailure> {
    build_project_reusing(options, app_profile, None)
}

/// [`build_project_with`], reusing what `cache` kept from an earlier build of the project (and
/// keeping this build's work in it): the rebuild of a watch loop.
pub fn build_project_reusing(
    options: &BuildOptions,
    app_profile: AppProfile,
    cache: Option<&BuildCache>,
) -> Result<BuildReturn, BuildFailure> {
    // The last build's render worker request runs again on a thread of this build while the
    // project is checked (when a file it read changed): the check rarely changes the request,
    // so the bundle is ready when it is asked for. The thread ends before this function returns.
    let prefetch = cache.and_then(|cache| cache.scripts.claim_prefetch());
    let built = std::thread::scope(|scope| {
        if let (Some(cache), Some(run)) = (cache, &prefetch) {
            scope.spawn(move || cache.scripts.prefetch_worker(run));
        }
        build_checked(options, app_profile, cache)
    });
    if let Some(cache) = cache {
        cache.scripts.discard_prefetch();
    }
    built
}

/// [`build_project_reusing`] past the prefetch.
fn build_checked(
    options: &BuildOptions,
    app_profile: AppProfile,
    cache: Option<&BuildCache>,
) -> Result<BuildReturn, BuildFailure> {
    let checked = check_project_reusing(
        &CheckOptions {
            root: options.root.clone(),
            targets: options.targets.clone(),
        },
        &FsReader,
        cache.map(|cache| &cache.check),
    );
    let input = buildable_input(options, &checked, cache)?;
    let host_binaries = host_binaries(options, &input, &checked)?;
    // The output is claimed before the slow steps, so a refusal comes at once, and held to the
    // end, so a second build of the same output waits for this one.
    let out = output_dir(options);
    let emit_cache = cache.map(|cache| &cache.emit);
    let claim = match claim_output_reusing(&input.project_root, &out, emit_cache) {
        Ok(claim) => claim,
        Err(error) => return Err(refused(error, &input.project_root, &checked)),
    };
    // The route types render on the other thread from the start: beside the bundling (all a
    // rebuild waits for) and then the planning and staging, whose routes take that thread back
    // once the types are done. Beside the bundling alone, which a project without Apps or
    // entries hardly has, the build would wait for them.
    let route_types = RouteTypes::of(&input);
    let (bundled_and_emitted, route_types) = rayon::join(
        || -> Result<_, BuildFailure> {
            let Bundled {
                mut input,
                emit_options,
                diagnostics,
            } = bundled(
                options,
                input,
                &checked,
                out,
                host_binaries,
                app_profile,
                cache.map(|cache| &cache.scripts),
            )?;
            let emitted = emit_claimed_reusing(&mut input, &emit_options, &claim, emit_cache);
            Ok((input, diagnostics, emitted))
        },
        || route_types.render(),
    );
    let (input, diagnostics, emitted) = bundled_and_emitted?;
    let emitted = match emitted {
        Ok(emitted) => emitted,
        Err(error) => return Err(refused(error, &input.project_root, &checked)),
    };
    // The route types are the project's own (for its bundler and editor), beside `src/`.
    super::typegen::write_rendered_route_types(&options.root, &route_types?)?;
    Ok(BuildReturn {
        emitted,
        input,
        diagnostics,
        sources: checked.sources,
        modules: checked.modules,
        graph: checked.graph,
        schemas: checked.schemas,
    })
}

/// What `abgen build --check` found: the artifact the sources produce, compared with the
/// output directory. Nothing was written.
#[derive(Debug)]
pub struct CheckedArtifact {
    pub out_dir: PathBuf,
    pub artifact: PlannedArtifact,
    pub comparison: ArtifactComparison,
    /// Every diagnostic of the check (none is an error).
    pub diagnostics: Vec<Diagnostic>,
    pub sources: BTreeMap<String, String>,
}

/// Checks and bundles the project at `options.root`, plans its artifact in memory and compares
/// it with the output directory, writing nothing (not even `.agent-bundle/routes.d.ts`).
pub fn check_built_artifact(options: &BuildOptions) -> Result<CheckedArtifact, BuildFailure> {
    let checked = check_project(&CheckOptions {
        root: options.root.clone(),
        targets: options.targets.clone(),
    });
    let input = buildable_input(options, &checked, None)?;
    let host_binaries = host_binaries(options, &input, &checked)?;
    let out = output_dir(options);
    let Bundled {
        input,
        emit_options,
        diagnostics,
    } = bundled(
        options,
        input,
        &checked,
        out.clone(),
        host_binaries,
        AppProfile::Production,
        None,
    )?;
    let artifact = plan_artifact(&input, &emit_options)?;
    let comparison = compare_with_directory(&artifact, &out)?;
    Ok(CheckedArtifact {
        out_dir: out,
        artifact,
        comparison,
        diagnostics,
        sources: checked.sources,
    })
}

/// `--out`, or `<root>/artifact`.
fn output_dir(options: &BuildOptions) -> PathBuf {
    options
        .out
        .clone()
        .unwrap_or_else(|| options.root.join("artifact"))
}

/// The emit input of a checked project, or the check's diagnostics when it cannot be built.
fn buildable_input(
    options: &BuildOptions,
    checked: &CheckReturn,
    cache: Option<&BuildCache>,
) -> Result<EmitInput, BuildFailure> {
    match (&checked.config, &checked.graph) {
        (Some(config), Some(graph)) if !checked.has_errors() => Ok(checked_emit_input_reusing(
            &options.root,
            checked,
            config,
            graph,
            cache.map(|cache| &cache.projections),
        )),
        _ => Err(BuildFailure::Diagnostics {
            diagnostics: checked.diagnostics.clone(),
            sources: checked.sources.clone(),
        }),
    }
}

/// A bundled project, ready to emit: the check's diagnostics with the App stage's.
struct Bundled {
    input: EmitInput,
    emit_options: EmitOptions,
    diagnostics: Vec<Diagnostic>,
}

/// Bundles the worker, the entry servers and the Apps of `input` and says how to emit it to
/// `out` with `host_binaries` ([`host_binaries`]).
fn bundled(
    options: &BuildOptions,
    mut input: EmitInput,
    checked: &CheckReturn,
    out: PathBuf,
    (host_binary, platforms): (PathBuf, Vec<PlatformBinary>),
    app_profile: AppProfile,
    cache: Option<&ScriptCache>,
) -> Result<Bundled, BuildFailure> {
    let toolchain = match &options.node_modules {
        Some(node_modules) => Toolchain::at(node_modules),
        None => locate_toolchain()?,
    };
    let worker_bundle = match std::env::var_os(WORKER_BUNDLE_ENV).filter(|path| !path.is_empty()) {
        // A prebuilt bundle: benchmarks measure abgen without esbuild, offline builds reuse one.
        Some(path) => std::fs::read(&path)
            .map_err(EmitError::io("read the worker bundle at", path))?
            .into(),
        None => bundle_worker_reusing(
            &BundleRequest {
                project_root: input.project_root.clone(),
                entry: worker_entry(&input),
                toolchain: toolchain.clone(),
                mode: options.worker,
            },
            cache,
        )?,
    };
    bundle_entry_servers(&mut input, &toolchain, cache)?;
    bundle_plain_scripts(&mut input, &toolchain, cache)?;
    // Apps compile after the check, so their diagnostics (AB4770–AB4772, AB4837) join its own.
    let mut diagnostics = checked.diagnostics.clone();
    if let Some(graph) = &checked.graph {
        let compiled = compile_apps_reusing(
            &input.project_root,
            &toolchain,
            &app_sources(&input, checked, graph),
            app_profile,
            checked
                .config
                .as_ref()
                .map_or_else(Default::default, |config| config.app_source_map),
            &checked.sources,
            cache,
        )?;
        diagnostics.extend(compiled.diagnostics);
        crate::diagnostics::sort(&mut diagnostics);
        if diagnostics.iter().any(Diagnostic::is_error) {
            return Err(BuildFailure::Diagnostics {
                diagnostics,
                sources: checked.sources.clone(),
            });
        }
        input.apps = compiled.apps;
    }
    let targets = checked.graph.as_ref().map_or_else(Vec::new, |graph| {
        graph
            .targets
            .iter()
            .map(|target| target.as_str().to_owned())
            .collect()
    });
    let emit_options = EmitOptions {
        targets,
        out_dir: out,
        host_binary,
        platforms,
        worker_bundle,
    };
    Ok(Bundled {
        input,
        emit_options,
        diagnostics,
    })
}

/// The runtime binary of a one-platform build, or (`--platform`) each platform's, whose
/// problems join the check's diagnostics; found before anything is claimed or bundled, so a
/// missing platform is told at once and nothing is written.
fn host_binaries(
    options: &BuildOptions,
    input: &EmitInput,
    checked: &CheckReturn,
) -> Result<(PathBuf, Vec<PlatformBinary>), BuildFailure> {
    let Some(keys) = &options.platforms else {
        let host_binary = match &options.host_binary {
            Some(path) => path.clone(),
            None => locate_host_binary()?,
        };
        return Ok((host_binary, Vec::new()));
    };
    match locate_platform_binaries(
        keys,
        &input.project_root,
        &input.plugin.name,
        options.host_binary.as_deref(),
    ) {
        Ok(platforms) => Ok((PathBuf::new(), platforms)),
        Err(problems) => {
            let mut diagnostics = checked.diagnostics.clone();
            diagnostics.extend(problems);
            crate::diagnostics::sort(&mut diagnostics);
            Err(BuildFailure::Diagnostics {
                diagnostics,
                sources: checked.sources.clone(),
            })
        }
    }
}

impl BuildReturn {
    /// The compiled Apps, sorted by name (what `abgen build` prints, and a report carries):
    /// name, server, artifact path, bytes and gzip bytes of each document.
    pub fn apps(&self) -> &[CompiledApp] {
        &self.input.apps
    }

    /// One line per App and target, sorted by target and App name, as seed 002 prints them:
    /// `MCP App <name> (<target>): mcp-apps/<name>.html <size> (<gzip size> gzip)`.
    pub fn app_lines(&self) -> Vec<String> {
        let mut lines: Vec<(&str, &str, String)> = self
            .input
            .apps
            .iter()
            .flat_map(|app| {
                app.targets.iter().map(move |target| {
                    (
                        target.as_str(),
                        app.name.as_str(),
                        format!(
                            "MCP App {} ({target}): {} {} ({} gzip)",
                            app.name,
                            app.path,
                            human_size(app.bytes),
                            human_size(app.gzip_bytes)
                        ),
                    )
                })
            })
            .collect();
        lines.sort();
        lines.into_iter().map(|(_, _, line)| line).collect()
    }
}

/// Every App route of a generated server, as the App stage compiles it: named by its route's
/// wire name, mounted by the framework when its module default-exports a component, shipped to
/// the targets of its server.
pub fn app_sources(input: &EmitInput, checked: &CheckReturn, graph: &RouteGraph) -> Vec<AppSource> {
    input
        .routes
        .iter()
        .filter(|route| route.kind == ManifestRouteKind::App)
        .filter_map(|route| {
            let server = route.server.clone()?;
            let module = checked
                .modules
                .iter()
                .find(|module| module.source.path == route.source)?;
            let mount = matches!(
                module.extracted.default_export,
                DefaultExport::Function | DefaultExport::AsyncFunction | DefaultExport::ReExport
            );
            let mut targets = input
                .servers
                .iter()
                .find(|emitted| emitted.id == server)
                .and_then(|emitted| emitted.targets.clone())
                .unwrap_or_else(|| {
                    graph
                        .targets
                        .iter()
                        .map(|target| target.as_str().to_owned())
                        .collect()
                });
            let name = route
                .wire_name
                .clone()
                .unwrap_or_else(|| route.id.rsplit('/').next().unwrap_or_default().to_owned());
            // A config-declared App brings its template, and may ship to fewer targets.
            let declared = checked
                .config
                .as_ref()
                .and_then(|config| crate::apps::declared_app(config, &server, &name))
                .filter(|declared| declared.entry == route.source);
            if let Some(selected) = declared.and_then(|declared| declared.targets.as_ref()) {
                targets.retain(|target| selected.iter().any(|app| app.as_str() == target));
            }
            Some(AppSource {
                name,
                server,
                route_id: route.id.clone(),
                entry: route.source.clone(),
                mount,
                template: declared.and_then(|declared| declared.template.clone()),
                targets,
            })
        })
        .collect()
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
    checked_emit_input_reusing(root, checked, config, graph, None)
}

/// Each route's schema projections, kept by the translated schemas and the targets they were
/// projected from: a rebuild projects again only the routes whose schemas changed.
#[derive(Debug, Default)]
pub struct ProjectionCache {
    kept: Mutex<HashMap<String, KeptProjection>>,
}

#[derive(Debug)]
struct KeptProjection {
    targets: Vec<String>,
    schemas: Arc<RouteSchemas>,
    projected: ManifestRouteSchemas,
}

impl KeptProjection {
    /// Whether these projections are those of `schemas` for `targets`: the same translation
    /// (the one the check's translation cache kept, or an equal tree) and the same targets.
    fn holds_for(&self, targets: &[&str], schemas: &Arc<RouteSchemas>) -> bool {
        self.targets == targets
            && (Arc::ptr_eq(&self.schemas, schemas) || *self.schemas == **schemas)
    }
}

/// [`checked_emit_input`], taking from `cache` the projections of every route whose translated
/// schemas and targets are the ones they were projected from (and keeping this build's).
fn checked_emit_input_reusing(
    root: &std::path::Path,
    checked: &CheckReturn,
    config: &ProjectConfig,
    graph: &RouteGraph,
    cache: Option<&ProjectionCache>,
) -> EmitInput {
    let mut input = emit_input(root, config, graph);
    input.schemas = match cache {
        Some(cache) => projected_schemas(checked, graph, cache),
        None => deferred_schemas(checked, graph),
    };
    input.skills = checked.skills.clone();
    input
        .declared
        .extend(conventional_entries(checked, config, graph));
    input.declared.sort_by(|a, b| a.id.cmp(&b.id));
    input
}

/// Every route's schemas, each projected for the graph's targets while the emitter writes the
/// route's manifest text.
fn deferred_schemas(checked: &CheckReturn, graph: &RouteGraph) -> BTreeMap<String, EmitSchemas> {
    let targets: Arc<[String]> = graph
        .targets
        .iter()
        .map(|target| target.as_str().to_owned())
        .collect();
    checked
        .schemas
        .iter()
        .map(|(id, schemas)| {
            let (schemas, targets) = (Arc::clone(schemas), Arc::clone(&targets));
            let project = move || {
                let targets: Vec<&str> = targets.iter().map(String::as_str).collect();
                schemas.to_manifest(&targets)
            };
            (id.clone(), EmitSchemas::Deferred(Arc::new(project)))
        })
        .collect()
}

/// Every route's schemas projected for the graph's targets now, taken from `cache` where the
/// translated schemas and targets are the ones they were projected from, and kept there for the
/// next build of a watch loop.
fn projected_schemas(
    checked: &CheckReturn,
    graph: &RouteGraph,
    cache: &ProjectionCache,
) -> BTreeMap<String, EmitSchemas> {
    let targets: Vec<&str> = graph.targets.iter().map(|target| target.as_str()).collect();
    let mut kept = std::mem::take(&mut *lock(&cache.kept));
    let unchanged = |id: &str, schemas: &Arc<RouteSchemas>| {
        kept.get(id)
            .filter(|kept| kept.holds_for(&targets, schemas))
    };
    // One projection per host profile of every schema that changed, in parallel.
    let projected: BTreeMap<String, ManifestRouteSchemas> = checked
        .schemas
        .par_iter()
        .map(|(id, schemas)| {
            let projected = match unchanged(id, schemas) {
                Some(kept) => kept.projected.clone(),
                None => schemas.to_manifest(&targets),
            };
            (id.clone(), projected)
        })
        .collect();
    let mut next = HashMap::with_capacity(checked.schemas.len());
    for (id, schemas) in &checked.schemas {
        let entry = match kept.remove(id) {
            Some(entry) if entry.holds_for(&targets, schemas) => entry,
            _ => KeptProjection {
                targets: targets.iter().map(|target| (*target).to_owned()).collect(),
                schemas: Arc::clone(schemas),
                projected: projected[id].clone(),
            },
        };
        next.insert(id.clone(), entry);
    }
    *lock(&cache.kept) = next;
    projected
        .into_iter()
        .map(|(id, projected)| (id, EmitSchemas::Projected(projected)))
        .collect()
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
        .filter(|route| {
            matches!(
                route.kind,
                RouteKind::Event | RouteKind::Cli | RouteKind::Script
            ) || served(&route.server)
        })
        .map(|route| EmitRoute {
            id: route.id.clone(),
            kind: match route.kind {
                RouteKind::Tool => ManifestRouteKind::Tool,
                RouteKind::Resource => ManifestRouteKind::Resource,
                RouteKind::Prompt => ManifestRouteKind::Prompt,
                RouteKind::App => ManifestRouteKind::App,
                RouteKind::Event => ManifestRouteKind::Event,
                RouteKind::Cli => ManifestRouteKind::Cli,
                RouteKind::Script => ManifestRouteKind::Script,
            },
            source: route.path.clone(),
            server: route.server.clone(),
            wire_name: route.wire_name.clone(),
            event: route.event.clone(),
            config: Arc::clone(&route.config),
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
        // Compiled by `build_project` (`crate::apps`).
        apps: Vec::new(),
        web: config.web.clone(),
        commands: crate::graph::cli_commands(config, graph).0,
        scripts: crate::graph::cli_scripts(graph),
        plain_scripts: graph
            .plain_scripts
            .iter()
            .map(|script| super::input::EmitPlainScript {
                file: crate::graph::plain_script_entry(&script.name),
                source: script.path.clone(),
                bundle: Vec::new(),
            })
            .collect(),
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

/// Bundles (or reads) the file of every entry server of `input`, reusing `cache`'s bundles.
pub fn bundle_entry_servers(
    input: &mut EmitInput,
    toolchain: &Toolchain,
    cache: Option<&ScriptCache>,
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
                    bundle_stdio_entry(&root, toolchain, &server.id, source, manifest_env, cache)?;
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

/// Bundles every plain script of `input` into its own Node program (`scripts/<name>.mjs`),
/// reusing `cache`'s bundles.
pub fn bundle_plain_scripts(
    input: &mut EmitInput,
    toolchain: &Toolchain,
    cache: Option<&ScriptCache>,
) -> Result<(), BuildFailure> {
    for script in &mut input.plain_scripts {
        script.bundle = bundle_plain_script(&input.project_root, toolchain, &script.source, cache)?;
    }
    Ok(())
}

fn target_names(targets: Option<&[crate::project::Target]>) -> Option<Vec<String>> {
    targets.map(|targets| targets.iter().map(|t| t.as_str().to_owned()).collect())
}

/// The worker imports every route it renders (tools, prompts, resources, events, commands,
/// rendered scripts), every provider and every layout. Apps are browser documents (`crate::apps`), never worker modules.
pub fn worker_entry(input: &EmitInput) -> WorkerEntry {
    WorkerEntry {
        plugin: input.plugin.name.clone(),
        protocol: abgen_runtime::manifest::WORKER_PROTOCOL_VERSION,
        routes: input
            .routes
            .iter()
            .filter(|route| route.kind != ManifestRouteKind::App)
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
        declared_envs: input
            .servers
            .iter()
            .map(|server| (server.id.clone(), server.env.clone()))
            .collect(),
    }
}
