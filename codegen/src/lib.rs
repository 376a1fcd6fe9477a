//! abgen: the compiler. Reads an agent-plugin project statically (never executing author code)
//! and turns it into a route graph, diagnostics and, later, native host plugins.
//!
//! Data flows one way through the stages, one folder each:
//! `project` (config, discovery) → `extract` (per file, parallel) → `graph` (ids, identity rules)
//! → `matrix` (event routes × targets) → `apps` (MCP App documents) → `emit`.
//! `diagnostics` is shared by every stage. The entry call is [`check::check_project`].

pub mod apps;
pub mod bundle;
pub mod check;
pub mod cli;
pub mod dev;
pub mod diagnostics;
pub mod emit;
pub mod extract;
pub mod graph;
pub mod init;
pub mod matrix;
pub mod mcp_client;
pub mod mcp_run;
pub mod memory;
pub mod project;
pub mod schema;
pub mod simulate;
pub mod stack;
pub mod stamp;
pub mod sync;
