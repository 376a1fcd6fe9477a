//! The host matrix stage: `host-matrix/<host>.toml` (embedded) and the resolution of every event
//! route × selected target against it (ARCHITECTURE §5).
//!
//! Entry: [`resolve`] for bindings, inspect rows and findings; [`check_hooks`] for the
//! diagnostics `abgen check` reports. Invariant: host facts live only in the data; this code
//! reads fields and never branches on a host name.

mod check;
mod data;
mod inspect;
mod matcher;
mod resolve;

pub use check::{check_hooks, event_routes, resolve_graph, target_matrices};
pub use data::{
    EventRow, HooksLayout, HooksRow, HostMatrix, InstallRow, MATRIX_SOURCES, MarketplaceRow,
    MatcherSource, McpRow, McpTasksRow, NativeTools, PluginRow, SupportState, TimeoutUnit, ToolRow,
    host, hosts, parse_matrix,
};
pub use inspect::render_hook_rows;
pub use matcher::{ToolMatcher, file_matcher, tool_matcher};
pub use resolve::{
    EventRoute, Finding, HookRow, Resolution, resolve, string_list, targets_host, timing,
};
