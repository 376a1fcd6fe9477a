//! The route graph: route ids, wire names, servers and their modes, and the identity rules
//! that span modules (duplicate ids, shared App URIs, layout scopes, provider keys).
//!
//! Entry call: [`build_graph`]; [`render_summary`] prints the human view of `abgen inspect`.

mod build;
mod commands;
mod ids;
mod model;
mod summary;
#[cfg(test)]
mod tests;

pub use build::{GraphReturn, build_graph, module_location};
pub use commands::{cli_commands, cli_scripts, mcp_commands, plain_script_entry};
pub use ids::{EVENT_VOCABULARY, is_command_word, is_safe_segment, provider_key};
pub use model::{
    FormName, LayoutNode, PlainScriptNode, PluginIdentity, ProviderNode, RouteGraph, RouteKind,
    RouteNode, RouteSchemas, SchemaPresence, ServerModeState, ServerNode, ToolCliProjection,
};
pub use summary::{HostModelReads, render_routes, render_summary};
