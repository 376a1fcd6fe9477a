//! Arguments of `abgen mcp list|invoke`.

use std::path::PathBuf;

use clap::{Args, Subcommand};

#[derive(Debug, Clone, Args)]
pub struct McpArgs {
    #[command(subcommand)]
    pub command: McpCommand,
}

#[derive(Debug, Clone, Subcommand)]
pub enum McpCommand {
    /// List the tools one MCP server of a built artifact serves, as a host sees them.
    ///
    /// Starts the artifact's own `bin/abgen-host mcp --server ID` and asks it over stdio.
    /// Exits 0 when listed, 1 when the server could not be started or answered an error.
    List(McpServerArgs),
    /// Call one tool of a built artifact's MCP server and print its result.
    ///
    /// Exits 0 when the tool answered, 1 when the result is an error (`isError`) or the server
    /// could not be asked.
    Invoke(McpInvokeArgs),
}

#[derive(Debug, Clone, Args)]
pub struct McpServerArgs {
    /// The built artifact [default: `artifact`].
    #[arg(long, value_name = "DIR", default_value = "artifact", value_hint = clap::ValueHint::DirPath)]
    pub artifact: PathBuf,

    /// The server id (a folder under `src/mcp/`, or a config server).
    #[arg(long, value_name = "ID")]
    pub server: String,

    /// Ask as this host's client does (its schema profile and tool visibility): claude, codex,
    /// cursor [default: a client no host claims, which sees the canonical schemas].
    #[arg(long, value_name = "T")]
    pub target: Option<String>,

    /// Print the server's JSON-RPC result as JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Args)]
pub struct McpInvokeArgs {
    #[command(flatten)]
    pub server: McpServerArgs,

    /// The tool's wire name.
    #[arg(long, value_name = "NAME")]
    pub tool: String,

    /// The tool's arguments, a JSON object [default: `{}`].
    #[arg(long, value_name = "JSON", default_value = "{}")]
    pub input: String,
}
