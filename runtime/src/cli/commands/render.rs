//! `abgen-host render`: read the manifest, render one route on a fresh worker, project the
//! result in the asked format. Exit 0 success, 1 represented error, 2 failed or misused; every
//! error is one line on stderr.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use abgen_runtime::kernel::Invocation;
use abgen_runtime::manifest::{MANIFEST_FILE_NAME, Manifest, Route, RouteKind, read_manifest};
use abgen_runtime::project::cli::{CliFormat, CliOutput, project_cli};
use abgen_runtime::terminal::{HostSurface, observe_process};
use abgen_runtime::worker::{self, RenderLimits};
use serde_json::Value;

use super::standalone::{Artifact, Rendered, render_once};
use crate::cli::{Printer, RenderArgs, RenderFormat};

/// Time for Node to start and the worker to say hello, on top of the render's own limit.
const START_ALLOWANCE: Duration = Duration::from_secs(20);

pub fn run(args: &RenderArgs, printer: &Printer) -> ExitCode {
    let (output, message) = match render(args) {
        Ok(rendered) => rendered,
        Err(message) => {
            printer.message(message);
            return ExitCode::from(2);
        }
    };
    if let Some(message) = message {
        printer.message(message);
    }
    match printer.result(&output.stdout) {
        Ok(()) => ExitCode::from(u8::try_from(output.exit_code).unwrap_or(2)),
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::from(2),
        Err(error) => {
            printer.message(format!("cannot write the output: {error}"));
            ExitCode::from(2)
        }
    }
}

/// The projected output, and a line for stderr when the render failed.
fn render(args: &RenderArgs) -> Result<(CliOutput, Option<String>), String> {
    let manifest_path = args.artifact.join(MANIFEST_FILE_NAME);
    let manifest = read_manifest(&manifest_path).map_err(|error| error.to_string())?;
    let route = find_route(&manifest, &args.route)?;
    let kind = match route.kind {
        RouteKind::Tool => worker::RouteKind::Tool,
        RouteKind::Event => worker::RouteKind::Event,
        other => {
            return Err(format!(
                "`{}` is a {} route; render serves tool and event routes",
                route.id,
                format!("{other:?}").to_lowercase()
            ));
        }
    };
    let input: Value = match &args.input {
        Some(text) => {
            serde_json::from_str(text).map_err(|error| format!("--input is not JSON: {error}"))?
        }
        None => Value::Object(Default::default()),
    };
    let max_elapsed_ms = manifest.render_budget_ms(route);
    let invocation = Invocation {
        route: route.id.clone(),
        kind,
        invocation: None,
        input,
        context: terminal_context(),
        providers: Default::default(),
        limits: RenderLimits {
            max_flight_bytes: Some(manifest.limits.render.max_bytes),
            max_elapsed_ms: Some(max_elapsed_ms),
        },
    };
    let artifact = Artifact::of(args.artifact.clone(), &manifest);
    let deadline = Instant::now() + START_ALLOWANCE + Duration::from_millis(max_elapsed_ms);
    let rendered =
        render_once(&artifact, invocation, deadline).map_err(|error| error.to_string())?;
    Ok((
        project(&rendered, args.format),
        failure_line(&route.id, &rendered),
    ))
}

/// The render's context: the terminal axis of this process, computed once for the invocation.
fn terminal_context() -> serde_json::Map<String, Value> {
    let terminal = observe_process(HostSurface::Cli);
    serde_json::Map::from_iter([("terminal".to_owned(), terminal.axis())])
}

pub(super) fn find_route<'m>(manifest: &'m Manifest, id: &str) -> Result<&'m Route, String> {
    manifest
        .routes
        .iter()
        .find(|route| route.id == id)
        .ok_or_else(|| {
            let known: Vec<&str> = manifest
                .routes
                .iter()
                .filter(|route| matches!(route.kind, RouteKind::Tool | RouteKind::Event))
                .map(|route| route.id.as_str())
                .collect();
            format!(
                "no route `{id}` in this artifact; its tool and event routes: {}",
                known.join(", ")
            )
        })
}

fn project(rendered: &Rendered, format: RenderFormat) -> CliOutput {
    let cli_format = match format {
        RenderFormat::Ndjson => CliFormat::Ndjson,
        RenderFormat::Markdown => CliFormat::Markdown,
        RenderFormat::Json => CliFormat::Json,
        RenderFormat::Document => {
            // The same exit code as every other format; only the printed text differs.
            let exit_code = project_cli(&rendered.events, CliFormat::Json).exit_code;
            let stdout = rendered
                .document()
                .and_then(|document| serde_json::to_string(document).ok())
                .map_or_else(String::new, |json| json + "\n");
            return CliOutput { stdout, exit_code };
        }
    };
    project_cli(&rendered.events, cli_format)
}

/// One line naming why the render failed, if it did.
fn failure_line(route: &str, rendered: &Rendered) -> Option<String> {
    let document = rendered.document()?;
    match (&document.status, &document.root) {
        (
            abgen_runtime::document::Status::Failed,
            abgen_runtime::document::Node::Error { code, message },
        ) => Some(format!("{route}: the render failed ({code}): {message}")),
        _ => None,
    }
}
