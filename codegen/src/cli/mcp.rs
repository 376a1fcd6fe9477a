//! Arguments of `abgen mcp list|invoke|run`.

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
    /// Run one MCP server of a built artifact in the foreground, as its host starts it.
    ///
    /// The server's entry comes from the host's MCP document in the artifact, expanded as that
    /// host expands it; the server reads the project root's `.env` and `.env.local` as the
    /// installed plugin reads its own. This command writes nothing to stdout: stdin and stdout
    /// are the server's MCP stream, and its exit code is this command's. Exits 2 when the
    /// artifact has no such server or the host is ambiguous.
    Run(McpRunArgs),
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
pub struct McpRunArgs {
    /// The built artifact [default: `artifact`].
    #[arg(long, value_name = "DIR", default_value = "artifact", value_hint = clap::ValueHint::DirPath)]
    pub artifact: PathBuf,

    /// The server id (a folder under `src/mcp/`, or a config server).
    #[arg(long, value_name = "ID")]
    pub server: String,

    /// The host whose MCP document says how to start the server: claude, codex, cursor
    /// [default: the only host whose document declares it].
    #[arg(long, value_name = "T")]
    pub target: Option<String>,

    /// The project whose `.env` and `.env.local` the server reads.
    #[arg(long, value_name = "DIR", default_value = ".", value_hint = clap::ValueHint::DirPath)]
    pub root: PathBuf,

    /// Read these files instead of the project's `.env` set, in order (a later file wins).
    #[arg(long = "env-file", value_name = "FILE", conflicts_with = "no_env")]
    pub env_files: Vec<PathBuf>,

    /// Read no `.env` file.
    #[arg(long)]
    pub no_env: bool,

    /// The plugin root the server sees (`AGENT_BUNDLE_PLUGIN_ROOT`) [default: the artifact].
    #[arg(long, value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
    pub plugin_root: Option<PathBuf>,
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
