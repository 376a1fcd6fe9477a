//! Runs esbuild (through Node and `templates/esbuild-worker.mjs`) on a rendered worker entry.
//! Entry: [`bundle_worker`].
//!
//! esbuild and the runtime packages come from abgen's own `node_modules` ([`NODE_MODULES_ENV`],
//! else the workspace this abgen was built in), passed to esbuild as `nodePaths` so that a
//! project without its own `node_modules` still bundles.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

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
    pub node_modules: PathBuf,
}

/// `$ABGEN_NODE_MODULES`, else the `node_modules` of the workspace abgen was built from.
pub fn default_node_modules() -> PathBuf {
    match std::env::var_os(NODE_MODULES_ENV).filter(|path| !path.is_empty()) {
        Some(path) => PathBuf::from(path),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../node_modules"),
    }
}

/// Bundles the worker and returns the bytes of `runtime/worker.mjs`.
pub fn bundle_worker(request: &BundleRequest) -> Result<Vec<u8>, BundleError> {
    let entry = render_worker_entry(&request.entry)?;
    run_esbuild(
        &request.project_root,
        &request.node_modules,
        &entry,
        "abgen-worker-entry.mjs",
        "worker",
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
    node_modules: &Path,
    server: &str,
    source: &str,
    manifest_env: &BTreeMap<String, String>,
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
        node_modules,
        &entry,
        &format!("abgen-mcp-{server}.mjs"),
        "stdio-entry",
    )
}

fn run_esbuild(
    project_root: &Path,
    node_modules: &Path,
    entry: &str,
    sourcefile: &str,
    kind: &str,
) -> Result<Vec<u8>, BundleError> {
    if !node_modules.join("esbuild/package.json").is_file() {
        return Err(BundleError::ToolchainMissing {
            path: node_modules.to_owned(),
        });
    }
    let node_modules = node_modules
        .canonicalize()
        .unwrap_or_else(|_| node_modules.to_owned());
    let project_root = project_root
        .canonicalize()
        .unwrap_or_else(|_| project_root.to_owned());
    let payload = serde_json::json!({
        "entry": entry,
        "absWorkingDir": project_root,
        "nodePaths": [node_modules],
        "sourcefile": sourcefile,
        "kind": kind,
    });
    let node = std::env::var(NODE_ENV)
        .ok()
        .filter(|node| !node.is_empty())
        .unwrap_or_else(|| "node".to_owned());
    let mut child = Command::new(&node)
        .args([
            "--input-type=module",
            "--eval",
            ESBUILD_SCRIPT,
            "--",
            &payload.to_string(),
        ])
        .current_dir(&project_root)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| BundleError::NodeMissing {
            node: node.clone(),
            source,
        })?;
    // Read stderr on a thread so a chatty failure cannot block the bundle on stdout.
    let mut stderr = child.stderr.take().expect("stderr is piped");
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let mut bundle = Vec::new();
    let read = child
        .stdout
        .take()
        .expect("stdout is piped")
        .read_to_end(&mut bundle);
    let status = child.wait().map_err(|source| BundleError::NodeMissing {
        node: node.clone(),
        source,
    })?;
    let errors = errors.join().unwrap_or_default();
    if !status.success() || read.is_err() || bundle.is_empty() {
        let detail = if errors.trim().is_empty() {
            format!("esbuild exited with {status}")
        } else {
            errors
        };
        return Err(BundleError::Esbuild {
            what: if kind == "worker" {
                "the render worker".to_owned()
            } else {
                format!("the stdio entry `{sourcefile}`")
            },
            detail: detail.trim_end().to_owned(),
        });
    }
    Ok(bundle)
}

#[cfg(test)]
#[path = "esbuild_tests.rs"]
mod tests;
