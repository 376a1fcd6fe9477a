//! The `abgen-host` command line (clap derive): definitions only; behaviour lives in
//! [`commands`]. Doc comments are the help text: the first line is the short help.
//!
//! Entry: [`commands::main`]. Invariant: `abgen-host hook` never exits with 2 — Claude Code reads
//! exit 2 as "block" — so even its usage errors are an honest empty answer (exit 0, one line on
//! stderr).

pub mod commands;
pub mod env_vars;
mod harness;
mod hook;
mod mcp;
mod plugin;
mod printer;
mod render;
mod web;

use clap::{Parser, Subcommand};

pub use harness::HarnessArgs;
pub use hook::{FallbackArg, HookArgs};
pub use mcp::McpArgs;
pub use plugin::CliArgs;
pub use printer::Printer;
pub use render::{RenderArgs, RenderFormat};
pub use web::WebArgs;

/// The abgen runtime: renders a plugin's routes and answers its hooks.
#[derive(Debug, Parser)]
#[command(name = "abgen-host", version)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Commands,
}

#[derive(Debug, Subcommand)]
pub enum Commands {
    /// Render one tool or event route of an artifact and print the result.
    ///
    /// Starts the artifact's render worker (Node.js), renders once and exits: 0 on success, 1
    /// when the document holds a represented error, 2 when the render failed or the command was
    /// used wrongly.
    Render(RenderArgs),
    /// Answer a host's hook: read its payload on stdin, print its native output.
    ///
    /// The command a host's hook document runs. It always exits 0 within the binding's deadline;
    /// anything that stops it from answering is one line on stderr and no output.
    Hook(HookArgs),
    /// Serve one MCP server of the artifact over stdio (JSON-RPC 2.0, one message a line).
    ///
    /// The command a host's MCP config runs. While it runs it also answers the artifact's hooks
    /// on its private warm socket (one server per artifact and user does; the others stand by
    /// to take over). Logs go to stderr; it exits 0 when the client closes stdin.
    Mcp(McpArgs),
    /// Open one MCP App of the artifact in a browser, served by the plugin's own MCP server.
    ///
    /// Starts the App's MCP server, calls its opening tool once and serves a host page on a
    /// loopback address, the App itself on a second loopback sandbox origin. The App's tool
    /// calls, downloads, links and display changes ask in the page unless `--allow` grants
    /// them. Runs until Ctrl-C (exit 130) or SIGTERM (143).
    Web(WebArgs),
    /// Serve the `agent-bundle/test` harness of one artifact: JSON requests on stdin, one answer
    /// a line on stdout.
    ///
    /// Renders each request on one kernel started once, and runs the Rust projectors over a
    /// test's events. The process a test harness keeps for its whole run; it exits 0 when stdin
    /// ends.
    #[command(hide = true)]
    Harness(HarnessArgs),
    /// Run the plugin's own command line: what `bin/<plugin>` runs.
    ///
    /// Its commands are the manifest's (`routes.mcpCommands`), each with flags from its input
    /// schema. Exits 0 on success, 1 when the command failed, 2 when it was used wrongly, 130 on
    /// SIGINT and 143 on SIGTERM.
    // `--help` and `--version` belong to the plugin's command line, not to clap.
    #[command(disable_help_flag = true, disable_version_flag = true)]
    Cli(CliArgs),
}
