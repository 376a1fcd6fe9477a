//! Arguments of `abgen dev` and `abgen dev proxy`.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::ProjectArgs;

#[derive(Debug, Clone, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct DevArgs {
    #[command(subcommand)]
    pub command: Option<DevCommand>,

    #[command(flatten)]
    pub project: ProjectArgs,

    /// Where to write the artifact [default: `<root>/artifact`], as `abgen build --out`.
    #[arg(long, value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
    pub out: Option<PathBuf>,

    /// How long a change must be quiet before the rebuild starts, in milliseconds (a rebuild
    /// never waits more than 300 ms behind a stream of changes, and at most 2 ms once a file
    /// was closed after writing or renamed into place).
    #[arg(long, value_name = "MS", default_value_t = 20)]
    pub debounce_ms: u64,
}

#[derive(Debug, Clone, Subcommand)]
pub enum DevCommand {
    /// A stdio MCP server a host keeps connected while `abgen dev` rebuilds behind it.
    ///
    /// Configure it as the host's MCP server command. New requests go to the newest good
    /// build (the epoch the project's `.agent-bundle/dev.json` names), requests already
    /// admitted finish on theirs, and the host is told `notifications/tools/list_changed`
    /// (and the resource and prompt list changes) on each new epoch. With no `abgen dev`
    /// running, requests fail with AB8025; when their epoch is gone, AB8024. Runs until the
    /// host closes standard input.
    Proxy(DevProxyArgs),
}

#[derive(Debug, Clone, Args)]
pub struct DevProxyArgs {
    /// The project root `abgen dev` serves.
    #[arg(long, value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
    pub root: PathBuf,

    /// The plugin's MCP server to serve.
    #[arg(long, value_name = "ID")]
    pub server: String,
}
