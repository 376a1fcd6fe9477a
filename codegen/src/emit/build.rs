//! The emit stage's entry: turns an [`EmitInput`] into a complete artifact directory.
//! [`plan_artifact`] computes every file and the manifest in memory (what snapshot tests look
//! at); [`emit_artifact`] plans, then stages and swaps the result into the output directory.
//!
//! Invariant: the same input, options and input files give byte-identical output, whatever the
//! order of routes, servers or targets.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use abgen_runtime::manifest::{HookTables, MANIFEST_FILE_NAME, Manifest, Route};

use rayon::prelude::*;
use serde_json::Value;

use super::canonical_json::{Spliced, canonical_member_item, serialize_canonical_spliced};
use super::documents::{HOST_BINARY_PATH, SKILLS_DIR, plan_host_documents};
use super::error::EmitError;
use super::input::{EmitInput, EmitRoute, EmitSchemas};
use super::install::{INSTALL_PATH, render_install};
use super::manifest::{build_manifest, manifest_route};
use super::output::{OutputClaim, claim_output};
use super::plan::{FilePlan, MODE_EXECUTABLE, MODE_FILE, file_table_digest};
use super::platform::{PlatformBinary, platform_binary_path, platform_launcher};
use super::report::BuiltApp;
use super::reuse::{EmitCache, ManifestCheck, StagedRoute};
use super::route_check::RouteForCheck;
use super::stage::{check_written_route, stage_artifact_reusing};
use super::worker_files::{SplitWorker, WORKER_COMMONJS_PATH, split_worker};
use crate::diagnostics::Severity;
use crate::matrix::{EventRoute, HostMatrix, resolve};

/// The environment variable that names the `abgen-host` binary to ship.
pub const HOST_BINARY_ENV: &str = "ABGEN_HOST";
/// Where the bundled render worker sits in every artifact (its loader, when the bundle beside
/// it is split off: [`super::worker_files`]).
pub const WORKER_BUNDLE_PATH: &str = "runtime/worker.mjs";

/// How to emit.
#[derive(Clone, Debug)]
pub struct EmitOptions {
    /// Target hosts (`claude`, `codex`, `cursor`, `portable`); order does not matter.
    pub targets: Vec<String>,
    pub out_dir: PathBuf,
    /// The runtime binary copied to `bin/abgen-host` (see [`locate_host_binary`]) when
    /// `platforms` is empty; not read otherwise.
    pub host_binary: PathBuf,
    /// `abgen build --platform`: each platform's runtime, copied to `bin/<platform>/abgen-host`
    /// behind the launcher [`platform_launcher`] at `bin/abgen-host`. Empty: one platform.
    pub platforms: Vec<PlatformBinary>,
    /// The bundled render worker (see `crate::bundle`).
    pub worker_bundle: Arc<[u8]>,
}

/// A planned artifact: every file, and the manifest describing them.
#[derive(Debug)]
pub struct PlannedArtifact {
    pub files: FilePlan,
    /// The manifest, but that its routes carry no schemas: each route's schemas are in its text
    /// alone (`manifest_text`), written while they were made.
    pub manifest: Manifest,
    /// The manifest's canonical bytes, in pieces.
    pub manifest_text: ManifestText,
    /// The manifest without its routes, which staging checks against the manifest's schema
    /// (with each newly written route).
    manifest_without_routes: Value,
    /// Degraded deliveries and routes left out, one line each: the warnings `check` reports as
    /// diagnostics, for callers that emit without checking.
    pub warnings: Vec<String>,
    /// The hosts planned for, sorted.
    pub targets: Vec<String>,
    /// Every compiled MCP App view with its size, sorted by target then name (none until Apps
    /// are compiled into views).
    pub apps: Vec<BuiltApp>,
}

/// What [`emit_artifact`] wrote.
#[derive(Debug)]
pub struct EmitReturn {
    /// The resolved output directory.
    pub out_dir: PathBuf,
    pub artifact: PlannedArtifact,
}

/// The plugin's own executable, `bin/<plugin>`: a POSIX launcher of `bin/abgen-host cli` (and
/// of `abgen-host web` for the `web` command) that finds the artifact from its own path, through
/// any symlinks a host or a user put on `PATH`.
const PLUGIN_BIN_LAUNCHER: &str = r#"#!/bin/sh
# The plugin's command line: every command renders through the runtime beside this file.
self=$0
while [ -L "$self" ]; do
  link=$(readlink -- "$self") || exit 1
  case $link in
    /*) self=$link ;;
    *) self=$(dirname -- "$self")/$link ;;
  esac
done
here=$(CDPATH= cd -- "$(dirname -- "$self")" && pwd) || exit 1
if [ "${1-}" = web ]; then
  shift
  exec "$here/abgen-host" web --artifact "$here/.." "$@"
fi
exec "$here/abgen-host" cli --artifact "$here/.." "$@"
"#;

/// Where the plugin's executable goes in the artifact.
pub fn plugin_bin_path(plugin: &str) -> String {
    format!("bin/{plugin}")
}

/// Plans every file of the artifact in memory.
pub fn plan_artifact(
    input: &EmitInput,
    options: &EmitOptions,
) -> Result<PlannedArtifact, EmitError> {
    plan_artifact_reusing(input, input.schemas.clone(), options, None)
}

/// [`plan_artifact`] with the input's schemas given apart (`schemas`, each made into its
/// route's text), taking the shipped binary's bytes, the digests of unchanged files and the
/// text of unchanged routes from `cache` (and keeping this plan's there).
fn plan_artifact_reusing(
    input: &EmitInput,
    schemas: BTreeMap<String, EmitSchemas>,
    options: &EmitOptions,
    cache: Option<&EmitCache>,
) -> Result<PlannedArtifact, EmitError> {
    // The routes' texts, nearly all of the work, are written beside the rest of the plan, which
    // reads none of them: the manifest's document leaves its routes to the texts.
    let (planned, written) = rayon::join(
        || plan_around_routes(input, options, cache),
        || written_routes(input, schemas, cache),
    );
    let AroundRoutes {
        files,
        mut manifest,
        document,
        manifest_without_routes,
        warnings,
        targets,
    } = planned?;
    let WrittenRoutes {
        routes,
        fragments,
        staged,
    } = written?;
    // Only a plan made whole is staged.
    if let Some(cache) = cache {
        cache.stage_manifest(staged);
    }
    manifest.routes = routes;
    Ok(PlannedArtifact {
        files,
        manifest,
        manifest_text: ManifestText {
            document,
            routes: fragments,
        },
        manifest_without_routes,
        warnings,
        targets,
        apps: built_apps(input),
    })
}

/// What [`plan_around_routes`] plans: every file, and the manifest without its routes (as a
/// value, and as its canonical document around them).
struct AroundRoutes {
    files: FilePlan,
    manifest: Manifest,
    document: Spliced,
    manifest_without_routes: Value,
    warnings: Vec<String>,
    targets: Vec<String>,
}

/// The plan of [`plan_artifact_reusing`] but the routes' texts.
fn plan_around_routes(
    input: &EmitInput,
    options: &EmitOptions,
    cache: Option<&EmitCache>,
) -> Result<AroundRoutes, EmitError> {
    let mut targets: Vec<&str> = options.targets.iter().map(String::as_str).collect();
    targets.sort_unstable();
    targets.dedup();
    let hosts: Vec<&HostMatrix> = targets
        .iter()
        .map(|target| {
            crate::matrix::host(target)
                .ok_or_else(|| EmitError::UnknownTarget((*target).to_owned()))
        })
        .collect::<Result<_, _>>()?;
    let routes: Vec<EventRoute<'_>> = input
        .routes
        .iter()
        .filter_map(|route| {
            Some(EventRoute {
                id: &route.id,
                source: &route.source,
                event: route.event.as_deref()?,
                config: &route.config,
                // `check` reads the module text for this warning; the emitter has no text.
                denies: false,
            })
        })
        .collect();
    let resolution = resolve(&routes, &hosts);
    let refused: Vec<String> = resolution
        .findings
        .iter()
        .filter(|finding| finding.code.default_severity() == Severity::Error)
        .map(|finding| format!("{} [{}]", finding.message, finding.code.as_str()))
        .collect();
    if !refused.is_empty() {
        return Err(EmitError::Refused(refused));
    }
    let warnings: Vec<String> = resolution
        .findings
        .iter()
        .map(|finding| format!("{} [{}]", finding.message, finding.code.as_str()))
        .collect();
    let hooks: HookTables = resolution.bindings;
    let mut files = FilePlan::default();
    for host in &hosts {
        let bindings = hooks.get(&host.host).map_or(&[][..], Vec::as_slice);
        plan_host_documents(host, input, bindings, &mut files)?;
    }
    for server in &input.declared {
        if server.entry.is_some() && server.files.is_empty() {
            return Err(EmitError::EntryNotBundled {
                server: server.id.clone(),
            });
        }
        for (path, contents) in &server.files {
            files.add(path, contents.clone(), MODE_FILE)?;
        }
    }
    for app in &input.apps {
        files.add(&app.path, app.html.clone(), MODE_FILE)?;
    }
    for script in &input.plain_scripts {
        if script.bundle.is_empty() {
            return Err(EmitError::ScriptNotBundled {
                module: script.source.clone(),
            });
        }
        files.add(&script.file, script.bundle.clone(), MODE_FILE)?;
    }
    for skill in &input.skills {
        for (path, contents) in &skill.files {
            files.add(
                &format!("{SKILLS_DIR}/{}/{path}", skill.name),
                contents.clone(),
                MODE_FILE,
            )?;
        }
    }
    let install = render_install(input, &hosts, &resolution.rows, &options.platforms)?;
    files.add(INSTALL_PATH, install, MODE_FILE)?;
    plan_host_binaries(options, cache, &mut files)?;
    files.add(
        &plugin_bin_path(&input.plugin.name),
        PLUGIN_BIN_LAUNCHER,
        MODE_EXECUTABLE,
    )?;
    match split_worker(&options.worker_bundle) {
        Some(SplitWorker { loader, bundle }) => {
            files.add(WORKER_BUNDLE_PATH, loader, MODE_FILE)?;
            files.add(WORKER_COMMONJS_PATH, bundle, MODE_FILE)?;
        }
        None => files.add_shared(
            WORKER_BUNDLE_PATH,
            Arc::clone(&options.worker_bundle),
            MODE_FILE,
        )?,
    }
    let table = match cache {
        Some(cache) => files.file_table_from(&cache.digests(&files)),
        None => files.file_table(),
    };
    let digest = file_table_digest(&table)?;
    let manifest = build_manifest(input, Vec::new(), hooks, table, digest);
    let serialize = |source| EmitError::Serialize {
        what: "the manifest",
        source,
    };
    let document = serialize_canonical_spliced(&manifest, "routes").map_err(serialize)?;
    let manifest_without_routes = serde_json::to_value(&manifest).map_err(serialize)?;
    Ok(AroundRoutes {
        files,
        manifest,
        document,
        manifest_without_routes,
        warnings,
        targets: targets.iter().map(|target| (*target).to_owned()).collect(),
    })
}

/// Every route of the manifest, sorted by id and without its schemas, with its canonical text:
/// the one `cache` kept for an equal route in the manifest in place, else written now. Each
/// route is made, written, checked as the staged manifest's check in parts reads it
/// ([`check_written_route`]) and its schema forms dropped in one task, in parallel: the routes
/// are nearly all of the manifest, their forms never all exist at once, and each is checked
/// while it is in cache.
fn written_routes(
    input: &EmitInput,
    mut schemas: BTreeMap<String, EmitSchemas>,
    cache: Option<&EmitCache>,
) -> Result<WrittenRoutes, EmitError> {
    let mut pending: Vec<(&EmitRoute, Option<EmitSchemas>)> = input
        .routes
        .iter()
        .map(|route| (route, schemas.remove(&route.id)))
        .collect();
    pending.sort_by(|a, b| a.0.id.cmp(&b.0.id));
    let serialize = |source| EmitError::Serialize {
        what: "the manifest",
        source,
    };
    let written: Vec<WrittenRoute> = pending
        .into_par_iter()
        .enumerate()
        .map(|(index, (route, schemas))| {
            let mut route = manifest_route(route, schemas.map(EmitSchemas::into_projected));
            let (fragment, staged) = match cache.and_then(|cache| cache.kept_fragment(&route)) {
                Some(text) => {
                    let staged = StagedRoute::Kept(route.id.clone());
                    (Fragment::Kept(text), Some(staged))
                }
                None => {
                    let item = canonical_member_item(&route).map_err(serialize)?;
                    // A watch loop keeps each new route whole, to know an equal one in the
                    // next build.
                    let staged = cache.map(|_| {
                        StagedRoute::Written(Box::new(route.clone()), item.text.as_str().into())
                    });
                    let check =
                        RouteForCheck::taking_forms(&mut route, item.depth).map_err(serialize)?;
                    check_written_route(MANIFEST_FILE_NAME, index, &check)?;
                    (Fragment::Written(item.text), staged)
                }
            };
            route.schemas = Default::default();
            Ok(WrittenRoute {
                route,
                fragment,
                staged,
            })
        })
        .collect::<Result<_, EmitError>>()?;
    let mut routes = WrittenRoutes {
        routes: Vec::with_capacity(written.len()),
        fragments: Vec::with_capacity(written.len()),
        staged: Vec::new(),
    };
    for written in written {
        routes.routes.push(written.route);
        routes.fragments.push(written.fragment);
        routes.staged.extend(written.staged);
    }
    Ok(routes)
}

/// The routes of a manifest, by [`written_routes`]: without their schemas, their texts, and for
/// a watch loop what its cache keeps of each once the manifest is staged.
struct WrittenRoutes {
    routes: Vec<Route>,
    fragments: Vec<Fragment>,
    staged: Vec<StagedRoute>,
}

/// A route of the manifest written by [`written_routes`]: without its schemas, its text, and
/// for a watch loop what the cache keeps of it.
struct WrittenRoute {
    route: Route,
    fragment: Fragment,
    staged: Option<StagedRoute>,
}

/// The manifest's canonical bytes: the document around its `routes`, and each route's text
/// (the bytes of [`super::canonical_json::serialize_canonical`] of the manifest with its routes
/// whole, pinned by a test), never copied into one text.
#[derive(Debug)]
pub struct ManifestText {
    document: Spliced,
    routes: Vec<Fragment>,
}

impl ManifestText {
    /// The bytes in order, as slices of the document and of the routes' texts.
    pub fn pieces(&self) -> Vec<&[u8]> {
        self.document.pieces(self.routes.iter().map(Fragment::text))
    }

    /// How many routes' texts were written for this manifest; the others were kept from the
    /// manifest in place (a watch loop's rebuild).
    pub fn written_route_count(&self) -> usize {
        self.routes
            .iter()
            .filter(|fragment| matches!(fragment, Fragment::Written(_)))
            .count()
    }
}

impl std::fmt::Display for ManifestText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for piece in self.pieces() {
            // Each piece is a whole part of one UTF-8 text.
            f.write_str(std::str::from_utf8(piece).map_err(|_| std::fmt::Error)?)?;
        }
        Ok(())
    }
}

/// A route's canonical text in the manifest: kept from the manifest in place, or written (and
/// checked) now.
#[derive(Debug)]
enum Fragment {
    Kept(Arc<str>),
    Written(String),
}

impl Fragment {
    fn text(&self) -> &str {
        match self {
            Fragment::Kept(text) => text,
            Fragment::Written(text) => text,
        }
    }
}

/// `bin/abgen-host`: the one runtime binary, or the launcher of each `--platform`'s binary at
/// `bin/<platform>/abgen-host`. Both are planned files like any other, so the manifest lists
/// each with its sha256 and the staged tree is checked against them.
fn plan_host_binaries(
    options: &EmitOptions,
    cache: Option<&EmitCache>,
    files: &mut FilePlan,
) -> Result<(), EmitError> {
    let read = |path: &Path| match cache {
        Some(cache) => cache.read_binary(path),
        None => std::fs::read(path)
            .map(Arc::from)
            .map_err(EmitError::io("read the abgen-host binary at", path)),
    };
    if options.platforms.is_empty() {
        return files.add_shared(
            HOST_BINARY_PATH,
            read(&options.host_binary)?,
            MODE_EXECUTABLE,
        );
    }
    let mut keys = Vec::with_capacity(options.platforms.len());
    for platform in &options.platforms {
        files.add_shared(
            &platform_binary_path(&platform.key),
            read(&platform.path)?,
            MODE_EXECUTABLE,
        )?;
        keys.push(platform.key.clone());
    }
    keys.sort_unstable();
    files.add(HOST_BINARY_PATH, platform_launcher(&keys), MODE_EXECUTABLE)
}

/// Every compiled App once per target it ships to, sorted by target then name, as the build
/// report lists them.
fn built_apps(input: &EmitInput) -> Vec<BuiltApp> {
    let mut apps: Vec<BuiltApp> = input
        .apps
        .iter()
        .flat_map(|app| {
            app.targets.iter().map(|target| BuiltApp {
                name: app.name.clone(),
                server: app.server.clone(),
                target: target.clone(),
                path: app.path.clone(),
                bytes: app.bytes,
                gzip_bytes: app.gzip_bytes,
            })
        })
        .collect();
    apps.sort_by(|a, b| (&a.target, &a.name).cmp(&(&b.target, &b.name)));
    apps
}

/// Plans the artifact and swaps it into `options.out_dir` (see [`claim_output`] for which
/// outputs abgen replaces).
pub fn emit_artifact(input: &EmitInput, options: &EmitOptions) -> Result<EmitReturn, EmitError> {
    let claim = claim_output(&input.project_root, &options.out_dir)?;
    emit_claimed(input, options, &claim)
}

/// Plans the artifact and swaps it into an output already claimed (`options.out_dir` is not
/// read).
pub fn emit_claimed(
    input: &EmitInput,
    options: &EmitOptions,
    claim: &OutputClaim,
) -> Result<EmitReturn, EmitError> {
    let artifact = plan_artifact_reusing(input, input.schemas.clone(), options, None)?;
    stage_planned(artifact, claim, None)
}

/// [`emit_claimed`], writing and hashing only what changed since the emit that `cache` kept
/// (see [`EmitCache`]): the result is byte for byte the artifact [`emit_claimed`] writes. The
/// input's schemas move into the manifest's text: `input.schemas` is left empty.
pub fn emit_claimed_reusing(
    input: &mut EmitInput,
    options: &EmitOptions,
    claim: &OutputClaim,
    cache: Option<&EmitCache>,
) -> Result<EmitReturn, EmitError> {
    let schemas = std::mem::take(&mut input.schemas);
    let artifact = plan_artifact_reusing(input, schemas, options, cache)?;
    stage_planned(artifact, claim, cache)
}

/// Stages the planned artifact into the claimed output and swaps it in.
fn stage_planned(
    artifact: PlannedArtifact,
    claim: &OutputClaim,
    cache: Option<&EmitCache>,
) -> Result<EmitReturn, EmitError> {
    let check = ManifestCheck {
        without_routes: &artifact.manifest_without_routes,
    };
    stage_artifact_reusing(
        &artifact.files,
        MANIFEST_FILE_NAME,
        &artifact.manifest_text.pieces(),
        Some(&check),
        claim,
        cache.map(|cache| (cache, artifact.manifest.files.as_slice())),
    )?;
    Ok(EmitReturn {
        out_dir: claim.path().to_owned(),
        artifact,
    })
}

/// The `abgen-host` binary to ship: `$ABGEN_HOST`, else `abgen-host` beside the running `abgen`,
/// else the one built in the cargo workspace around the current directory (a developer running
/// `cargo run -p abgen`), else an error saying where abgen looked.
pub fn locate_host_binary() -> Result<PathBuf, EmitError> {
    if let Some(path) = std::env::var_os(HOST_BINARY_ENV).filter(|path| !path.is_empty()) {
        return Ok(PathBuf::from(path));
    }
    let executable =
        std::env::current_exe().map_err(EmitError::io("locate", "the running abgen executable"))?;
    let file_name = format!("abgen-host{}", std::env::consts::EXE_SUFFIX);
    let beside = executable
        .parent()
        .unwrap_or(Path::new("."))
        .join(&file_name);
    if beside.is_file() {
        return Ok(beside);
    }
    let current = std::env::current_dir().unwrap_or_default();
    if let Some(workspace) = cargo_workspace(&current) {
        for profile in ["debug", "release"] {
            let built = workspace.join("target").join(profile).join(&file_name);
            if built.is_file() {
                return Ok(built);
            }
        }
    }
    Err(EmitError::HostBinaryMissing { beside })
}

/// The nearest ancestor of `start` whose `Cargo.toml` declares a workspace with the runtime.
fn cargo_workspace(start: &Path) -> Option<PathBuf> {
    start.ancestors().find_map(|dir| {
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).ok()?;
        let declares = manifest.contains("[workspace]") && dir.join("runtime/Cargo.toml").is_file();
        declares.then(|| dir.to_owned())
    })
}

#[cfg(test)]
#[path = "build_tests.rs"]
mod tests;
