//! The App stage: compiles every MCP App to one self-contained HTML document,
//! `mcp-apps/<name>.html` at the artifact root, with esbuild run by Node
//! (`templates/esbuild-app.mjs`): a browser bundle, the JSX automatic runtime whatever the entry's
//! extension, scripts and styles inlined into the framework shell or the App's template. Entries:
//! [`split_view_modules`] (at check: which modules under `apps/` are Apps and which are the views
//! they import), [`declared_app_modules`] and [`apply_app_declarations`] (at check: the Apps
//! declared in config, as App modules of their server) and [`compile_apps`] (at build).
//!
//! Invariant: App modules never enter the render worker, and worker modules never enter an App:
//! the worker entry imports no App route (`emit::worker_entry`), and an App's bundle refuses
//! every compiler-carrying entry and Node built-in (AB4837).

mod compile;
mod declared;
mod views;

pub use compile::{
    APPS_DIR, AppProfile, AppSource, AppSourceMap, CompiledApp, CompiledApps, SIZE_ADVISORY_BYTES,
    SIZE_BOUND_BYTES, compile_apps, compile_apps_reusing, human_size,
};
pub use declared::{apply_app_declarations, declared_app, declared_app_modules};
pub use views::split_view_modules;
