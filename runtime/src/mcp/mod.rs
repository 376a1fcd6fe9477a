//! The generated MCP server: `abgen-host mcp --server <id>` serves MCP (2024-11-05 through
//! 2026-07-28, through rmcp) over stdio for one server of the artifact's manifest.
//!
//! Entry: [`McpServer::serve`] over stdio, [`serve_http`] over Streamable HTTP (`--http`), the
//! same handler either way. `transport` reads and writes the newline-delimited messages and
//! hands rmcp only well-formed ones, `tools` answers `tools/list` from the manifest alone,
//! `server` is the rmcp handler that renders `tools/call` through the kernel, `tasks` the
//! session handler around it that serves MCP 2025-11-25 tasks. Invariant: the
//! output stream carries only protocol messages; everything else goes to the log callback.

mod http;
mod server;
mod tasks;
mod tools;
mod transport;

pub use http::{HttpConfig, MCP_PATH, serve_http};
pub use server::{HEARTBEAT, Log, McpServer, PAGE_SIZE, START_ALLOWANCE, ServerConfig};
pub use tools::{ClientHost, client_host};
pub use transport::DEFAULT_MAX_MESSAGE_BYTES;
