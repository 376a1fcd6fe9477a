//! Long-running tools over MCP, proven with the official MCP TypeScript SDK client on a built
//! `fixtures/projects/valid-mcp-tasks`, over stdio and over Streamable HTTP: what a route logs
//! (`agent().log`, `runtime/tests/mcp_client/logs.mjs`) and the MCP 2025-11-25 task lifecycle
//! (`runtime/tests/mcp_client/tasks.mjs`). Needs the npm workspace installed and Node 20+.

mod support;

use std::path::Path;

use support::{build_fixture, node_summary};

/// Runs `logs.mjs` against `target` (an artifact for stdio, a URL for HTTP).
fn check_logs(mode: &str, target: &Path) {
    let summary = node_summary("runtime/tests/mcp_client/logs.mjs", &[&mode, &target]);
    assert_eq!(summary["levels"], 5, "{summary}");
    assert!(
        summary["ticksBeforeCancel"]
            .as_u64()
            .is_some_and(|ticks| ticks >= 3),
        "{summary}"
    );
}

/// A route's log records reach the client as `notifications/message` at or above the level it
/// set (none before it sets one), before the call's result, and not once a cancel was read.
#[test]
fn route_log_records_follow_the_session_level() {
    let temp = tempfile::tempdir().unwrap();
    let artifact = build_fixture(temp.path(), "valid-mcp-tasks");
    check_logs("stdio", &artifact);

    let runtime = tempfile::tempdir().unwrap();
    let (url, mut server) = support::serve_mcp_http(&artifact, "mill", runtime.path(), None);
    check_logs("http", Path::new(&url));
    server.kill().unwrap();
    server.wait().unwrap();
}

/// Runs `tasks.mjs` against `target` (an artifact for stdio, a URL for HTTP).
fn check_tasks(mode: &str, target: &Path) {
    let scratch = tempfile::tempdir().unwrap();
    let summary = node_summary(
        "runtime/tests/mcp_client/tasks.mjs",
        &[&mode, &target, &scratch.path()],
    );
    // The script asserts every clause; the figures say by how much the bounds were met.
    assert_eq!(
        summary["listPages"],
        serde_json::json!([100, 100, 56]),
        "{summary}"
    );
    for key in ["cancelledChildGoneMs", "sessionClosedChildGoneMs"] {
        assert!(
            summary[key].as_f64().is_some_and(|ms| ms < 2_000.0),
            "{key}: {summary}"
        );
    }
}

/// The task lifecycle of seed 002 over the SDK client: created at once, polled with progress,
/// its result what the ordinary call answers, listed by cursor, cancelled through the kernel,
/// refused where the tool says so, forgotten after its ttl, at most 256, and cancelled with the
/// session — over stdio and over Streamable HTTP.
#[test]
fn the_sdk_client_runs_the_task_lifecycle_over_stdio_and_http() {
    let temp = tempfile::tempdir().unwrap();
    let artifact = build_fixture(temp.path(), "valid-mcp-tasks");
    check_tasks("stdio", &artifact);

    let runtime = tempfile::tempdir().unwrap();
    let (url, mut server) = support::serve_mcp_http(&artifact, "mill", runtime.path(), None);
    check_tasks("http", Path::new(&url));
    server.kill().unwrap();
    server.wait().unwrap();
}
