//! The kernel over real Node workers (the bundled `worker-fixture`): renders run concurrently on
//! the pool, a full queue is refused at once, a cancel reaches the route's AbortSignal, a busy
//! loop that ignores it loses its worker after the grace and the next render still runs, and a
//! render past its deadline ends honestly; renders one after another stay on one worker, a busy
//! one sends the next render to another, and a worker beyond the first stops its process once
//! idle and starts again on demand. Needs the npm workspace installed and Node 20+.

use std::path::Path;
use std::time::{Duration, Instant};

use abgen_runtime::document::{DocumentLimits, RenderEvent, RenderEventKind, Status};
use abgen_runtime::kernel::{Cancel, Invocation, Kernel, KernelConfig, KernelError, Next};
use abgen_runtime::worker::RouteKind;
use serde_json::{Value, json};

#[path = "worker-fixture/support.rs"]
mod support;

const GRACE: Duration = Duration::from_millis(1000);

fn kernel(directory: &Path, workers: usize, queue_capacity: usize) -> Kernel {
    let mut config = KernelConfig::new(
        support::bundled_worker(directory, "test-artifact-digest"),
        DocumentLimits::default(),
    );
    config.workers = workers;
    config.queue_capacity = queue_capacity;
    config.abort_grace = GRACE;
    Kernel::start(config)
}

fn tool(route: &str, input: Value) -> Invocation {
    Invocation {
        kind: RouteKind::Tool,
        route: route.into(),
        invocation: None,
        input,
        context: Default::default(),
        providers: Default::default(),
        limits: Default::default(),
    }
}

fn in_seconds(seconds: u64) -> Instant {
    Instant::now() + Duration::from_secs(seconds)
}

/// The events up to the render's end, waiting until `until` at most.
fn events_until(rendering: &abgen_runtime::kernel::Rendering, until: Instant) -> Vec<RenderEvent> {
    let mut events = Vec::new();
    loop {
        match rendering.next_until(until) {
            Next::Event(event) => events.push(*event),
            Next::Pending | Next::Ended => return events,
        }
    }
}

fn final_status(events: &[RenderEvent]) -> Option<Status> {
    match &events.last()?.kind {
        RenderEventKind::Complete { document } => Some(document.status),
        _ => None,
    }
}

#[test]
fn a_hung_render_does_not_hold_up_the_next_one_on_a_pool_of_two() {
    let directory = tempfile::tempdir().unwrap();
    let kernel = kernel(directory.path(), 2, 8);
    let hung = kernel
        .render(
            tool("tool:demo/hang", json!({})),
            Cancel::new(),
            in_seconds(60),
        )
        .unwrap();
    let greeted = kernel
        .render(
            tool("tool:demo/greet", json!({"name": "Ada"})),
            Cancel::new(),
            in_seconds(30),
        )
        .unwrap();
    let events = events_until(&greeted, in_seconds(30));
    assert_eq!(final_status(&events), Some(Status::Success), "{events:?}");
    assert!(matches!(hung.next_until(Instant::now()), Next::Pending));
}

#[test]
fn a_render_beyond_the_queue_is_refused_at_once_as_busy() {
    let directory = tempfile::tempdir().unwrap();
    let marker = directory.path().join("aborted.txt");
    let kernel = kernel(directory.path(), 1, 1);
    // The one worker is busy once the route has reported progress.
    let running = kernel
        .render(
            tool("tool:demo/abortable", json!({"marker": marker})),
            Cancel::new(),
            in_seconds(60),
        )
        .unwrap();
    let started = loop {
        match running.next_until(in_seconds(30)) {
            Next::Event(event) if matches!(event.kind, RenderEventKind::Progress { .. }) => {
                break true;
            }
            Next::Event(_) => {}
            Next::Pending | Next::Ended => break false,
        }
    };
    assert!(started, "the first render never reported progress");
    let _queued = kernel
        .render(
            tool("tool:demo/hang", json!({})),
            Cancel::new(),
            in_seconds(60),
        )
        .unwrap();
    let asked = Instant::now();
    let refused = kernel.render(
        tool("tool:demo/greet", json!({"name": "Ada"})),
        Cancel::new(),
        in_seconds(60),
    );
    assert!(asked.elapsed() < Duration::from_millis(100));
    assert_eq!(refused.unwrap_err(), KernelError::Busy { capacity: 1 });
}

#[test]
fn a_cancel_reaches_the_routes_child_process_and_fetch_and_nothing_follows() {
    let directory = tempfile::tempdir().unwrap();
    let marker = directory.path().join("aborted.txt");
    let kernel = kernel(directory.path(), 1, 4);
    let cancel = Cancel::new();
    let rendering = kernel
        .render(
            tool("tool:demo/abortable", json!({"marker": marker})),
            cancel.clone(),
            in_seconds(60),
        )
        .unwrap();
    loop {
        match rendering.next_until(in_seconds(30)) {
            Next::Event(event) if matches!(event.kind, RenderEventKind::Progress { .. }) => break,
            Next::Event(_) => {}
            other => panic!("the render ended before its progress: {other:?}"),
        }
    }
    cancel.cancel("cancelled by the client");
    let cancelled = Instant::now();
    assert_eq!(
        support::aborted_route_report(&marker, Duration::from_secs(10)),
        support::ABORTED_ROUTE_REPORT
    );
    // Seed 002: within 200 ms of the cancel; a loaded machine gets room, the bound stays tight.
    assert!(
        cancelled.elapsed() < Duration::from_millis(600),
        "{:?}",
        cancelled.elapsed()
    );
    // Nothing is delivered for a cancelled render.
    assert!(
        matches!(rendering.next_until(in_seconds(10)), Next::Ended),
        "an event arrived after the cancel"
    );
}

#[test]
fn a_busy_loop_that_ignores_its_cancel_loses_its_worker_after_the_grace() {
    let directory = tempfile::tempdir().unwrap();
    let kernel = kernel(directory.path(), 1, 4);
    let cancel = Cancel::new();
    let spinning = kernel
        .render(
            tool("tool:demo/spin", json!({})),
            cancel.clone(),
            in_seconds(60),
        )
        .unwrap();
    // Let it start spinning, then queue the next render behind it.
    std::thread::sleep(Duration::from_millis(500));
    let next = kernel
        .render(
            tool("tool:demo/greet", json!({"name": "Ada"})),
            Cancel::new(),
            in_seconds(60),
        )
        .unwrap();
    cancel.cancel("cancelled by the client");
    let cancelled = Instant::now();
    let events = events_until(&next, in_seconds(30));
    let waited = cancelled.elapsed();
    assert_eq!(final_status(&events), Some(Status::Success), "{events:?}");
    // The worker was killed only once the grace had passed, then a fresh one rendered.
    assert!(waited >= GRACE, "{waited:?}");
    assert!(waited < GRACE + Duration::from_secs(10), "{waited:?}");
    assert!(matches!(spinning.next_until(Instant::now()), Next::Ended));
}

#[test]
fn dropping_a_rendering_cancels_it() {
    let directory = tempfile::tempdir().unwrap();
    let marker = directory.path().join("aborted.txt");
    let kernel = kernel(directory.path(), 1, 4);
    let rendering = kernel
        .render(
            tool("tool:demo/abortable", json!({"marker": marker})),
            Cancel::new(),
            in_seconds(60),
        )
        .unwrap();
    while !matches!(
        rendering.next_until(in_seconds(30)),
        Next::Event(event) if matches!(event.kind, RenderEventKind::Progress { .. })
    ) {}
    drop(rendering);
    let dropped = Instant::now();
    assert_eq!(
        support::aborted_route_report(&marker, Duration::from_secs(10)),
        support::ABORTED_ROUTE_REPORT,
        "the render went on after {:?}",
        dropped.elapsed()
    );
}

#[test]
fn a_render_past_its_deadline_ends_with_a_failed_complete() {
    let directory = tempfile::tempdir().unwrap();
    let kernel = kernel(directory.path(), 1, 4);
    let deadline = Instant::now() + Duration::from_millis(1500);
    let rendering = kernel
        .render(tool("tool:demo/hang", json!({})), Cancel::new(), deadline)
        .unwrap();
    let events = events_until(&rendering, in_seconds(30));
    assert_eq!(final_status(&events), Some(Status::Failed), "{events:?}");
    assert!(Instant::now() < deadline + Duration::from_secs(2));
    let Some(RenderEventKind::Complete { document }) = events.last().map(|event| &event.kind)
    else {
        unreachable!()
    };
    assert_eq!(
        serde_json::to_value(&document.root).unwrap()["code"],
        "timeout"
    );
}

#[test]
fn dropping_the_kernel_ends_a_busy_loop_and_skips_what_was_queued() {
    let directory = tempfile::tempdir().unwrap();
    let kernel = kernel(directory.path(), 1, 4);
    let spinning = kernel
        .render(
            tool("tool:demo/spin", json!({})),
            Cancel::new(),
            in_seconds(60),
        )
        .unwrap();
    let queued = kernel
        .render(
            tool("tool:demo/hang", json!({})),
            Cancel::new(),
            in_seconds(60),
        )
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let dropped = Instant::now();
    drop(kernel);
    assert!(
        dropped.elapsed() < GRACE + Duration::from_secs(5),
        "{:?}",
        dropped.elapsed()
    );
    // The spinning render ends failed (its worker was killed); the queued one never started.
    let events = events_until(&spinning, in_seconds(5));
    assert_eq!(final_status(&events), Some(Status::Failed), "{events:?}");
    assert!(matches!(queued.next_until(in_seconds(5)), Next::Ended));
}

/// A process a route started goes with its worker: the worker leads its own process group, and
/// killing a busy loop's worker kills the group.
#[test]
fn a_killed_worker_takes_the_processes_its_route_started_with_it() {
    let directory = tempfile::tempdir().unwrap();
    let marker = directory.path().join("child.pid");
    let kernel = kernel(directory.path(), 1, 4);
    let cancel = Cancel::new();
    let _spinning = kernel
        .render(
            tool("tool:demo/spin-child", json!({"marker": marker})),
            cancel.clone(),
            in_seconds(60),
        )
        .unwrap();
    let started = Instant::now();
    let child = loop {
        if let Ok(pid) = std::fs::read_to_string(&marker)
            && let Ok(pid) = pid.trim().parse::<i32>()
        {
            break pid;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the route never started its child"
        );
        std::thread::sleep(Duration::from_millis(5));
    };
    let running = |pid: i32| {
        // A zombie (exited, not yet reaped by whoever adopted it) has ended too.
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            !stat
                .rsplit(')')
                .next()
                .unwrap_or("")
                .trim_start()
                .starts_with('Z')
        })
    };
    assert!(running(child));
    cancel.cancel("cancelled by the client");
    let cancelled = Instant::now();
    while running(child) {
        assert!(
            cancelled.elapsed() < GRACE + Duration::from_secs(5),
            "the route's child outlived its worker"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn a_worker_killed_mid_render_fails_that_render_and_the_next_one_succeeds() {
    let directory = tempfile::tempdir().unwrap();
    let kernel = kernel(directory.path(), 1, 4);
    let crashed = kernel
        .render(
            tool("tool:demo/crash", json!({})),
            Cancel::new(),
            in_seconds(30),
        )
        .unwrap();
    let events = events_until(&crashed, in_seconds(30));
    assert_eq!(final_status(&events), Some(Status::Failed), "{events:?}");
    let next = kernel
        .render(
            tool("tool:demo/greet", json!({"name": "Ada"})),
            Cancel::new(),
            in_seconds(30),
        )
        .unwrap();
    let events = events_until(&next, in_seconds(30));
    assert_eq!(final_status(&events), Some(Status::Success), "{events:?}");
}

/// The pid of the worker that rendered `tool:demo/pid`, waiting `wait_ms` first.
fn pid_of(rendering: &abgen_runtime::kernel::Rendering) -> u64 {
    let events = events_until(rendering, in_seconds(30));
    match &events.last().map(|event| &event.kind) {
        Some(RenderEventKind::Complete { document }) => document
            .value
            .as_ref()
            .and_then(|value| value["pid"].as_u64())
            .unwrap_or_else(|| panic!("{document:?}")),
        other => panic!("no complete: {other:?}"),
    }
}

#[test]
fn renders_stay_on_one_worker_unless_it_is_busy_and_idle_extra_workers_stop() {
    let directory = tempfile::tempdir().unwrap();
    let mut config = KernelConfig::new(
        support::bundled_worker(directory.path(), "test-artifact-digest"),
        DocumentLimits::default(),
    );
    config.workers = 2;
    config.start_workers_early = true;
    config.idle_worker_exit = Duration::from_millis(600);
    let kernel = Kernel::start(config);
    let pid = |wait_ms: u64| {
        kernel
            .render(
                tool("tool:demo/pid", json!({"waitMs": wait_ms})),
                Cancel::new(),
                in_seconds(30),
            )
            .unwrap()
    };

    // One after another, even the first: always worker 0, and only its Node process starts
    // early; the other waits for demand.
    let home = pid_of(&pid(0));
    for _ in 0..4 {
        assert_eq!(pid_of(&pid(0)), home);
    }
    assert_eq!(kernel.live_workers(), 1);
    // While worker 0 is busy, the next render runs on the other worker.
    let busy = pid(400);
    let other = pid_of(&pid(0));
    assert_ne!(other, home);
    assert_eq!(pid_of(&busy), home);
    assert_eq!(kernel.live_workers(), 2);

    // Idle past `idle_worker_exit`: the extra worker's process stops, worker 0's stays.
    let until = Instant::now() + Duration::from_secs(10);
    while kernel.live_workers() > 1 {
        assert!(
            Instant::now() < until,
            "the idle extra worker never stopped"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        std::fs::metadata(format!("/proc/{other}")).is_err(),
        "pid {other} still runs"
    );
    assert_eq!(pid_of(&pid(0)), home);

    // Demand brings it back, as a new process.
    let busy = pid(400);
    let again = pid_of(&pid(0));
    assert!(again != home && again != other, "{home} {other} {again}");
    assert_eq!(pid_of(&busy), home);
    assert_eq!(kernel.live_workers(), 2);
}

#[test]
fn a_render_whose_deadline_passes_in_the_queue_fails_busy_not_as_the_routes_timeout() {
    let directory = tempfile::tempdir().unwrap();
    let kernel = kernel(directory.path(), 1, 8);
    let hang = Cancel::new();
    let hung = kernel
        .render(
            tool("tool:demo/hang", json!({})),
            hang.clone(),
            in_seconds(60),
        )
        .unwrap();
    let queued = kernel
        .render(
            tool("tool:demo/greet", json!({"name": "Ada"})),
            Cancel::new(),
            Instant::now() + Duration::from_millis(300),
        )
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    hang.cancel("the test is done with it");
    drop(hung);
    let events = events_until(&queued, in_seconds(30));
    let Some(RenderEventKind::Complete { document }) = events.last().map(|event| &event.kind)
    else {
        panic!("{events:?}")
    };
    assert_eq!(document.status, Status::Failed);
    // `busy` is the runtime's own failure: a hook answered this way takes its fallback.
    assert!(
        matches!(&document.root, abgen_runtime::document::Node::Error { code, .. } if code == "busy"),
        "{document:?}"
    );
}

#[test]
fn a_node_older_than_20_is_named_with_its_version_when_the_worker_refuses_it() {
    // A Node that says it is 18 (to `--version` and to the worker's loader, which checks
    // `process.versions` before its hello): the real Node underneath, so the refusal comes from
    // the generated loader itself.
    let directory = tempfile::tempdir().unwrap();
    let real = abgen_runtime::worker::locate_node().unwrap().path;
    let pretend = r#"Object.defineProperty(process,"versions",{value:{...process.versions,node:"18.19.0"}});Object.defineProperty(process,"version",{value:"v18.19.0"});"#;
    let old = directory.path().join("node");
    std::fs::write(
        &old,
        format!(
            "#!/bin/sh\nif [ \"$1\" = --version ]; then echo v18.19.0; exit 0; fi\n\
             exec '{}' --import 'data:text/javascript,{}' \"$@\"\n",
            real.display(),
            pretend
        ),
    )
    .unwrap();
    std::fs::set_permissions(&old, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let mut config = KernelConfig::new(
        support::bundled_worker(directory.path(), "test-artifact-digest"),
        DocumentLimits::default(),
    );
    config.worker.node = abgen_runtime::worker::NodeBinary { path: old };
    let kernel = Kernel::start(config);

    let rendering = kernel
        .render(
            tool("tool:demo/pid", json!({})),
            Cancel::new(),
            in_seconds(30),
        )
        .unwrap();
    let events = events_until(&rendering, in_seconds(30));
    let Some(RenderEventKind::Complete { document }) = events.last().map(|event| &event.kind)
    else {
        panic!("no complete: {events:?}")
    };
    let root = serde_json::to_value(&document.root).unwrap();
    assert_eq!(root["code"], "worker-unavailable", "{root}");
    let message = root["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("v18.19.0") && message.contains("Node.js 20 or newer"),
        "{message}"
    );
}
