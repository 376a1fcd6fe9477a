//! Runs esbuild (through Node and `templates/esbuild-worker.mjs`) on a rendered worker entry.
//! Entry: [`bundle_worker`].
//!
//! esbuild comes from the `abgen` npm package (found from the running executable, see
//! [`locate_toolchain`]); React and the runtime packages from the project, by Node's own
//! `node_modules` lookup. [`NODE_MODULES_ENV`] names one folder for both, used after the
//! project's own (esbuild's `nodePaths`): how abgen's own tests bundle projects that have no
//! `node_modules`.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::Arc;

use super::cache::{ScriptCache, WorkerRun, reported_inputs};
use super::entry::{WorkerEntry, render_worker_entry};
use super::error::BundleError;

/// Names the Node executable (default: `node` on `PATH`).
pub const NODE_ENV: &str = "ABGEN_NODE";
/// Names the `node_modules` folder holding esbuild, React and `@agent-bundle/runtime`.
pub const NODE_MODULES_ENV: &str = "ABGEN_NODE_MODULES";

const ESBUILD_SCRIPT: &str = include_str!("../../../templates/esbuild-worker.mjs");

/// What to bundle, and where the toolchain is.
#[derive(Clone, Debug)]
pub struct BundleRequest {
    pub project_root: PathBuf,
    pub entry: WorkerEntry,
    pub toolchain: Toolchain,
    pub mode: WorkerMode,
}

/// How `runtime/worker.mjs` holds the project's modules.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WorkerMode {
    /// One esbuild bundle of the whole module graph, wrapped for V8's code cache: what every
    /// build ships.
    #[default]
    Bundle,
    /// Each project module compiled on its own and carried as data, served to Node by module
    /// hooks, the packages loaded from the project's `node_modules` (`abgen dev`): a one-file
    /// change recompiles one module instead of relinking the graph.
    Modules,
}

/// Where esbuild is, and where packages the project lacks may come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Toolchain {
    /// The `node_modules` folder esbuild is required from.
    pub esbuild_from: PathBuf,
    /// A `node_modules` folder searched after the project's own ([`NODE_MODULES_ENV`]).
    pub fallback: Option<PathBuf>,
}

impl Toolchain {
    /// One folder for everything: esbuild, and the packages the project lacks.
    pub fn at(node_modules: impl Into<PathBuf>) -> Self {
        let node_modules = node_modules.into();
        Toolchain {
            esbuild_from: node_modules.clone(),
            fallback: Some(node_modules),
        }
    }
}

/// `$ABGEN_NODE_MODULES`: the folder searched after the project's own `node_modules`.
pub fn fallback_node_modules() -> Option<PathBuf> {
    std::env::var_os(NODE_MODULES_ENV)
        .filter(|path| !path.is_empty())
        .map(PathBuf::from)
}

/// The JavaScript toolchain: `$ABGEN_NODE_MODULES` ([`Toolchain::at`]), else esbuild where npm
/// installs the `abgen` package's dependency, found from the running executable (the platform
/// package's binary, or a cargo build inside a checkout with an npm workspace): the nearest
/// ancestor folder with `node_modules/abgen/node_modules/esbuild` or `node_modules/esbuild`.
pub fn locate_toolchain() -> Result<Toolchain, BundleError> {
    if let Some(path) = fallback_node_modules() {
        return Ok(Toolchain::at(path));
    }
    let executable = std::env::current_exe().unwrap_or_default();
    let found = executable.ancestors().skip(1).find_map(|dir| {
        [
            dir.join("node_modules/abgen/node_modules"),
            dir.join("node_modules"),
        ]
        .into_iter()
        .find(|node_modules| node_modules.join("esbuild/package.json").is_file())
    });
    match found {
        Some(esbuild_from) => Ok(Toolchain {
            esbuild_from,
            fallback: None,
        }),
        None => Err(BundleError::ToolchainMissing { path: executable }),
    }
}

/// Bundles the worker and returns the bytes of `runtime/worker.mjs`.
pub fn bundle_worker(request: &BundleRequest) -> Result<Vec<u8>, BundleError> {
    bundle_worker_reusing(request, None).map(|bundle| bundle.to_vec())
}

/// [`bundle_worker`], reusing `cache`'s bundle when neither the entry nor any file it read
/// changed.
pub fn bundle_worker_reusing(
    request: &BundleRequest,
    cache: Option<&ScriptCache>,
) -> Result<Arc<[u8]>, BundleError> {
    let entry = render_worker_entry(&request.entry)?;
    run_esbuild(
        &request.project_root,
        &request.toolchain,
        &entry,
        "abgen-worker-entry.mjs",
        ScriptKind::Worker(request.mode),
        cache,
    )
}

/// Bundles the generated stdio entry of server `server` around its handwritten module `source`
/// (project-relative), in seed 002's order: `agent-bundle/mcp-entry`'s console redirect, then
/// `agent-bundle/launch-env`'s operator layer over `manifest_env` (the server's declared `env`,
/// which yields to the operator's files) read from the artifact root (the parent of `mcp/`, or
/// the host's `AGENT_BUNDLE_PLUGIN_ROOT`), then the module (so even its top level logs to stderr
/// and reads the composed environment), whose default export, a server factory, runs under
/// `runStdioServer`. Returns the bytes of `mcp/<server>.mjs`.
pub fn bundle_stdio_entry(
    project_root: &Path,
    toolchain: &Toolchain,
    server: &str,
    source: &str,
    manifest_env: &BTreeMap<String, String>,
    cache: Option<&ScriptCache>,
) -> Result<Vec<u8>, BundleError> {
    let specifier = serde_json::to_string(&format!("./{source}")).unwrap_or_default();
    let name = serde_json::to_string(server).unwrap_or_default();
    let manifest_env = serde_json::to_string(manifest_env).unwrap_or_default();
    let entry = format!(
        "import {{ redirectConsoleToStderr, runStdioServer }} from 'agent-bundle/mcp-entry';\n\
         import {{ applyOperatorEnv, operatorEnvPluginRoot }} from 'agent-bundle/launch-env';\n\
         import {{ fileURLToPath }} from 'node:url';\n\
         redirectConsoleToStderr();\n\
         applyOperatorEnv({{ manifestEnv: {manifest_env}, pluginRoot: operatorEnvPluginRoot(fileURLToPath(new URL('..', import.meta.url))) }});\n\
         const {{ default: factory }} = await import({specifier});\n\
         await runStdioServer(factory, {{ name: {name} }});\n"
    );
    run_esbuild(
        project_root,
        toolchain,
        &entry,
        &format!("abgen-mcp-{server}.mjs"),
        ScriptKind::StdioEntry,
        cache,
    )
    .map(|bundle| bundle.to_vec())
}

/// A plain script's own Node program (`scripts/<name>.mjs`): the module (its top level runs with
/// Node's own stdout and stderr), then its exported `main`, if any, called with the arguments
/// after the script's name and the terminal axis value `abgen-host` computed for the invocation
/// (seed 002: a plain script has no request scope, its envelope hands `main` the terminal); a
/// number `main` returns is the exit code. Returns the bundle's bytes.
pub fn bundle_plain_script(
    project_root: &Path,
    toolchain: &Toolchain,
    source: &str,
    cache: Option<&ScriptCache>,
) -> Result<Vec<u8>, BundleError> {
    let specifier = serde_json::to_string(&format!("./{source}")).unwrap_or_default();
    let entry = format!(
        "const module = await import({specifier});\n\
         if (typeof module.main === 'function') {{\n\
         \x20 const terminal = process.env.AGENT_BUNDLE_TERMINAL ? JSON.parse(process.env.AGENT_BUNDLE_TERMINAL) : undefined;\n\
         \x20 const code = await module.main(process.argv.slice(2), terminal);\n\
         \x20 if (typeof code === 'number') process.exitCode = code;\n\
         }}\n"
    );
    run_esbuild(
        project_root,
        toolchain,
        &entry,
        "abgen-script.mjs",
        ScriptKind::PlainScript,
        cache,
    )
    .map(|bundle| bundle.to_vec())
}

/// What `templates/esbuild-worker.mjs` is asked to build.
#[derive(Clone, Copy)]
enum ScriptKind {
    Worker(WorkerMode),
    StdioEntry,
    PlainScript,
}

fn run_esbuild(
    project_root: &Path,
    toolchain: &Toolchain,
    entry: &str,
    sourcefile: &str,
    kind: ScriptKind,
    cache: Option<&ScriptCache>,
) -> Result<Arc<[u8]>, BundleError> {
    let toolchain = toolchain.resolved()?;
    let project_root = absolute(project_root);
    let (kind, mode) = match kind {
        ScriptKind::Worker(mode) => ("worker", mode),
        ScriptKind::StdioEntry => ("stdio-entry", WorkerMode::Bundle),
        ScriptKind::PlainScript => ("plain-script", WorkerMode::Bundle),
    };
    let mut payload = serde_json::json!({
        "entry": entry,
        "absWorkingDir": project_root,
        "esbuildFrom": toolchain.esbuild_from,
        "nodePaths": toolchain.fallback.iter().collect::<Vec<_>>(),
        "sourcefile": sourcefile,
        "kind": kind,
        "react": abgen_runtime::manifest::REACT_VERSION,
    });
    // Only when set, so a production request (and its cache key) is what it always was.
    if mode == WorkerMode::Modules {
        payload["mode"] = "modules".into();
    }
    let key = ScriptCache::key(ESBUILD_SCRIPT, &payload);
    if let Some(cache) = cache
        && kind == "worker"
    {
        cache.remember_worker(WorkerRun {
            key,
            script: ESBUILD_SCRIPT,
            payload: payload.clone(),
            working_dir: project_root.clone(),
        });
    }
    let prefetched = cache.and_then(|cache| cache.take_prefetched(&key));
    if prefetched.is_none()
        && let Some(bundle) = cache.and_then(|cache| cache.get(&key))
    {
        return Ok(bundle);
    }
    // A watch loop's cache holds the served bundler, whose contexts make a rebuild incremental.
    let served = prefetched.or_else(|| {
        cache.and_then(|cache| cache.served().run(ESBUILD_SCRIPT, &payload, &project_root))
    });
    let run = match served {
        Some(run) => run,
        None => run_node_script(ESBUILD_SCRIPT, &payload, &project_root)?,
    };
    if !run.completed() || run.stdout.is_empty() {
        let what = if kind == "worker" {
            "the render worker".to_owned()
        } else {
            format!("the stdio entry `{sourcefile}`")
        };
        return Err(BundleError::from_script(what, &run.stderr, run.status));
    }
    // Shared from here on: kept by the cache and planned into the artifact without a copy.
    let bundle: Arc<[u8]> = run.stdout.into();
    if let (Some(cache), Some(inputs)) = (cache, reported_inputs(&run.stderr)) {
        cache.keep(key, Arc::clone(&bundle), &project_root, &inputs);
    }
    Ok(bundle)
}

impl Toolchain {
    /// This toolchain with absolute folders, or [`BundleError::ToolchainMissing`] when its
    /// folder holds no esbuild: what every bundling script is handed.
    pub(crate) fn resolved(&self) -> Result<Toolchain, BundleError> {
        if !self.esbuild_from.join("esbuild/package.json").is_file() {
            return Err(BundleError::ToolchainMissing {
                path: self.esbuild_from.clone(),
            });
        }
        Ok(Toolchain {
            esbuild_from: absolute(&self.esbuild_from),
            fallback: self.fallback.as_deref().map(absolute),
        })
    }
}

/// `path` canonicalized, or as given when it cannot be (it does not exist yet).
pub(crate) fn absolute(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_owned())
}

/// What a bundling script run by Node left: its stdout (the bundle or the JSON report), its
/// stderr and its exit status.
#[derive(Debug)]
pub(crate) struct NodeRun {
    pub stdout: Vec<u8>,
    /// Whether stdout was read to its end.
    pub stdout_read: bool,
    pub stderr: String,
    pub status: ExitStatus,
}

impl NodeRun {
    /// The script exited 0 and its whole stdout was read.
    pub fn completed(&self) -> bool {
        self.stdout_read && self.status.success()
    }
}

/// The Node executable: `$ABGEN_NODE`, or `node` on `PATH`.
pub(crate) fn node_program() -> String {
    std::env::var(NODE_ENV)
        .ok()
        .filter(|node| !node.is_empty())
        .unwrap_or_else(|| "node".to_owned())
}

/// Runs the ES module `script` with Node (`$ABGEN_NODE`, or `node` on `PATH`) in `working_dir`,
/// handing it `payload` as its last argument; Node failing to start is
/// [`BundleError::NodeMissing`].
pub(crate) fn run_node_script(
    script: &str,
    payload: &serde_json::Value,
    working_dir: &Path,
) -> Result<NodeRun, BundleError> {
    let node = node_program();
    let node_missing = |source| BundleError::NodeMissing {
        node: node.clone(),
        source,
    };
    let mut child = Command::new(&node)
        .args([
            "--input-type=module",
            "--eval",
            script,
            "--",
            &payload.to_string(),
        ])
        .current_dir(working_dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(node_missing)?;
    // Read stderr on a thread so a chatty failure cannot block the output on stdout.
    let mut stderr = child.stderr.take().expect("stderr is piped");
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let mut stdout = Vec::new();
    let read = child
        .stdout
        .take()
        .expect("stdout is piped")
        .read_to_end(&mut stdout);
    let status = child.wait().map_err(node_missing)?;
    Ok(NodeRun {
        stdout,
        stdout_read: read.is_ok(),
        stderr: errors.join().unwrap_or_default(),
        status,
    })
}

#[cfg(test)]
#[path = "esbuild_tests.rs"]
mod tests;
