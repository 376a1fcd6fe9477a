//! `abgen-host mcp`'s arguments.

use std::path::PathBuf;

use clap::Args;

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
}
