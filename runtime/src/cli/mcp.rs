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
}
