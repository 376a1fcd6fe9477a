//! `abgen-host mcp`'s arguments.

use std::num::NonZeroUsize;
use std::path::PathBuf;

use clap::Args;

use super::env_vars::ABGEN_MCP_MAX_MESSAGE_BYTES;

/// Serve one MCP server of an artifact over stdio.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// The manifest server id, e.g. `library`.
    #[arg(long, value_name = "ID")]
    pub server: String,

    /// The artifact root [default: `$ABGEN_ARTIFACT`, else the directory above this binary's
    /// `bin/`].
    #[arg(long, value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
    pub artifact: Option<PathBuf>,

    /// The longest message the client may send, in bytes (one line, newline excluded). A longer
    /// line is answered with a JSON-RPC parse error and dropped as it is read, so it never takes
    /// more memory than this.
    #[arg(
        long,
        value_name = "BYTES",
        env = ABGEN_MCP_MAX_MESSAGE_BYTES,
        default_value_t = NonZeroUsize::new(abgen_runtime::mcp::DEFAULT_MAX_MESSAGE_BYTES).expect("not zero")
    )]
    pub max_message_bytes: NonZeroUsize,

    /// How many render workers may run tool calls at once [default: one per CPU]. Calls beyond
    /// them wait in a queue of 256; a call beyond that is answered at once with a `busy` error.
    #[arg(long, value_name = "N")]
    pub workers: Option<NonZeroUsize>,

    /// Serve Streamable HTTP at `http://ADDR/mcp` instead of stdio (e.g. `127.0.0.1:8931`; port
    /// 0 picks a free one, printed on stderr). Runs until SIGINT or SIGTERM. With
    /// `ABGEN_MCP_HTTP_TOKEN` set, every request needs `Authorization: Bearer <token>`.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<std::net::SocketAddr>,

    /// A `Host` name (or `host:port`) to accept beside the loopback ones, for a server reached
    /// by another name; repeatable. Other hosts are refused (DNS rebinding).
    #[arg(long, value_name = "HOST", requires = "http")]
    pub allowed_host: Vec<String>,

    /// A browser origin to accept beside the loopback ones (e.g. `https://app.example.com`);
    /// repeatable.
    #[arg(long, value_name = "ORIGIN", requires = "http")]
    pub allowed_origin: Vec<String>,
}
