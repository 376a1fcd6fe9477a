//! The generated MCP server: `abgen-host mcp --server <id>` speaks JSON-RPC 2.0 over stdio
//! (MCP 2025-11-25) for one server of the artifact's manifest.
//!
//! Entry: [`McpServer::serve`]. `transport` reads and writes the newline-delimited messages,
//! `tools` answers `tools/list` from the manifest alone, `server` dispatches requests and
//! renders `tools/call` on a worker started on first use. Invariant: the output stream carries
//! only protocol messages; everything else goes to the log callback.

mod server;
mod tools;
mod transport;

pub use server::{HEARTBEAT, Log, McpServer, START_ALLOWANCE, ServerConfig};
pub use tools::{ClientHost, client_host};
pub use transport::DEFAULT_MAX_MESSAGE_BYTES;
