//! End to end: bundle a tiny worker (tests/worker-fixture) with the project's esbuild, start it
//! under the real Node through `worker::Worker`, and render through React's Flight server into
//! render events. Needs the npm workspace installed (`npm ci` at the repository root).

use std::time::{Duration, Instant};

use abgen_runtime::document::{DocumentLimits, RenderEvent, RenderEventKind, Status};
use abgen_runtime::worker::{
    Abort, RenderRequest, RouteKind, SupervisedWorker, Worker, WorkerError, WorkerMessage,
};
use serde_json::{Value, json};

#[path = "worker-fixture/support.rs"]
mod support;

use support::bundled_worker;

fn request(id: u64, route: &str, input: serde_json::Value) -> RenderRequest {
    RenderRequest {
        id,
        route: route.into(),
        kind: RouteKind::Tool,
        invocation: None,
        input,
        context: Default::default(),
        providers: Default::default(),
        limits: Default::default(),
    }
}

fn render(
    worker: &mut Worker,
    request: &RenderRequest,
    timeout: Duration,
) -> (Vec<RenderEvent>, Result<(), WorkerError>) {
    let mut events = Vec::new();
    let outcome = worker.render_events(request, DocumentLimits::default(), timeout, |event| {
        events.push(event)
    });
    (events, outcome)
}

#[test]
fn a_real_render_streams_progress_shell_replace_and_complete() {
    let directory = tempfile::tempdir().unwrap();
    let mut worker = Worker::start(&bundled_worker(directory.path(), "test-artifact-digest"))
        .expect("worker starts");

    let (events, outcome) = render(
        &mut worker,
        &request(1, "tool:demo/greet", json!({"name": "Ada"})),
        Duration::from_secs(20),
    );
    outcome.expect("the render succeeds");
    let types: Vec<&str> = events
        .iter()
        .map(|event| match event.kind {
            RenderEventKind::Shell { .. } => "shell",
            RenderEventKind::Progress { .. } => "progress",
            RenderEventKind::Replace { .. } => "replace",
            RenderEventKind::Error { .. } => "error",
            RenderEventKind::Complete { .. } => "complete",
            RenderEventKind::Log { .. } => "log",
        })
        .collect();
    assert_eq!(types, ["progress", "shell", "replace", "complete"]);
    let RenderEventKind::Complete { document } = &events[3].kind else {
        unreachable!()
    };
    assert_eq!(
        serde_json::to_value(document).unwrap(),
        json!({
            "version": 1,
            "status": "success",
            "root": {"kind": "result", "children": [
                {"kind": "markdown", "text": "# Hello Ada ×1"},
                {"kind": "markdown", "text": "Nice to meet you, Ada."}
            ]},
            "value": {"greeted": "Ada"}
        })
    );

    // The same worker serves the next render; bad input is refused with the path named.
    let (events, outcome) = render(
        &mut worker,
        &request(2, "tool:demo/greet", json!({"name": 3})),
        Duration::from_secs(20),
    );
    outcome.expect("a refused input is not a worker failure");
    let RenderEventKind::Error {
        error,
        boundary_id: None,
    } = &events[0].kind
    else {
        panic!("{events:?}")
    };
    assert_eq!(error.code, "invalid-input");
    assert!(error.message.contains("`name`"), "{}", error.message);
    let RenderEventKind::Complete { document } = &events[1].kind else {
        panic!("{events:?}")
    };
    assert_eq!(document.status, Status::Failed);

    let (events, _) = render(
        &mut worker,
        &request(3, "tool:demo/missing", json!({})),
        Duration::from_secs(20),
    );
    let RenderEventKind::Error { error, .. } = &events[0].kind else {
        panic!("{events:?}")
    };
    assert_eq!(error.code, "unknown-route");
}

#[test]
fn a_hung_render_is_killed_at_its_deadline() {
    let directory = tempfile::tempdir().unwrap();
    let mut worker = Worker::start(&bundled_worker(directory.path(), "test-artifact-digest"))
        .expect("worker starts");
    let (events, outcome) = render(
        &mut worker,
        &request(1, "tool:demo/hang", json!({})),
        Duration::from_millis(500),
    );
    assert!(
        matches!(outcome, Err(WorkerError::Timeout(_))),
        "{outcome:?}"
    );
    let RenderEventKind::Complete { document } = &events.last().unwrap().kind else {
        panic!("{events:?}")
    };
    assert_eq!(document.status, Status::Failed);
    assert!(matches!(
        worker.render(
            &request(2, "tool:demo/greet", json!({"name": "x"})),
            Duration::from_secs(1)
        ),
        Err(WorkerError::Exited)
    ));
}

#[test]
fn a_worker_built_for_another_artifact_is_refused() {
    let directory = tempfile::tempdir().unwrap();
    let error = Worker::start(&bundled_worker(directory.path(), "some-other-digest")).unwrap_err();
    let message = error.to_string();
    assert!(
        matches!(error, WorkerError::IdentityMismatch { .. }),
        "{message}"
    );
    assert!(
        message.contains("test-artifact-digest") && message.contains("some-other-digest"),
        "{message}"
    );
}

/// The final document of a render of `tool:demo/result` in `mode`, as JSON.
fn result_mode(worker: &mut Worker, id: u64, mode: &str) -> serde_json::Value {
    let (events, outcome) = render(
        worker,
        &request(id, "tool:demo/result", json!({"mode": mode})),
        Duration::from_secs(20),
    );
    outcome.expect("the render reaches its end");
    let Some(RenderEventKind::Complete { document }) = events.last().map(|event| &event.kind)
    else {
        panic!("{events:?}")
    };
    serde_json::to_value(document).unwrap()
}

#[test]
fn only_result_values_are_checked_against_the_result_schema_wherever_they_render() {
    let directory = tempfile::tempdir().unwrap();
    let mut worker = Worker::start(&bundled_worker(directory.path(), "test-artifact-digest"))
        .expect("worker starts");

    // A root <Agent.Error> is a represented error, not an invalid result.
    assert_eq!(
        result_mode(&mut worker, 1, "error-root"),
        json!({
            "version": 1,
            "status": "represented-error",
            "root": {"kind": "result", "children": [
                {"kind": "error", "code": "not-found", "message": "No book with id `nope`."}
            ]}
        })
    );
    // A result rendered inside an async component, after an await, is checked there.
    assert_eq!(
        result_mode(&mut worker, 2, "deep-good"),
        json!({
            "version": 1,
            "status": "success",
            "root": {"kind": "result", "children": [{"kind": "text", "text": "deep"}]},
            "value": {"count": 3}
        })
    );
    for (id, mode) in [(3, "deep-bad"), (4, "root-bad")] {
        let document = result_mode(&mut worker, id, mode);
        assert_eq!(document["status"], "failed", "{mode}: {document}");
        assert_eq!(
            document["root"]["code"], "invalid-result",
            "{mode}: {document}"
        );
        let message = document["root"]["message"].as_str().unwrap();
        assert!(message.contains("`count`"), "{mode}: {message}");
    }
    // Under Suspense the invalid result is that boundary's represented error.
    let document = result_mode(&mut worker, 5, "deep-bad-in-suspense");
    assert_eq!(document["status"], "represented-error", "{document}");
    assert_eq!(document["root"]["children"][0]["code"], "invalid-result");
}

#[test]
fn an_abort_reaches_the_routes_child_process_and_fetch() {
    let directory = tempfile::tempdir().unwrap();
    let marker = directory.path().join("aborted.txt");
    let mut worker = Worker::start(&bundled_worker(directory.path(), "test-artifact-digest"))
        .expect("worker starts");
    let mut stream = worker
        .render(
            &request(1, "tool:demo/abortable", json!({"marker": marker})),
            Duration::from_secs(20),
        )
        .expect("the render starts");
    let mut ended_by = None;
    while let Some(item) = stream.next() {
        match item.expect("the worker keeps to the protocol") {
            // The route has started its child process and its fetch: cancel the render.
            (WorkerMessage::Progress { .. }, _) => {
                stream.abort("cancelled by the client").unwrap();
            }
            (message @ (WorkerMessage::End { .. } | WorkerMessage::Error { .. }), _) => {
                ended_by = Some(message);
            }
            _ => {}
        }
    }
    assert!(
        matches!(ended_by, Some(WorkerMessage::End { .. })),
        "{ended_by:?}"
    );
    assert_eq!(
        support::aborted_route_report(&marker, Duration::from_secs(10)),
        support::ABORTED_ROUTE_REPORT
    );
}

#[test]
fn a_crashed_worker_fails_its_render_honestly_and_is_restarted_for_the_next() {
    let directory = tempfile::tempdir().unwrap();
    let mut supervised =
        SupervisedWorker::new(bundled_worker(directory.path(), "test-artifact-digest"));
    assert_eq!(
        supervised.starts(),
        0,
        "nothing starts before the first render"
    );

    let mut events = Vec::new();
    let outcome = supervised.render_events_until(
        &request(1, "tool:demo/crash", json!({})),
        DocumentLimits::default(),
        Instant::now() + Duration::from_secs(20),
        &Abort::never(),
        |event| events.push(event),
    );
    assert!(matches!(outcome, Err(WorkerError::Exited)), "{outcome:?}");
    let Some(RenderEventKind::Complete { document }) = events.last().map(|event| &event.kind)
    else {
        panic!("{events:?}")
    };
    assert_eq!(document.status, Status::Failed);
    assert_eq!(
        serde_json::to_value(document).unwrap()["root"]["code"],
        "worker-exited"
    );

    let mut events = Vec::new();
    supervised
        .render_events_until(
            &request(2, "tool:demo/greet", json!({"name": "Ada"})),
            DocumentLimits::default(),
            Instant::now() + Duration::from_secs(20),
            &Abort::never(),
            |event| events.push(event),
        )
        .expect("a fresh worker serves the next render");
    let Some(RenderEventKind::Complete { document }) = events.last().map(|event| &event.kind)
    else {
        panic!("{events:?}")
    };
    assert_eq!(document.status, Status::Success);
    assert_eq!(supervised.starts(), 2);
}

#[test]
fn a_worker_started_on_a_thread_that_has_ended_keeps_serving() {
    let directory = tempfile::tempdir().unwrap();
    let config = bundled_worker(directory.path(), "test-artifact-digest");
    let mut worker = std::thread::spawn(move || Worker::start(&config).expect("worker starts"))
        .join()
        .unwrap();
    // Linux's parent-death signal fires when the thread that forked exits, not the process: a
    // worker forked on the thread above would be killed by now.
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        worker.is_healthy(),
        "the worker outlived the thread that started it"
    );
    let (events, outcome) = render(
        &mut worker,
        &request(1, "tool:demo/greet", json!({"name": "Ada"})),
        Duration::from_secs(20),
    );
    outcome.expect("the render succeeds");
    let Some(RenderEventKind::Complete { document }) = events.last().map(|event| &event.kind)
    else {
        panic!("{events:?}")
    };
    assert_eq!(document.status, Status::Success);
}

#[test]
fn agent_reports_the_identity_axes_it_knows_and_says_why_for_the_others() {
    let directory = tempfile::tempdir().unwrap();
    let mut worker = Worker::start(&bundled_worker(directory.path(), "test-artifact-digest"))
        .expect("worker starts");
    let mut with_host = request(1, "tool:demo/context", json!({}));
    with_host.context.insert(
        "host".into(),
        json!({"state": "available", "value": "claude", "source": "native"}),
    );
    with_host.context.insert(
        "workspace".into(),
        json!({"state": "available", "value": "/home/reader/notes", "source": "derived"}),
    );
    let (events, outcome) = render(&mut worker, &with_host, Duration::from_secs(20));
    outcome.expect("the render succeeds");
    let Some(RenderEventKind::Complete { document }) = events.last().map(|event| &event.kind)
    else {
        panic!("{events:?}")
    };
    let document = serde_json::to_value(document).unwrap();
    assert_eq!(document["value"], json!({"sameSignal": true}));
    let not_provided = |key: &str| json!({"state": "unavailable", "code": "not-provided", "reason": format!("the tool call carries no {key}")});
    let mut axes = document["root"]["children"][0]["value"].clone();
    // The plugin axis's roots come from this process's environment and working directory (the
    // packages/runtime tests pin them); here their shape is what is checked.
    let plugin = axes["plugin"]["value"].as_object_mut().unwrap();
    let root = plugin
        .remove("root")
        .and_then(|root| root.as_str().map(str::to_owned));
    let state_root = plugin
        .remove("stateRoot")
        .and_then(|root| root.as_str().map(str::to_owned));
    assert!(root.is_some_and(|root| root.starts_with('/')), "{axes}");
    let state_root = state_root.unwrap_or_default();
    let digest16 = state_root.rsplit('-').next().unwrap_or_default();
    assert!(
        std::env::var_os("AGENT_BUNDLE_STATE_ROOT").is_some()
            || (digest16.len() == 16 && digest16.bytes().all(|b| b.is_ascii_hexdigit())),
        "{state_root}"
    );
    assert_eq!(
        axes,
        json!({
            "route": {"id": "tool:demo/context", "kind": "tool"},
            "invocation": {"kind": "tool"},
            "host": {"state": "available", "value": "claude", "source": "native"},
            "session": not_provided("session"),
            "workspace": {"state": "available", "value": "/home/reader/notes", "source": "derived"},
            "plugin": {"state": "available", "value": {"digest": "test-artifact-digest"}, "source": "derived"},
            "actor": not_provided("actor"),
            "lineage": {"state": "unavailable", "code": "not-provided", "reason": "no lineage registry exists yet"},
            "terminal": not_provided("terminal"),
        })
    );
}

/// Seed 000's and 002's JSX forms, rendered by the real worker and projected for MCP: the
/// container result merges into the route's (one result node, the route's value, metadata merged
/// key by key with the container winning, as `_meta`), a message-only progress fallback becomes
/// one progress notification, a resource link keeps its name, an error takes its text.
#[test]
fn the_seeds_jsx_forms_render_and_project_to_mcp() {
    use abgen_runtime::project::mcp::{McpOptions, McpProgress, call_tool_result};

    let directory = tempfile::tempdir().unwrap();
    let mut worker = Worker::start(&bundled_worker(directory.path(), "test-artifact-digest"))
        .expect("worker starts");
    let (events, outcome) = render(
        &mut worker,
        &request(1, "tool:demo/seed-forms", json!({"id": "nope"})),
        Duration::from_secs(20),
    );
    outcome.expect("the render reaches its end");
    let Some(RenderEventKind::Complete { document }) = events.last().map(|event| &event.kind)
    else {
        panic!("{events:?}")
    };
    assert_eq!(
        serde_json::to_value(document).unwrap(),
        json!({
            "version": 1,
            "status": "represented-error",
            "root": {"kind": "result", "children": [
                {"kind": "markdown", "text": "# Lookup"},
                {"kind": "resource", "uri": "audiobooks://catalog", "name": "Catalog"},
                {"kind": "error", "code": "E_NOT_FOUND", "message": "No entry is named nope."}
            ]},
            "value": {"found": false},
            "metadata": {"route": "tool:demo/seed-forms", "shell": "layout", "trace": "t-1"}
        })
    );

    let options = McpOptions {
        progress_token: Some(json!("p-1")),
        accepts_image: false,
        accepts_audio: false,
        ..McpOptions::default()
    };
    let mut progress = McpProgress::new(options.progress_token.clone());
    let notifications: Vec<_> = events
        .iter()
        .flat_map(|event| progress.on_event(event))
        .collect();
    assert_eq!(
        notifications,
        [json!({"progressToken": "p-1", "progress": 1, "message": "Inspecting files"})],
        "{events:?}"
    );
    assert_eq!(
        call_tool_result(document, &options).unwrap(),
        json!({
            "content": [
                {"type": "text", "text": "# Lookup"},
                {"type": "resource_link", "name": "Catalog", "uri": "audiobooks://catalog"},
                {"type": "text", "text": "[E_NOT_FOUND] No entry is named nope."}
            ],
            "structuredContent": {"found": false},
            "isError": true,
            "_meta": {"route": "tool:demo/seed-forms", "shell": "layout", "trace": "t-1"}
        })
    );
}

/// A component route (named schema exports, a synchronous default component) gets its input and
/// the request's abort signal as props.
#[test]
fn a_component_route_receives_input_and_signal() {
    let directory = tempfile::tempdir().unwrap();
    let mut worker = Worker::start(&bundled_worker(directory.path(), "test-artifact-digest"))
        .expect("worker starts");
    let (events, outcome) = render(
        &mut worker,
        &request(1, "tool:demo/component", json!({"root": "shelves"})),
        Duration::from_secs(20),
    );
    outcome.expect("the render reaches its end");
    let Some(RenderEventKind::Complete { document }) = events.last().map(|event| &event.kind)
    else {
        panic!("{events:?}")
    };
    assert_eq!(document.status, Status::Success, "{document:?}");
    assert_eq!(
        document.value,
        Some(json!({"root": "shelves", "signal": true}))
    );
}

/// `agent().log` records arrive as `log` events, in order, before the final document; data that
/// JSON cannot hold is refused at the route's call, not sent.
#[test]
fn a_routes_log_records_are_log_events_in_order() {
    let directory = tempfile::tempdir().unwrap();
    let mut worker = Worker::start(&bundled_worker(directory.path(), "test-artifact-digest"))
        .expect("worker starts");
    let (events, outcome) = render(
        &mut worker,
        &request(1, "tool:demo/log", json!({})),
        Duration::from_secs(20),
    );
    outcome.expect("the render succeeds");
    let logs: Vec<Value> = events
        .iter()
        .filter(|event| matches!(event.kind, RenderEventKind::Log { .. }))
        .map(|event| serde_json::to_value(event).unwrap())
        .collect();
    assert_eq!(
        logs,
        [
            json!({"type": "log", "sequence": 0, "level": "info", "message": "starting", "data": {"step": 1}}),
            json!({"type": "log", "sequence": 1, "level": "warning", "message": "almost done"}),
        ]
    );
    let RenderEventKind::Complete { document } = &events.last().unwrap().kind else {
        panic!("the last event is complete: {events:?}");
    };
    let refused = document.value.as_ref().unwrap()["refused"]
        .as_str()
        .unwrap();
    assert!(refused.starts_with("log data must be JSON"), "{refused}");
}
