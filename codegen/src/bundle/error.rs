//! Why the worker could not be bundled.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum BundleError {
    #[error("cannot render the worker entry template: {0}")]
    Template(#[from] minijinja::Error),
    #[error(
        "cannot run Node ({node}): {source}; install Node.js 20 or newer, or set ABGEN_NODE to its path"
    )]
    NodeMissing {
        node: String,
        source: std::io::Error,
    },
    #[error(
        "abgen's JavaScript toolchain is missing: {path} has no esbuild; run scripts/setup, or set ABGEN_NODE_MODULES to a node_modules folder with esbuild, react and @agent-bundle/runtime"
    )]
    ToolchainMissing { path: PathBuf },
    #[error("bundling {what} failed:\n{detail}")]
    Esbuild { what: String, detail: String },
}
