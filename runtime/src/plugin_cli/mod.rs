//! The plugin's own command line (`bin/<plugin>`, which runs `abgen-host cli`): help, the
//! commands of the manifest's `cli` block with flags from their input schemas, confirmation,
//! and the projection of each render for where stdout goes.
//!
//! Entry: [`run`]. Everything outside (the render, the terminal, the prompt, the streams) is
//! handed in ([`Renderer`], [`CliIo`], the [`Terminal`]), so tests and the `agent-bundle/test`
//! harness drive the same code the binary runs. Exit codes as the reference plugin CLI: 0 success, 1 execution
//! failure (a throwing route, a represented error, a failed render), 2 usage (a bad flag, input
//! the schema refuses, a command that needs `--yes`); 130 and 143 come from the signal handler.

pub mod argv;
mod help;

use std::io::Write;

use serde_json::{Value, json};

use crate::document::{RenderEvent, RenderEventKind, Status};
use crate::kernel::Invocation;
use crate::manifest::{CliCommand, CliProjection, CliScript, CliScriptKind, Manifest, Route};
use crate::project::cli::{CliFormat, TtyProjector, project_cli};
use crate::terminal::{HostSurface, StreamKind, Terminal};
use crate::worker::{RenderLimits, RouteKind};

pub use argv::UsageError;

/// Success.
pub const EXIT_OK: u8 = 0;
/// The command ran and failed: the route threw, its document holds an error, the render broke.
pub const EXIT_FAILURE: u8 = 1;
/// The command was used wrongly.
pub const EXIT_USAGE: u8 = 2;

/// The error code of an input error under `--json` (the reference CLI's).
const INPUT_INVALID: &str = "CLI_INPUT_INVALID";

/// How the output is projected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputMode {
    /// A terminal: the live progress line, then the final document.
    Tty,
    /// Not a terminal: the final document's stable content as Markdown.
    Markdown,
    /// `--json`: the canonical final value.
    Json,
    /// `--ndjson`: every render event, sequence-numbered, one JSON line each.
    Ndjson,
}

/// Renders one invocation (through the kernel, in the binary).
pub trait Renderer {
    /// Renders `invocation`, handing each event to `on_event` as it arrives; returns every event
    /// (the last is `complete`), or why nothing could be rendered.
    fn render(
        &mut self,
        invocation: Invocation,
        on_event: &mut dyn FnMut(&RenderEvent),
    ) -> Result<Vec<RenderEvent>, String>;
}

/// The streams, the prompt, and the Node programs of plain scripts.
pub trait CliIo {
    /// Asks `question` at the terminal; `None` when stdin is not a terminal.
    fn confirm(&mut self, question: &str) -> Option<bool>;
    fn stdout(&mut self) -> &mut dyn Write;
    fn stderr(&mut self) -> &mut dyn Write;
    /// Runs a plain script's bundle `entry` (relative to the artifact root) with node and
    /// `args`, its stdout and stderr the command's own, untouched, with `terminal` in
    /// `AGENT_BUNDLE_TERMINAL` for its `main`; returns its exit code, or why it could not start.
    fn run_node(&mut self, entry: &str, args: &[String], terminal: &Terminal)
    -> Result<u8, String>;
}

/// Runs the plugin's command line `args` (without the program name) against `manifest`, with the
/// invocation's `terminal` computed once by the caller.
pub fn run(
    manifest: &Manifest,
    args: &[String],
    terminal: &Terminal,
    renderer: &mut dyn Renderer,
    io: &mut dyn CliIo,
) -> u8 {
    if let [run, name, script_args @ ..] = args
        && run == "run"
        && let Some(script) = manifest
            .cli
            .scripts
            .iter()
            .find(|script| &script.name == name && script.kind == CliScriptKind::Plain)
    {
        return run_plain_script(manifest, script, script_args, terminal, io);
    }
    let global = Global::take(args);
    if global.version {
        let _ = writeln!(
            io.stdout(),
            "{} {}",
            manifest.cli.bin,
            manifest.application.version
        );
        return EXIT_OK;
    }
    let (words, rest) = split_words(&global.rest);
    let command = manifest
        .cli
        .commands
        .iter()
        .find(|command| command.path == words);
    let Some(command) = command else {
        if words.first().is_some_and(|word| word == "run") && !manifest.cli.scripts.is_empty() {
            return run_script(manifest, &words[1..], rest, &global, terminal, renderer, io);
        }
        if words.is_empty() || global.help {
            let _ = io.stderr().flush();
            let _ = io
                .stdout()
                .write_all(help::root(manifest, &words).as_bytes());
            return if words.is_empty() || is_group(manifest, &words) {
                EXIT_OK
            } else {
                EXIT_USAGE
            };
        }
        return usage(
            io,
            global.json,
            &unknown_command(manifest, &words),
            &manifest.cli.bin,
        );
    };
    let Some(route) = manifest
        .routes
        .iter()
        .find(|route| route.id == command.route)
    else {
        return usage(
            io,
            global.json,
            &format!(
                "the command's route `{}` is not in this artifact",
                command.route
            ),
            &manifest.cli.bin,
        );
    };
    let flags = argv::flags_of(input_schema(route));
    if global.help {
        let _ = io
            .stdout()
            .write_all(help::command(manifest, command, &flags).as_bytes());
        return EXIT_OK;
    }
    let input = match argv::parse_input(&flags, rest) {
        Ok(input) => input,
        Err(UsageError(message)) => return usage(io, global.json, &message, &manifest.cli.bin),
    };
    let name = format!("{} {}", manifest.cli.bin, command.path.join(" "));
    if command.confirm && !global.yes {
        match io.confirm(&format!("{name} changes things. Run it? [y/N] ")) {
            Some(true) => {}
            Some(false) => {
                let _ = writeln!(io.stderr(), "{name}: not run");
                return EXIT_FAILURE;
            }
            None => {
                return usage(
                    io,
                    global.json,
                    &format!(
                        "{name} changes things and stdin is not a terminal to ask at: pass --yes to run it"
                    ),
                    &manifest.cli.bin,
                );
            }
        }
    }
    let mode = global.mode(terminal);
    let kind = route_kind(command);
    let invocation = Invocation {
        kind,
        // A tool run from the command line observes `kind: 'cli'`; a command is one already.
        invocation: (kind != RouteKind::Cli).then_some(RouteKind::Cli),
        route: route.id.clone(),
        input,
        context: serde_json::Map::from_iter([("terminal".to_owned(), terminal.axis())]),
        providers: Default::default(),
        limits: RenderLimits {
            max_flight_bytes: Some(manifest.limits.render.max_bytes),
            max_elapsed_ms: Some(manifest.render_budget_ms(route)),
        },
    };
    render_command(renderer, io, invocation, mode, terminal, &name)
}

/// `<bin> run <name>`: renders the rendered script `name` with the flags of its input schema,
/// projected like a command, its terminal axis's surface `script`.
fn run_script(
    manifest: &Manifest,
    words: &[String],
    rest: &[String],
    global: &Global,
    terminal: &Terminal,
    renderer: &mut dyn Renderer,
    io: &mut dyn CliIo,
) -> u8 {
    let bin = &manifest.cli.bin;
    let names = || {
        manifest
            .cli
            .scripts
            .iter()
            .map(|script| script.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let script = match words {
        [name] => manifest
            .cli
            .scripts
            .iter()
            .find(|script| &script.name == name),
        _ => None,
    };
    let Some(script) = script else {
        if words.is_empty() && global.help {
            let _ = io.stdout().write_all(help::scripts(manifest).as_bytes());
            return EXIT_OK;
        }
        let message = match words {
            [] => format!(
                "`run` needs the name of a script; the scripts are: {}",
                names()
            ),
            _ => format!(
                "unknown script `{}`; the scripts are: {}",
                words.join(" "),
                names()
            ),
        };
        return usage(io, global.json, &message, bin);
    };
    let name = format!("{bin} run {}", script.name);
    let mut terminal = *terminal;
    terminal.host_surface = HostSurface::Script;
    let Some(route) = script
        .route
        .as_deref()
        .and_then(|id| manifest.routes.iter().find(|route| route.id == id))
    else {
        return usage(
            io,
            global.json,
            &format!("the script `{}` has no route in this artifact", script.name),
            &name,
        );
    };
    let flags = argv::flags_of(input_schema(route));
    if global.help {
        let _ = io
            .stdout()
            .write_all(help::script(manifest, script, &flags).as_bytes());
        return EXIT_OK;
    }
    let input = match argv::parse_input(&flags, rest) {
        Ok(input) => input,
        Err(UsageError(message)) => return usage(io, global.json, &message, &name),
    };
    let invocation = Invocation {
        kind: RouteKind::Script,
        invocation: None,
        route: route.id.clone(),
        input,
        context: serde_json::Map::from_iter([("terminal".to_owned(), terminal.axis())]),
        providers: Default::default(),
        limits: RenderLimits {
            max_flight_bytes: Some(manifest.limits.render.max_bytes),
            max_elapsed_ms: Some(manifest.render_budget_ms(route)),
        },
    };
    render_command(
        renderer,
        io,
        invocation,
        global.mode(&terminal),
        &terminal,
        &name,
    )
}

/// `<bin> run <name> <args>` of a plain script: node runs its bundle with every argument after
/// the name (flags included: they are the script's own), and its streams are the command's; it
/// never enters the renderer. The exit code is the script's.
fn run_plain_script(
    manifest: &Manifest,
    script: &CliScript,
    args: &[String],
    terminal: &Terminal,
    io: &mut dyn CliIo,
) -> u8 {
    let name = format!("{} run {}", manifest.cli.bin, script.name);
    let Some(entry) = &script.entry else {
        let _ = writeln!(
            io.stderr(),
            "{name}: the script has no bundle in this artifact"
        );
        return EXIT_FAILURE;
    };
    let mut terminal = *terminal;
    terminal.host_surface = HostSurface::Script;
    match io.run_node(entry, args, &terminal) {
        Ok(code) => code,
        Err(message) => {
            let _ = writeln!(io.stderr(), "{name}: {message}");
            EXIT_FAILURE
        }
    }
}

/// The node process of a plain script: `node <root>/<entry> <args>` from the artifact root, with
/// the terminal axis value in its environment. Both `CliIo`s run it.
pub fn plain_script_command(
    root: &std::path::Path,
    entry: &str,
    args: &[String],
    terminal: &Terminal,
) -> Result<std::process::Command, String> {
    let node = crate::worker::locate_node().map_err(|error| error.to_string())?;
    let terminal = serde_json::to_string(terminal).map_err(|error| error.to_string())?;
    let mut command = std::process::Command::new(node.path);
    command
        .arg(root.join(entry))
        .args(args)
        .current_dir(root)
        .env("AGENT_BUNDLE_TERMINAL", terminal);
    Ok(command)
}

/// The exit code a finished child process reports: its own, or 128 + the signal that ended it.
pub fn child_exit_code(status: std::process::ExitStatus) -> u8 {
    use std::os::unix::process::ExitStatusExt as _;
    match (status.code(), status.signal()) {
        (Some(code), _) => u8::try_from(code).unwrap_or(EXIT_FAILURE),
        (None, Some(signal)) => u8::try_from(128 + signal).unwrap_or(EXIT_FAILURE),
        (None, None) => EXIT_FAILURE,
    }
}

/// Renders and projects one command; returns its exit code.
fn render_command(
    renderer: &mut dyn Renderer,
    io: &mut dyn CliIo,
    invocation: Invocation,
    mode: OutputMode,
    terminal: &Terminal,
    name: &str,
) -> u8 {
    let mut tty = TtyProjector::new(terminal.stdout.columns);
    let rendered = renderer.render(invocation, &mut |event| {
        // A route's log records go to stderr as they arrive, whatever the output mode (stdout is
        // the command's result); on a terminal the progress line is erased first, so the two
        // never share a line.
        if let Some(line) = event.log_line() {
            if mode == OutputMode::Tty {
                let _ = io.stdout().write_all(tty.clear().as_bytes());
                let _ = io.stdout().flush();
            }
            let _ = writeln!(io.stderr(), "{name}: {line}");
            return;
        }
        // On a terminal the progress line is drawn as each event arrives; the final document
        // waits for `complete`, below.
        if mode == OutputMode::Tty && !event.is_complete() {
            let text = tty.event(event);
            if !text.is_empty() {
                let _ = io.stdout().write_all(text.as_bytes());
                let _ = io.stdout().flush();
            }
        }
    });
    let erase = |tty: &mut TtyProjector, io: &mut dyn CliIo| {
        if mode == OutputMode::Tty {
            let _ = io.stdout().write_all(tty.clear().as_bytes());
        }
    };
    let events = match rendered {
        Ok(events) => events,
        Err(message) => {
            erase(&mut tty, io);
            let _ = writeln!(io.stderr(), "{name}: {message}");
            return EXIT_FAILURE;
        }
    };
    let Some(document) = events.iter().rev().find_map(|event| match &event.kind {
        RenderEventKind::Complete { document } => Some(document),
        _ => None,
    }) else {
        erase(&mut tty, io);
        let _ = writeln!(io.stderr(), "{name}: the render never completed");
        return EXIT_FAILURE;
    };
    if let (Status::Failed, crate::document::Node::Error { code, message }) =
        (&document.status, &document.root)
    {
        if code == "invalid-input" {
            erase(&mut tty, io);
            return usage(io, mode == OutputMode::Json, message, name);
        }
        let _ = writeln!(
            io.stderr(),
            "{name}: the command failed ({code}): {message}"
        );
    }
    let stdout = match mode {
        OutputMode::Tty => events
            .last()
            .map(|last| tty.event(last))
            .unwrap_or_default(),
        OutputMode::Markdown => project_cli(&events, CliFormat::Markdown).stdout,
        OutputMode::Json => project_cli(&events, CliFormat::Json).stdout,
        OutputMode::Ndjson => project_cli(&events, CliFormat::Ndjson).stdout,
    };
    let _ = io.stdout().write_all(stdout.as_bytes());
    let _ = io.stdout().flush();
    match document.status {
        Status::Success => EXIT_OK,
        Status::RepresentedError | Status::Failed => EXIT_FAILURE,
    }
}

/// A usage error: the message on stderr (one JSON line under `--json`), exit 2.
fn usage(io: &mut dyn CliIo, json: bool, message: &str, name: &str) -> u8 {
    let line = if json {
        json!({"error": {"code": INPUT_INVALID, "message": message}}).to_string()
    } else {
        format!("{name}: {message}\nRun `{name} --help` for usage.")
            .replace(&format!("{name}: {name}"), name)
    };
    let _ = writeln!(io.stderr(), "{line}");
    EXIT_USAGE
}

fn unknown_command(manifest: &Manifest, words: &[String]) -> String {
    let known: Vec<String> = manifest
        .cli
        .commands
        .iter()
        .map(|command| command.path.join(" "))
        .chain(["web".to_owned()])
        .collect();
    format!(
        "unknown command `{}`; the commands are: {}",
        words.join(" "),
        known.join(", ")
    )
}

/// Whether `words` name a group of commands (a prefix of some command's path).
fn is_group(manifest: &Manifest, words: &[String]) -> bool {
    manifest
        .cli
        .commands
        .iter()
        .any(|command| command.path.len() > words.len() && command.path.starts_with(words))
}

/// The leading words (the command path) and the rest.
fn split_words(args: &[String]) -> (Vec<String>, &[String]) {
    let count = args.iter().take_while(|arg| !arg.starts_with('-')).count();
    (args[..count].to_vec(), &args[count..])
}

fn input_schema(route: &Route) -> Option<&Value> {
    route.schemas.input.as_ref()?.json_schema.as_deref()
}

/// The kind of the route a command renders: a projected tool stays a tool.
fn route_kind(command: &CliCommand) -> RouteKind {
    match command.projection {
        CliProjection::McpCommand | CliProjection::ToolCli => RouteKind::Tool,
        CliProjection::Route => RouteKind::Cli,
    }
}

/// The flags every command takes, taken out of argv wherever they are.
struct Global {
    help: bool,
    version: bool,
    json: bool,
    ndjson: bool,
    yes: bool,
    rest: Vec<String>,
}

impl Global {
    /// The output mode: `--json`, `--ndjson`, else what stdout is.
    fn mode(&self, terminal: &Terminal) -> OutputMode {
        if self.json {
            OutputMode::Json
        } else if self.ndjson {
            OutputMode::Ndjson
        } else if terminal.stdout.kind == StreamKind::Tty {
            OutputMode::Tty
        } else {
            OutputMode::Markdown
        }
    }

    fn take(args: &[String]) -> Global {
        let mut global = Global {
            help: false,
            version: false,
            json: false,
            ndjson: false,
            yes: false,
            rest: Vec::new(),
        };
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--help" | "-h" => global.help = true,
                "--version" | "-V" => global.version = true,
                "--json" => global.json = true,
                "--ndjson" => global.ndjson = true,
                "--yes" | "-y" => global.yes = true,
                "--" => global.rest.extend(args.by_ref().cloned()),
                _ => global.rest.push(arg.clone()),
            }
        }
        global
    }
}

#[cfg(test)]
mod tests;
