//! The bundle stage: generates the render worker entry (`templates/worker-entry.mjs.j2`) and
//! bundles it with the project's route modules and React (the project's own, at the pinned
//! version, one copy) into one file with esbuild, run by Node ([`run_node_script`] runs every
//! bundling script, the App stage's too). Entry: [`bundle_worker`], which returns the bytes of
//! `runtime/worker.mjs`.
//!
//! Invariant: the same request gives the same bytes: esbuild runs with the project root as its
//! working directory, and route specifiers are project-relative.

mod cache;
mod entry;
mod error;
mod esbuild;
mod served;

pub use cache::ScriptCache;
pub(crate) use cache::{reported_inputs, without_inputs_line};
pub use entry::{BundleModule, WorkerEntry, render_worker_entry};
pub use error::{BundleError, BundleMessage, MessageKind};
pub use esbuild::{
    BundleRequest, NODE_ENV, NODE_MODULES_ENV, Toolchain, WorkerMode, bundle_plain_script,
    bundle_stdio_entry, bundle_worker, bundle_worker_reusing, fallback_node_modules,
    locate_toolchain,
};
pub(crate) use esbuild::{absolute, run_node_script};
pub use served::ServedBundler;
