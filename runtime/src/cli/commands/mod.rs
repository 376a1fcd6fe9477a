//! What each `abgen-host` command does. Entry: [`main`], called by the binary.
//!
//! `render` and `hook` share [`standalone`] (start the artifact's worker, render once, within a
//! deadline); `hook` alone owns the hot path of a hook delivery; `shutdown` ends the workers on
//! every way out.

mod harness;
mod hook;
mod mcp;
mod plugin;
mod render;
mod shutdown;
mod standalone;
mod stdin;
mod web;

use std::process::ExitCode;

use clap::Parser as _;
use clap::error::ErrorKind;

use super::{Cli, Commands, Printer};

/// Parses the command line, runs the command and returns its exit code.
/// Every worker a command started is ended before this returns, or before a signal ends the
/// process.
pub fn main() -> ExitCode {
    let printer = Printer;
    let code = match Cli::try_parse() {
        Ok(cli) => {
            // An MCP server exits with the shell's code for the signal (130, 143), as seed 002's
            // lifecycle shell says every stdio server does; a hook or a render dies of it.
            let on_signal = match cli.command {
                Commands::Mcp(_) | Commands::Web(_) | Commands::Cli(_) => {
                    shutdown::OnSignal::ExitWithCode
                }
                Commands::Render(_) | Commands::Hook(_) | Commands::Harness(_) => {
                    shutdown::OnSignal::Die
                }
            };
            shutdown::on_exit_signals(&printer, on_signal);
            match cli.command {
                Commands::Render(args) => render::run(&args, &printer),
                Commands::Hook(args) => hook::run(&args, &printer),
                Commands::Mcp(args) => mcp::run(&args, &printer),
                Commands::Web(args) => web::run(&args, &printer),
                Commands::Harness(args) => harness::run(&args, &printer),
                Commands::Cli(args) => plugin::run(&args, &printer),
            }
        }
        Err(error) => usage_error(&error, &printer),
    };
    shutdown::end_workers();
    code
}

/// Help and version print as usual; a usage error of `hook` is one line and exit 0 (a host
/// would read clap's exit 2 as a block), any other clap's own message and exit 2.
fn usage_error(error: &clap::Error, printer: &Printer) -> ExitCode {
    let informational = matches!(
        error.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
    );
    let is_hook = std::env::args_os()
        .nth(1)
        .is_some_and(|command| command == "hook");
    if is_hook && !informational {
        // clap's message is a paragraph, then usage; the paragraph fits on one line.
        let rendered = error.render().to_string();
        let paragraph: Vec<&str> = rendered
            .lines()
            .take_while(|line| !line.trim().is_empty())
            .map(str::trim)
            .collect();
        printer.message(format!(
            "hook: {}; answering with nothing",
            paragraph.join(" ").trim_start_matches("error: ")
        ));
        return ExitCode::SUCCESS;
    }
    error.exit()
}
