//! `abgen-host hook --host H --event E`: the hook hot path.
//!
//! Reads only the manifest's hook view, then stdin (bounded by the binding's payload budget),
//! decodes the host's envelope, re-checks the route's `tools` selectors, and only then — for a
//! delivery the route answers — asks the warm runtime's socket for the render, and when it cannot
//! answer (no socket, refused, digest mismatch, timeout, crash) takes the route's fallback
//! (`standalone`: a worker started for this delivery; `none`: no guidance), saying which in one
//! stderr line. The warm attempt gets only the part of the deadline that leaves a standalone
//! fallback its cold-worker time.
//!
//! Whatever stops the route's own answer — a payload too large, unreadable, cut or lossy, a
//! render that hangs, throws or crashes, no time left — is a failure, answered as the binding's
//! `failure` says: `open` prints nothing (the host proceeds), `closed` prints the host's native
//! deny with a reason naming the failure. A payload that is another host's, event's or case's is
//! not this hook's delivery and is always silence. Invariant: it always exits 0 before the
//! binding's deadline, with at most one line of its own on stderr, after the route's log records
//! (`agent().log`), one line each. With `ABGEN_HOOK_LOG` set, the same
//! line, who answered and the envelope's top-level fields are appended to that file as one JSON
//! line.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use abgen_runtime::canonical::{CanonicalEvent, selectors_match};
use abgen_runtime::document::{Document, RenderEvent};
use abgen_runtime::hosts::{self, DecodeInput, Decoded};
use abgen_runtime::kernel::Invocation;
use abgen_runtime::manifest::{
    DEFAULT_PAYLOAD_MAX_DEPTH, HookBinding, HookFailure, HookFallback, HookView,
    MANIFEST_FILE_NAME, read_hook_view,
};
use abgen_runtime::project::hook::{HookAnswer, project_hook};
use abgen_runtime::warm::{self, SocketPath, WarmError, WarmKind, WarmRequest};
use abgen_runtime::worker::{RenderLimits, RouteKind};
use serde_json::{Value, json};

use super::standalone::{Artifact, remaining, render_once};
use super::stdin::read_bounded;
use crate::cli::env_vars::{ABGEN_ARTIFACT, ABGEN_HOOK_LOG};
use crate::cli::{FallbackArg, HookArgs, Printer};

/// Kept free before the binding's deadline to stop the worker, print and exit.
const EXIT_MARGIN: Duration = Duration::from_millis(50);
/// Kept free after a render gives up, to encode the failure's answer and print it on a loaded
/// machine: a deny that fails closed must reach the host, not only be decided. With the exit
/// margins the host gets it at least 500 ms before its timeout; a loaded 2-core machine was seen
/// to need 250 ms of that for process start and exit.
const ANSWER_MARGIN: Duration = Duration::from_millis(200);

/// What the hook prints: stdout for the host (possibly empty) and at most one line for stderr,
/// after the route's log records.
#[derive(Debug, Default)]
struct Outcome {
    stdout: String,
    message: Option<String>,
    by: AnsweredBy,
    /// The route's log records, as stderr lines (`RenderEvent::log_line`).
    logs: Vec<String>,
}

/// Who rendered a delivery's answer.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum AnsweredBy {
    /// No render answered: the delivery is not the route's, or nothing could render it.
    #[default]
    Nobody,
    /// The warm runtime of a running MCP server.
    Warm,
    /// A worker started for this delivery (the route's `standalone` fallback).
    Standalone,
}

impl AnsweredBy {
    fn as_str(self) -> &'static str {
        match self {
            Self::Nobody => "nobody",
            Self::Warm => "warm",
            Self::Standalone => "standalone",
        }
    }
}

impl Outcome {
    fn silent() -> Self {
        Self::default()
    }

    fn said(message: impl Into<String>) -> Self {
        Self {
            message: Some(message.into()),
            ..Self::default()
        }
    }
}

/// How this delivery answers a failure: the binding's mode, through the host's encoder.
struct Guard<'a> {
    binding: &'a HookBinding,
    encoder: &'static hosts::Encoder,
}

impl Guard<'_> {
    /// Whether a failure is answered with a deny (the mode is closed and the event can deny).
    fn closed(&self) -> bool {
        self.binding.failure == HookFailure::Closed && self.encoder.accepts.deny
    }

    /// The answer to a failure described by `reason` (a sentence without a final period).
    fn fail(&self, reason: &str) -> Outcome {
        if !self.closed() {
            return Outcome::said(format!("{reason}; answering with nothing"));
        }
        let answer = HookAnswer {
            deny: vec![format!(
                "Blocked because the guard could not decide: {reason}. It fails closed, so what it cannot check is denied."
            )],
            ..HookAnswer::default()
        };
        let output = self.encoder.encode(&self.binding.native_event, &answer);
        Outcome {
            stdout: output.stdout,
            message: Some(format!("{reason}; failing closed with a deny")),
            by: AnsweredBy::Nobody,
            logs: Vec::new(),
        }
    }
}

pub fn run(args: &HookArgs, printer: &Printer) -> ExitCode {
    let started = Instant::now();
    let log = std::env::var_os(ABGEN_HOOK_LOG).filter(|log| !log.is_empty());
    let mut fields = log.is_some().then(Vec::new);
    let outcome = answer(args, started, fields.as_mut());
    for line in &outcome.logs {
        printer.message(format!("hook {} {}: {line}", args.host, args.event));
    }
    if let Some(message) = &outcome.message {
        printer.message(format!("hook {} {}: {message}", args.host, args.event));
    }
    if !outcome.stdout.is_empty() {
        // A host that stopped reading gets no answer either way; the exit code stays 0.
        let _ = printer.result(&outcome.stdout);
    }
    if let Some(log) = log {
        let delivery = Delivery {
            args,
            outcome: &outcome,
            fields: fields.as_deref().unwrap_or_default(),
            elapsed: started.elapsed(),
        };
        append_log(&PathBuf::from(log), &delivery);
    }
    ExitCode::SUCCESS
}

/// One delivery, as the hook log records it.
struct Delivery<'a> {
    args: &'a HookArgs,
    outcome: &'a Outcome,
    /// The envelope's top-level fields, sorted: what the host actually sends.
    fields: &'a [String],
    elapsed: Duration,
}

/// Appends the delivery's line to the hook log. A log that cannot be written changes nothing
/// about the answer, which the host already has.
fn append_log(log: &std::path::Path, delivery: &Delivery<'_>) {
    let line = json!({
        "host": delivery.args.host,
        "event": delivery.args.event,
        "answeredBy": delivery.outcome.by.as_str(),
        "answered": !delivery.outcome.stdout.is_empty(),
        "message": delivery.outcome.message,
        "fields": delivery.fields,
        "elapsedMs": u64::try_from(delivery.elapsed.as_millis()).unwrap_or(u64::MAX),
    });
    let _ = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .and_then(|mut file| std::io::Write::write_all(&mut file, format!("{line}\n").as_bytes()));
}

/// Answers one delivery; `fields`, when the hook log wants them, gets the envelope's top-level
/// field names.
fn answer(args: &HookArgs, started: Instant, fields: Option<&mut Vec<String>>) -> Outcome {
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
    let guard = Guard { binding, encoder };
    let Some(route_id) = binding.routes.first() else {
        return guard.fail("the hook binding names no route");
    };
    let budget = binding
        .payload_max_bytes
        .unwrap_or(view.limits.hook_input_max_bytes);
    let payload = match read_bounded(budget, deadline) {
        Ok(payload) => payload,
        Err(error) => return guard.fail(&error.to_string()),
    };
    if let (Some(fields), Ok(Value::Object(envelope))) =
        (fields, serde_json::from_slice::<Value>(&payload))
    {
        fields.extend(envelope.keys().cloned());
    }
    let tools = route_list(&view, route_id, "tools");
    let opt_in = route_list(&view, route_id, "native");
    let environment = |name: &str| std::env::var(name).ok();
    let max_depth = binding
        .payload_max_depth
        .unwrap_or(DEFAULT_PAYLOAD_MAX_DEPTH);
    let event = match decoder.decode(&DecodeInput {
        payload: &payload,
        event: &binding.event,
        native_event: &binding.native_event,
        opt_in: &opt_in,
        env: &environment,
        max_depth: usize::try_from(max_depth).unwrap_or(usize::MAX),
    }) {
        Decoded::Event(event) => event,
        Decoded::Silent(silence) if silence.is_unreadable() => {
            return guard.fail(&silence.to_string());
        }
        Decoded::Silent(silence) => {
            return Outcome::said(format!("{silence}; answering with nothing"));
        }
    };
    // The host's matcher is a coarse filter; a delivery the route did not select gets no answer
    // and no message: this is the common, cheap case.
    if !selectors_match(&tools, &args.host, event.tool.as_ref()) {
        return Outcome::silent();
    }
    // A guard that fails closed does not judge what it cannot see exactly; one that fails open
    // hands the marked event to the route, which can read the flags itself.
    if guard.closed()
        && let Some(reason) = inexact(&event, max_depth)
    {
        return guard.fail(&reason);
    }
    let fallback = match args.fallback {
        Some(FallbackArg::None) => HookFallback::None,
        Some(FallbackArg::Standalone) => HookFallback::Standalone,
        None => binding.fallback,
    };
    // The warm attempt leaves the fallback its own budget: a cold worker's time for
    // `standalone`, the time to print a failure's answer otherwise.
    let kept = match fallback {
        HookFallback::Standalone => binding
            .cold_worker_ms
            .map_or(ANSWER_MARGIN, Duration::from_millis),
        HookFallback::None => ANSWER_MARGIN,
    };
    let warm_deadline = deadline.checked_sub(kept).unwrap_or(started).max(started);
    let props = event_props(&event, binding);
    let warm = match try_warm(&root, &view.digest, route_id, &props, warm_deadline) {
        Ok((document, logs)) => {
            return Outcome {
                by: AnsweredBy::Warm,
                logs,
                ..answer_document(&document, &guard, route_id)
            };
        }
        Err(error) => error,
    };
    let note = format!("warm runtime unavailable [{}]: {warm}", warm.code());
    match fallback {
        HookFallback::None => guard.fail(&format!("{note}; `{route_id}` declares no fallback")),
        HookFallback::Standalone => {
            // Event routes belong to no MCP server.
            let artifact = Artifact {
                root,
                digest: view.digest.clone(),
                max_bytes: view.limits.render.max_bytes,
                servers: std::collections::BTreeMap::new(),
            };
            let outcome = standalone(artifact, &guard, route_id, props, deadline);
            let message = match &outcome.message {
                Some(message) => format!("{note}; standalone render: {message}"),
                None => format!("{note}; rendered standalone"),
            };
            Outcome {
                stdout: outcome.stdout,
                message: Some(message),
                by: AnsweredBy::Standalone,
                logs: outcome.logs,
            }
        }
    }
}

/// Why the route would not see exactly what the host sent, if it would not.
fn inexact(event: &CanonicalEvent, max_depth: u64) -> Option<String> {
    if let Some(tool) = &event.tool {
        if tool.truncated {
            return Some(format!(
                "the {} input is nested deeper than {max_depth} levels, so part of it was cut",
                tool.name
            ));
        }
        if tool.lossy {
            return Some(format!(
                "the {} input holds a lone UTF-16 surrogate, read as U+FFFD",
                tool.name
            ));
        }
    }
    match &event.prompt {
        Some(prompt) if prompt.truncated => Some("the prompt was cut".to_owned()),
        Some(prompt) if prompt.lossy => {
            Some("the prompt holds a lone UTF-16 surrogate, read as U+FFFD".to_owned())
        }
        _ => None,
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

/// The route's final document from the warm runtime, and its log records, if one answers before
/// `deadline`.
fn try_warm(
    root: &std::path::Path,
    digest: &str,
    route_id: &str,
    props: &Value,
    deadline: Instant,
) -> Result<(Document, Vec<String>), WarmError> {
    let paths = SocketPath::candidates_for_artifact(root, digest).map_err(WarmError::Path)?;
    let request = WarmRequest {
        protocol: warm::WARM_PROTOCOL,
        digest: digest.to_owned(),
        kind: WarmKind::Event,
        route: route_id.to_owned(),
        input: None,
        event: Some(props.clone()),
        deadline_ms: u64::try_from(remaining(deadline).as_millis()).unwrap_or(u64::MAX),
    };
    let events = warm::request_first(&paths, &request, deadline)?;
    let logs = events.iter().filter_map(RenderEvent::log_line).collect();
    Ok((warm::final_document(events)?, logs))
}

/// Renders the route on a worker started for this delivery and encodes its document; the render
/// gives up [`ANSWER_MARGIN`] before `deadline`, so a failure's answer still fits.
fn standalone(
    artifact: Artifact,
    guard: &Guard<'_>,
    route_id: &str,
    props: Value,
    deadline: Instant,
) -> Outcome {
    let render_deadline = deadline.checked_sub(ANSWER_MARGIN).unwrap_or(deadline);
    let invocation = Invocation {
        route: route_id.to_owned(),
        kind: RouteKind::Event,
        invocation: None,
        input: props,
        context: Default::default(),
        providers: Default::default(),
        limits: RenderLimits {
            max_flight_bytes: Some(artifact.max_bytes),
            max_elapsed_ms: Some(
                u64::try_from(remaining(render_deadline).as_millis()).unwrap_or(0),
            ),
        },
    };
    // The worker supervisor keeps its own deadlines; this thread bounds everything around them
    // too (finding Node runs `node --version`), so no step can hold the hook past its deadline.
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = sender.send(render_once(&artifact, invocation, render_deadline));
    });
    let rendered = match receiver.recv_timeout(remaining(render_deadline) + ANSWER_MARGIN / 2) {
        Ok(Ok(rendered)) => rendered,
        Ok(Err(error)) => return guard.fail(&error.to_string()),
        Err(_) => {
            return guard.fail(&format!(
                "{route_id}: no answer within the {} ms deadline",
                guard.binding.deadline_ms
            ));
        }
    };
    let logs = rendered
        .events
        .iter()
        .filter_map(RenderEvent::log_line)
        .collect();
    let Some(document) = rendered.document() else {
        return Outcome {
            logs,
            ..guard.fail(&format!("{route_id}: the render never completed"))
        };
    };
    Outcome {
        logs,
        ..answer_document(document, guard, route_id)
    }
}

/// Projects a final hook document and encodes it for the host; a document a hook cannot carry
/// (a failed render, a thrown error, content other than context, deny and notice) is a failure.
fn answer_document(document: &Document, guard: &Guard<'_>, route_id: &str) -> Outcome {
    let answer = match project_hook(document) {
        Ok(answer) => answer,
        Err(error) => return guard.fail(&format!("{route_id}: {error}")),
    };
    let native_event = &guard.binding.native_event;
    let output = guard.encoder.encode(native_event, &answer);
    let message = (!output.dropped.is_empty()).then(|| {
        format!(
            "{route_id}: {native_event} cannot carry {}; left out",
            output.dropped.join(" or ")
        )
    });
    Outcome {
        stdout: output.stdout,
        message,
        by: AnsweredBy::Nobody,
        logs: Vec::new(),
    }
}

/// `$ABGEN_ARTIFACT`, else the artifact the running executable is in (see
/// [`artifact_root_of`]; also the default of `abgen-host mcp` and `abgen-host web`).
pub(super) fn artifact_root() -> Result<PathBuf, String> {
    if let Some(root) = std::env::var_os(ABGEN_ARTIFACT).filter(|root| !root.is_empty()) {
        return Ok(PathBuf::from(root));
    }
    let executable = std::env::current_exe()
        .map_err(|error| format!("cannot locate the running executable: {error}"))?;
    artifact_root_of(&executable).ok_or_else(|| {
        format!(
            "{} is not inside an artifact's bin/ (set {ABGEN_ARTIFACT})",
            executable.display()
        )
    })
}

/// The artifact root of an `abgen-host` at `bin/abgen-host` (one platform) or at
/// `bin/<platform>/abgen-host` (an `abgen build --platform` artifact, run by the launcher at
/// `bin/abgen-host`): the folder above `bin/`. Judged by folder names alone, as this runs on
/// every hook; an executable elsewhere reads the folder above its own (whose missing manifest
/// then says what is wrong).
fn artifact_root_of(executable: &Path) -> Option<PathBuf> {
    let folder = executable.parent()?;
    let above = folder.parent()?;
    let platform_folder =
        folder.file_name() != Some("bin".as_ref()) && above.file_name() == Some("bin".as_ref());
    match above.parent() {
        Some(root) if platform_folder => Some(root.to_owned()),
        _ => Some(above.to_owned()),
    }
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

#[cfg(test)]
mod artifact_root_tests {
    use super::*;

    #[test]
    fn a_platform_binary_and_a_single_one_find_the_same_root() {
        let root = Path::new("/plugins/curator");
        for executable in [
            "/plugins/curator/bin/abgen-host",
            "/plugins/curator/bin/linux-x64-gnu/abgen-host",
            "/plugins/curator/bin/darwin-arm64/abgen-host",
        ] {
            assert_eq!(
                artifact_root_of(Path::new(executable)).as_deref(),
                Some(root),
                "{executable}"
            );
        }
        // Outside any bin/: the folder above the executable's, as before platforms.
        assert_eq!(
            artifact_root_of(Path::new("/src/abgen/target/debug/abgen-host")).as_deref(),
            Some(Path::new("/src/abgen/target"))
        );
    }
}
