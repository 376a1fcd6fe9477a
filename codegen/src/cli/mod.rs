//! Command-line definitions (clap derive). Behaviour lives in the stages and in the binary's
//! dispatch; this module only parses. Doc comments are the help text: the first line is the
//! short help, the rest the long `--help`.
//!
//! Entry call: `Cli::parse()`. To add a command, add a `Commands` variant holding its own
//! `…Args` struct (one file per command) and flatten the shared groups it needs.

mod build;
mod check;
mod dev;
mod generate;
mod hooks;
mod init;
mod inspect;
mod mcp;
mod schema;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

pub use build::BuildArgs;
pub use check::CheckArgs;
pub use dev::{DevArgs, DevCommand, DevProxyArgs};
pub use generate::GenerateArgs;
pub use hooks::{HooksArgs, HooksCommand, SimulateArgs};
pub use init::InitArgs;
pub use inspect::InspectArgs;
pub use mcp::{McpArgs, McpCommand, McpInvokeArgs, McpRunArgs, McpServerArgs};
pub use schema::{SchemaArgs, SchemaIo};

/// Compile TypeScript agent plugins into native plugins for Claude Code, Codex and Cursor.
#[derive(Debug, Parser)]
#[command(name = "abgen", version, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Commands,
}

#[derive(Debug, Subcommand)]
pub enum Commands {
    /// Build a project into a native plugin for each target host.
    ///
    /// Checks the project first: with an error diagnostic nothing is written. The artifact is
    /// staged beside the output directory and swapped in whole. Exits 0 when built, 1 when not.
    Build(BuildArgs),
    /// Check a project: read the config and every route, and report diagnostics.
    ///
    /// Nothing is written. Exits 0 when there are no errors (warnings are allowed), 1 when
    /// there is at least one error, 2 on a usage error.
    Check(CheckArgs),
    /// Write `.agent-bundle/routes.d.ts`, the type map of the project's routes, and nothing else.
    ///
    /// Meant for an npm prebuild step before the author's own bundler (`abgen build` writes it
    /// too). Diagnostics go to standard error; the file is written whenever the routes can be
    /// read, and the exit code follows `abgen check`.
    Generate(GenerateArgs),
    /// Show what abgen sees in a project: servers, routes, events, layouts and providers.
    ///
    /// Diagnostics go to standard error; the exit code follows `abgen check`.
    Inspect(InspectArgs),
    /// Print one tool's JSON Schema as abgen emits it, for debugging a host's rejection.
    ///
    /// Exits 0 with the schema as canonical JSON on standard output, 1 when the schema cannot
    /// be printed (an unknown tool, a schema left to run time, a host profile that cannot take
    /// it), with the reason on standard error.
    Schema(SchemaArgs),
    /// Try a built artifact's hooks without a host.
    Hooks(HooksArgs),
    /// Start a plugin project: config, one tool, one event route, one App, a test, tsconfig.
    ///
    /// Asks nothing. Writes into DIR (created when missing) and never replaces a file: when one
    /// it would write exists, nothing is written. Exits 0 when written, 1 when not. Then
    /// `npm install`, and `npm run build`, `npm test`, `npm run typecheck`.
    Init(InitArgs),
    /// Ask a built artifact's MCP server what a host would: `mcp list`, `mcp invoke`.
    Mcp(McpArgs),
    /// Build for development and rebuild on every change: readable App documents.
    ///
    /// Builds like `abgen build` (into `<root>/artifact` unless `--out`), with App documents
    /// unminified, then watches the project and rebuilds what a change reaches once the change
    /// is quiet. A failed rebuild keeps the last good artifact; diagnostics print when they
    /// change. Runs until Ctrl-C (SIGINT), SIGTERM or the end of a piped standard input; exits 0
    /// then, 1 when the loop could not start.
    Dev(DevArgs),
}

/// Where the project is and which hosts it is built for; shared by every project command.
#[derive(Debug, Clone, Args)]
pub struct ProjectArgs {
    /// The project root, holding `agent-bundle.config.ts` and `src/` [default: the current
    /// directory].
    #[arg(long, value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
    pub root: Option<PathBuf>,

    /// Build for these hosts instead of the config's `targets` (comma-separated or repeated):
    /// claude, codex, cursor, portable.
    #[arg(long = "target", value_name = "LIST", value_delimiter = ',')]
    pub targets: Option<Vec<String>>,
}
