//! Long-running tools over MCP, proven with the official MCP TypeScript SDK client on a built
//! `fixtures/projects/valid-mcp-tasks`, over stdio and over Streamable HTTP: what a route logs
//! (`agent().log`, `runtime/tests/mcp_client/logs.mjs`). Needs the npm workspace installed and
//! Node 20+.

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
