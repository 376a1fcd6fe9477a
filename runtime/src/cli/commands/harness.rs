//! `abgen-host harness`: the test harness's one long-lived process (`agent-bundle/test`). It
//! reads one JSON request a line on stdin and writes one JSON answer a line on stdout, in order,
//! rendering every request on one kernel started once, so a test's renders after the first do
//! not wait for Node. The routes render exactly as the MCP server and hooks render them; the
//! harness adds only a way in that takes the route id, the input and the request context as a
//! test gives them, and a way to run the Rust projectors over a test's events.
//!
//! Requests (`id` is echoed back):
//! - `{"id", "render": {"route", "input", "context", "providers"?}}` → `{"id", "events": [...]}`,
//!   the render's events ending in one `complete`; `context` and `providers` are the worker
//!   protocol's (the same axes the surfaces send, and the provider values a test injects).
//! - `{"id", "project": {"events", "fixture"}}` → what a surface with the fixture's
//!   capabilities receives: `{"surface": "mcp", "progressToken"?, "acceptsImage"?,
//!   "acceptsAudio"?, "richFallback"?}` → `{"id", "progress": [...], "result" | "error"}`;
//!   `{"surface": "cli", "format": "markdown" | "json" | "ndjson"}` → `{"id", "stdout",
//!   "exitCode"}`.
//! - `{"id", "cli": {"args", "terminal", "confirm"?}}` → `{"id", "exitCode", "stdout",
//!   "stderr"}`: the plugin's command line (`bin/<plugin> <args>`, `run <script>` included) run
//!   by the same code as `abgen-host cli`, rendering on this kernel, with `terminal` as the
//!   observed terminal (the test's `tty` knob) and `confirm` the answer at a prompt (none: stdin
//!   is no terminal, so a command that changes things needs `--yes`).
//!
//! A request it cannot serve is answered `{"id", "error"}`; the process ends when stdin does.

use std::io::{BufRead, Write};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use abgen_runtime::document::RenderEvent;
use abgen_runtime::kernel::{Cancel, Invocation, Kernel, artifact_kernel_config};
use abgen_runtime::manifest::{MANIFEST_FILE_NAME, Manifest, RouteKind, read_manifest};
use abgen_runtime::plugin_cli::{self, CliIo, Renderer};
use abgen_runtime::project::cli::{CliFormat, project_cli};
use abgen_runtime::project::mcp::{McpOptions, project_mcp};
use abgen_runtime::terminal::Terminal;
use abgen_runtime::worker::{self, RenderLimits};
use serde_json::{Map, Value, json};

use super::render::find_route;
use crate::cli::{HarnessArgs, Printer};

/// Time for Node to start and the worker to say hello, on top of a render's own limit.
const START_ALLOWANCE: Duration = Duration::from_secs(20);

pub fn run(args: &HarnessArgs, printer: &Printer) -> ExitCode {
    let manifest_path = args.artifact.join(MANIFEST_FILE_NAME);
    let manifest = match read_manifest(&manifest_path) {
        Ok(manifest) => manifest,
        Err(error) => {
            printer.message(error.to_string());
            return ExitCode::from(2);
        }
    };
    let mut config = match artifact_kernel_config(
        &args.artifact,
        &manifest.digest,
        manifest.limits.render.max_bytes,
        START_ALLOWANCE,
    ) {
        Ok(config) => config,
        Err(error) => {
            printer.message(error.to_string());
            return ExitCode::from(2);
        }
    };
    // One worker, started now: every render of a test shares its providers, as the renders of
    // one MCP server process share worker 0's.
    config.workers = 1;
    config.start_workers_early = true;
    let kernel = Kernel::start(config);

    let stdin = std::io::stdin().lock();
    let mut stdout = std::io::stdout().lock();
    for line in stdin.lines() {
        let line = match line {
            Ok(line) => line,
            Err(error) => {
                printer.message(format!("harness: cannot read stdin: {error}"));
                return ExitCode::from(2);
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        let answer = answer(&kernel, &manifest, &args.artifact, &line);
        let written = serde_json::to_string(&answer)
            .map_err(std::io::Error::other)
            .and_then(|text| writeln!(stdout, "{text}"))
            .and_then(|()| stdout.flush());
        if written.is_err() {
            // The test process went away; nothing is left to answer.
            return ExitCode::SUCCESS;
        }
    }
    ExitCode::SUCCESS
}

/// The answer to one request line.
fn answer(kernel: &Kernel, manifest: &Manifest, artifact: &std::path::Path, line: &str) -> Value {
    let request: Value = match serde_json::from_str(line) {
        Ok(request) => request,
        Err(error) => {
            return json!({ "id": null, "error": format!("the request is not JSON: {error}") });
        }
    };
    let id = request.get("id").cloned().unwrap_or(Value::Null);
    let body = if let Some(render) = request.get("render") {
        render_request(kernel, manifest, render)
    } else if let Some(project) = request.get("project") {
        project_request(project)
    } else if let Some(cli) = request.get("cli") {
        cli_request(kernel, manifest, artifact, cli)
    } else {
        Err("a request holds `render`, `project` or `cli`".to_owned())
    };
    let mut answer = match body {
        Ok(Value::Object(fields)) => fields,
        Ok(other) => Map::from_iter([("value".to_owned(), other)]),
        Err(message) => Map::from_iter([("error".to_owned(), Value::String(message))]),
    };
    answer.insert("id".to_owned(), id);
    Value::Object(answer)
}

fn render_request(kernel: &Kernel, manifest: &Manifest, render: &Value) -> Result<Value, String> {
    let route_id = render
        .get("route")
        .and_then(Value::as_str)
        .ok_or("`render.route` is a route id")?;
    let route = find_route(manifest, route_id)?;
    let kind = match route.kind {
        RouteKind::Tool => worker::RouteKind::Tool,
        RouteKind::Resource => worker::RouteKind::Resource,
        RouteKind::Prompt => worker::RouteKind::Prompt,
        RouteKind::Event => worker::RouteKind::Event,
        RouteKind::Cli => worker::RouteKind::Cli,
        RouteKind::Script => worker::RouteKind::Script,
        other => {
            return Err(format!(
                "`{route_id}` is a {} route, which renders nowhere but in a browser",
                format!("{other:?}").to_lowercase()
            ));
        }
    };
    let context = match render.get("context") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(context)) => context.clone(),
        Some(_) => return Err("`render.context` is an object of axes".to_owned()),
    };
    let providers = match render.get("providers") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(providers)) => providers.clone(),
        Some(_) => return Err("`render.providers` is an object of provider values".to_owned()),
    };
    let max_elapsed_ms = manifest.render_budget_ms(route);
    let invocation = Invocation {
        route: route.id.clone(),
        kind,
        invocation: None,
        input: render.get("input").cloned().unwrap_or_else(|| json!({})),
        context,
        providers,
        limits: RenderLimits {
            max_flight_bytes: Some(manifest.limits.render.max_bytes),
            max_elapsed_ms: Some(max_elapsed_ms),
        },
    };
    let deadline = Instant::now() + START_ALLOWANCE + Duration::from_millis(max_elapsed_ms);
    let rendering = kernel
        .render(invocation, Cancel::new(), deadline)
        .map_err(|error| error.to_string())?;
    let events: Vec<RenderEvent> = rendering.collect();
    let events = serde_json::to_value(&events).map_err(|error| error.to_string())?;
    Ok(json!({ "events": events }))
}

fn project_request(project: &Value) -> Result<Value, String> {
    let events: Vec<RenderEvent> = serde_json::from_value(
        project
            .get("events")
            .cloned()
            .ok_or("`project.events` is a render's events")?,
    )
    .map_err(|error| format!("`project.events` are not render events: {error}"))?;
    let fixture = project
        .get("fixture")
        .and_then(Value::as_object)
        .ok_or("`project.fixture` is an object")?;
    let flag = |key: &str| fixture.get(key).and_then(Value::as_bool).unwrap_or(false);
    match fixture.get("surface").and_then(Value::as_str) {
        Some("mcp") => {
            let options = McpOptions {
                progress_token: fixture
                    .get("progressToken")
                    .cloned()
                    .filter(|token| !token.is_null()),
                accepts_image: flag("acceptsImage"),
                accepts_audio: flag("acceptsAudio"),
                rich_fallback: flag("richFallback"),
                value_as_text: flag("valueAsText"),
                value_in_meta: flag("valueInMeta"),
            };
            let projection = project_mcp(&events, &options);
            Ok(match projection.result {
                Ok(result) => json!({ "progress": projection.progress, "result": result }),
                Err(error) => {
                    json!({ "progress": projection.progress, "error": error.to_string() })
                }
            })
        }
        Some("cli") => {
            let format = match fixture
                .get("format")
                .and_then(Value::as_str)
                .unwrap_or("markdown")
            {
                "markdown" => CliFormat::Markdown,
                "json" => CliFormat::Json,
                "ndjson" => CliFormat::Ndjson,
                other => return Err(format!("no CLI format `{other}`: markdown, json or ndjson")),
            };
            let output = project_cli(&events, format);
            Ok(json!({ "stdout": output.stdout, "exitCode": output.exit_code }))
        }
        other => Err(format!(
            "no surface {}: a fixture's `surface` is `mcp` or `cli` (hooks answer through invokeHook)",
            other.map_or_else(|| "given".to_owned(), |name| format!("`{name}`"))
        )),
    }
}

/// Runs the plugin's command line as `abgen-host cli` does, on this kernel, with the streams
/// captured.
fn cli_request(
    kernel: &Kernel,
    manifest: &Manifest,
    artifact: &std::path::Path,
    cli: &Value,
) -> Result<Value, String> {
    let args: Vec<String> = serde_json::from_value(cli.get("args").cloned().unwrap_or(json!([])))
        .map_err(|_| "`cli.args` is a list of strings".to_owned())?;
    let terminal: Terminal = serde_json::from_value(
        cli.get("terminal")
            .cloned()
            .ok_or("`cli.terminal` is the terminal the command sees")?,
    )
    .map_err(|error| format!("`cli.terminal` is not a terminal axis value: {error}"))?;
    let mut renderer = HarnessRenderer { kernel };
    let mut io = CapturedIo {
        root: artifact.to_path_buf(),
        confirm: cli.get("confirm").and_then(Value::as_bool),
        stdout: Vec::new(),
        stderr: Vec::new(),
    };
    let exit_code = plugin_cli::run(manifest, &args, &terminal, &mut renderer, &mut io);
    Ok(json!({
        "exitCode": exit_code,
        "stdout": String::from_utf8_lossy(&io.stdout),
        "stderr": String::from_utf8_lossy(&io.stderr),
    }))
}

/// A command's render on the harness's kernel.
struct HarnessRenderer<'k> {
    kernel: &'k Kernel,
}

impl Renderer for HarnessRenderer<'_> {
    fn render(
        &mut self,
        invocation: Invocation,
        on_event: &mut dyn FnMut(&RenderEvent),
    ) -> Result<Vec<RenderEvent>, String> {
        let budget = Duration::from_millis(invocation.limits.max_elapsed_ms.unwrap_or(60_000));
        let deadline = Instant::now() + START_ALLOWANCE + budget;
        let rendering = self
            .kernel
            .render(invocation, Cancel::new(), deadline)
            .map_err(|error| error.to_string())?;
        let mut events = Vec::new();
        for event in rendering {
            on_event(&event);
            events.push(event);
        }
        Ok(events)
    }
}

/// The streams of one command, kept for the answer; the prompt answers as the test said.
struct CapturedIo {
    root: std::path::PathBuf,
    confirm: Option<bool>,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

impl CliIo for CapturedIo {
    fn confirm(&mut self, _question: &str) -> Option<bool> {
        self.confirm
    }

    fn stdout(&mut self) -> &mut dyn Write {
        &mut self.stdout
    }

    fn stderr(&mut self) -> &mut dyn Write {
        &mut self.stderr
    }

    fn run_node(
        &mut self,
        entry: &str,
        args: &[String],
        terminal: &Terminal,
    ) -> Result<u8, String> {
        let output = plugin_cli::plain_script_command(&self.root, entry, args, terminal)?
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(|error| format!("cannot start node: {error}"))?;
        self.stdout.extend_from_slice(&output.stdout);
        self.stderr.extend_from_slice(&output.stderr);
        Ok(plugin_cli::child_exit_code(output.status))
    }
}
