//! `abgen-host hook --host H --event E`: the hook hot path.
//!
//! Reads only the manifest's hook view, then stdin (bounded), decodes the host's envelope, re-checks
//! the route's `tools` selectors, and only then — for a delivery the route answers — asks the warm
//! runtime's socket for the render, and when it cannot answer (no socket, refused, digest
//! mismatch, timeout, crash) takes the route's fallback (`standalone`: a worker started for this
//! delivery; `none`: no guidance), saying which in one stderr line. Invariant: it always exits 0
//! before the binding's deadline; anything that stops an answer is one line on stderr and no
//! stdout at all.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use abgen_runtime::canonical::{CanonicalEvent, selectors_match};
use abgen_runtime::document::{Document, RenderEventKind};
use abgen_runtime::hosts::{self, DecodeInput, Decoded};
use abgen_runtime::manifest::{
    HookBinding, HookFallback, HookView, MANIFEST_FILE_NAME, read_hook_view,
};
use abgen_runtime::project::hook::project_hook;
use abgen_runtime::warm::{self, SocketPath, WarmError, WarmKind, WarmRequest};
use abgen_runtime::worker::{RenderLimits, RenderRequest, RouteKind};
use serde_json::{Value, json};

use super::standalone::{Artifact, remaining, render_once};
use super::stdin::read_bounded;
use crate::cli::env_vars::ABGEN_ARTIFACT;
use crate::cli::{FallbackArg, HookArgs, Printer};

/// Kept free before the binding's deadline to stop the worker, print and exit.
const EXIT_MARGIN: Duration = Duration::from_millis(50);

/// What the hook prints: stdout for the host (possibly empty) and at most one line for stderr.
#[derive(Debug, Default)]
struct Outcome {
    stdout: String,
    message: Option<String>,
}

impl Outcome {
    fn silent() -> Self {
        Self::default()
    }

    fn said(message: impl Into<String>) -> Self {
        Self {
            stdout: String::new(),
            message: Some(message.into()),
        }
    }
}

pub fn run(args: &HookArgs, printer: &Printer) -> ExitCode {
    let started = Instant::now();
    let outcome = answer(args, started);
    if let Some(message) = &outcome.message {
        printer.message(format!("hook {} {}: {message}", args.host, args.event));
    }
    if !outcome.stdout.is_empty() {
        // A host that stopped reading gets no answer either way; the exit code stays 0.
        let _ = printer.result(&outcome.stdout);
    }
    ExitCode::SUCCESS
}

fn answer(args: &HookArgs, started: Instant) -> Outcome {
    let view = match artifact_root().and_then(|root| {
        read_hook_view(&root.join(MANIFEST_FILE_NAME))
            .map(|view| (root, view))
            .map_err(|error| error.to_string())
    }) {
        Ok(found) => found,
        Err(message) => return Outcome::said(format!("{message}; answering with nothing")),
    };
    let (root, view) = view;
    let Some(binding) = view.binding(&args.host, &args.event) else {
        return Outcome::said(format!(
            "this artifact has no {} hook for `{}`; answering with nothing",
            args.host, args.event
        ));
    };
    let deadline = (started + Duration::from_millis(binding.deadline_ms)).checked_sub(EXIT_MARGIN);
    let deadline = deadline.unwrap_or(started);
    let (Some(decoder), Some(encoder)) = (
        hosts::decoder(&binding.decoder),
        hosts::encoder(&binding.encoder),
    ) else {
        return Outcome::said(format!(
            "this abgen-host has no decoder `{}` or encoder `{}`; answering with nothing",
            binding.decoder, binding.encoder
        ));
    };
    let Some(route_id) = binding.routes.first() else {
        return Outcome::said("the hook binding names no route; answering with nothing");
    };
    let payload = match read_bounded(view.limits.hook_input_max_bytes, deadline) {
        Ok(payload) => payload,
        Err(error) => return Outcome::said(format!("{error}; answering with nothing")),
    };
    let tools = route_list(&view, route_id, "tools");
    let opt_in = route_list(&view, route_id, "native");
    let environment = |name: &str| std::env::var(name).ok();
    let event = match decoder.decode(&DecodeInput {
        payload: &payload,
        event: &binding.event,
        native_event: &binding.native_event,
        opt_in: &opt_in,
        env: &environment,
    }) {
        Decoded::Event(event) => event,
        Decoded::Silent(silence) => {
            return Outcome::said(format!("{silence}; answering with nothing"));
        }
    };
    // The host's matcher is a coarse filter; a delivery the route did not select gets no answer
    // and no message: this is the common, cheap case.
    if !selectors_match(&tools, &args.host, event.tool.as_ref()) {
        return Outcome::silent();
    }
    let props = event_props(&event, binding);
    let warm = match try_warm(&root, &view.digest, route_id, &props, deadline) {
        Ok(document) => return answer_document(&document, binding, route_id, encoder),
        Err(error) => error,
    };
    let fallback = match args.fallback {
        Some(FallbackArg::None) => HookFallback::None,
        Some(FallbackArg::Standalone) => HookFallback::Standalone,
        None => binding.fallback,
    };
    let note = format!("warm runtime unavailable [{}]: {warm}", warm.code());
    match fallback {
        HookFallback::None => Outcome::said(format!(
            "{note}; `{route_id}` declares no fallback; answering with nothing"
        )),
        HookFallback::Standalone => {
            let artifact = Artifact {
                root,
                digest: view.digest.clone(),
                max_bytes: view.limits.render.max_bytes,
            };
            let outcome = standalone(artifact, binding, route_id, props, deadline, encoder);
            let message = match &outcome.message {
                Some(message) => format!("{note}; standalone render: {message}"),
                None => format!("{note}; rendered standalone"),
            };
            Outcome {
                stdout: outcome.stdout,
                message: Some(message),
            }
        }
    }
}

/// The props of an event route: the canonical event, its native fields and where it came from.
fn event_props(event: &CanonicalEvent, binding: &HookBinding) -> Value {
    json!({
        "canonical": event,
        "native": event.native,
        "provenance": {"host": event.host, "nativeEvent": binding.native_event},
    })
}

/// The route's final document from the warm runtime, if one answers before `deadline`.
fn try_warm(
    root: &std::path::Path,
    digest: &str,
    route_id: &str,
    props: &Value,
    deadline: Instant,
) -> Result<Document, WarmError> {
    let path = SocketPath::for_artifact(root, digest).map_err(WarmError::Path)?;
    let request = WarmRequest {
        protocol: warm::WARM_PROTOCOL,
        digest: digest.to_owned(),
        kind: WarmKind::Event,
        route: route_id.to_owned(),
        input: None,
        event: Some(props.clone()),
        deadline_ms: u64::try_from(remaining(deadline).as_millis()).unwrap_or(u64::MAX),
    };
    let events = warm::request(&path, &request, deadline)?;
    events
        .into_iter()
        .rev()
        .find_map(|event| match event.kind {
            RenderEventKind::Complete { document } => Some(document),
            _ => None,
        })
        .ok_or(WarmError::Crashed)
}

/// Renders the route on a worker started for this delivery and encodes its document.
fn standalone(
    artifact: Artifact,
    binding: &HookBinding,
    route_id: &str,
    props: Value,
    deadline: Instant,
    encoder: &hosts::Encoder,
) -> Outcome {
    let request = RenderRequest {
        id: 1,
        route: route_id.to_owned(),
        kind: RouteKind::Event,
        input: props,
        context: Default::default(),
        limits: RenderLimits {
            max_flight_bytes: Some(artifact.max_bytes),
            max_elapsed_ms: Some(u64::try_from(remaining(deadline).as_millis()).unwrap_or(0)),
        },
    };
    // The worker supervisor keeps its own deadlines; this thread bounds everything around them
    // too (finding Node runs `node --version`), so no step can hold the hook past its deadline.
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = sender.send(render_once(&artifact, &request, deadline));
    });
    let rendered = match receiver.recv_timeout(remaining(deadline) + EXIT_MARGIN / 2) {
        Ok(Ok(rendered)) => rendered,
        Ok(Err(error)) => return Outcome::said(format!("{error}; answering with nothing")),
        Err(_) => {
            return Outcome::said(format!(
                "{route_id}: no answer within the {} ms deadline; answering with nothing",
                binding.deadline_ms
            ));
        }
    };
    if let Some(error) = &rendered.worker_error {
        return Outcome::said(format!("{route_id}: {error}; answering with nothing"));
    }
    let Some(document) = rendered.document() else {
        return Outcome::said(format!(
            "{route_id}: the render never completed; answering with nothing"
        ));
    };
    answer_document(document, binding, route_id, encoder)
}

/// Projects a final hook document and encodes it for the host.
fn answer_document(
    document: &Document,
    binding: &HookBinding,
    route_id: &str,
    encoder: &hosts::Encoder,
) -> Outcome {
    let answer = match project_hook(document) {
        Ok(answer) => answer,
        Err(error) => return Outcome::said(format!("{route_id}: {error}; answering with nothing")),
    };
    let output = encoder.encode(&binding.native_event, &answer);
    let message = (!output.dropped.is_empty()).then(|| {
        format!(
            "{route_id}: {} cannot carry {}; left out",
            binding.native_event,
            output.dropped.join(" or ")
        )
    });
    Outcome {
        stdout: output.stdout,
        message,
    }
}

/// `$ABGEN_ARTIFACT`, else the directory above the running executable's `bin/` (also the
/// default of `abgen-host mcp`).
pub(super) fn artifact_root() -> Result<PathBuf, String> {
    if let Some(root) = std::env::var_os(ABGEN_ARTIFACT).filter(|root| !root.is_empty()) {
        return Ok(PathBuf::from(root));
    }
    let executable = std::env::current_exe()
        .map_err(|error| format!("cannot locate the running executable: {error}"))?;
    executable
        .parent()
        .and_then(|bin| bin.parent())
        .map(PathBuf::from)
        .ok_or_else(|| {
            format!(
                "{} is not inside an artifact's bin/ (set {ABGEN_ARTIFACT})",
                executable.display()
            )
        })
}

/// A list of strings from the route's config (`tools`, `native`); anything else reads as empty.
fn route_list(view: &HookView, route_id: &str, key: &str) -> Vec<String> {
    view.route(route_id)
        .and_then(|route| route.config.get(key))
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(|item| item.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}
