//! `abgen-host cli`: the plugin's own command line (`bin/<plugin>`). Reads the manifest with the
//! routes its commands render, observes the terminal once, and runs
//! [`abgen_runtime::plugin_cli::run`] with the kernel as its renderer and the process's streams.

use std::io::{BufRead as _, IsTerminal as _, Write};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use abgen_runtime::document::RenderEvent;
use abgen_runtime::kernel::Invocation;
use abgen_runtime::manifest::{MANIFEST_FILE_NAME, read_cli_manifest};
use abgen_runtime::plugin_cli::{self, CliIo, EXIT_FAILURE, EXIT_USAGE, Renderer};
use abgen_runtime::terminal::{HostSurface, Terminal, observe_process};

use super::standalone::{Artifact, render_streaming};
use crate::cli::{CliArgs, Printer};

/// Time for Node to start and the worker to say hello, on top of the render's own limit.
const START_ALLOWANCE: Duration = Duration::from_secs(20);

pub fn run(args: &CliArgs, printer: &Printer) -> ExitCode {
    // Only the routes the commands and scripts render are parsed (nor held).
    let manifest = match read_cli_manifest(&args.artifact.join(MANIFEST_FILE_NAME)) {
        Ok(manifest) => manifest,
        Err(error) => {
            printer.message(error);
            return ExitCode::from(EXIT_FAILURE);
        }
    };
    let terminal: Terminal = match &args.terminal {
        Some(json) => match serde_json::from_str(json) {
            Ok(terminal) => terminal,
            Err(error) => {
                printer.message(format!("--terminal is not a terminal axis value: {error}"));
                return ExitCode::from(EXIT_USAGE);
            }
        },
        None => observe_process(HostSurface::Cli),
    };
    let words: Result<Vec<String>, _> = args
        .args
        .iter()
        .map(|arg| arg.clone().into_string())
        .collect();
    let Ok(words) = words else {
        printer.message("an argument is not UTF-8");
        return ExitCode::from(EXIT_USAGE);
    };
    let mut renderer = KernelRenderer {
        artifact: Artifact::of(args.artifact.clone(), &manifest),
    };
    let mut io = ProcessIo {
        root: args.artifact.clone(),
        stdout: std::io::stdout(),
        stderr: std::io::stderr(),
    };
    ExitCode::from(plugin_cli::run(
        &manifest,
        &words,
        &terminal,
        &mut renderer,
        &mut io,
    ))
}

/// Each command renders on a one-worker kernel of its own, like `abgen-host render`.
struct KernelRenderer {
    artifact: Artifact,
}

impl Renderer for KernelRenderer {
    fn render(
        &mut self,
        invocation: Invocation,
        on_event: &mut dyn FnMut(&RenderEvent),
    ) -> Result<Vec<RenderEvent>, String> {
        let budget = Duration::from_millis(invocation.limits.max_elapsed_ms.unwrap_or(60_000));
        let deadline = Instant::now() + START_ALLOWANCE + budget;
        render_streaming(&self.artifact, invocation, deadline, on_event)
            .map(|rendered| rendered.events)
            .map_err(|error| error.to_string())
    }
}

struct ProcessIo {
    root: std::path::PathBuf,
    stdout: std::io::Stdout,
    stderr: std::io::Stderr,
}

impl CliIo for ProcessIo {
    fn confirm(&mut self, question: &str) -> Option<bool> {
        let stdin = std::io::stdin();
        if !stdin.is_terminal() {
            return None;
        }
        let _ = self.stderr.write_all(question.as_bytes());
        let _ = self.stderr.flush();
        let mut answer = String::new();
        stdin.lock().read_line(&mut answer).ok()?;
        Some(matches!(
            answer.trim().to_ascii_lowercase().as_str(),
            "y" | "yes"
        ))
    }

    fn stdout(&mut self) -> &mut dyn Write {
        &mut self.stdout
    }

    fn stderr(&mut self) -> &mut dyn Write {
        &mut self.stderr
    }

    /// The script inherits this process's streams: its output is never read or projected.
    fn run_node(
        &mut self,
        entry: &str,
        args: &[String],
        terminal: &Terminal,
    ) -> Result<u8, String> {
        let _ = self.stdout.flush();
        let status = plugin_cli::plain_script_command(&self.root, entry, args, terminal)?
            .status()
            .map_err(|error| format!("cannot start node: {error}"))?;
        Ok(plugin_cli::child_exit_code(status))
    }
}
