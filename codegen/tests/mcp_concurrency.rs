//! The MCP server serves requests concurrently through the kernel, proven with the official MCP
//! TypeScript SDK client (`runtime/tests/mcp_client/concurrency.mjs`) on a built
//! `fixtures/projects/valid-mcp-calls`: ping during a render, calls beside a held one, a cancel
//! that ends the route's child process and socket at once with nothing sent after it, and 1,000
//! concurrent calls answered exactly once each. Needs the npm workspace installed and Node 20+.

mod support;

use std::process::Command;

use serde_json::Value;
use support::{build_fixture, repo};

#[test]
fn the_sdk_client_sees_concurrent_cancellable_calls() {
    let temp = tempfile::tempdir().unwrap();
    let artifact = build_fixture(temp.path(), "valid-mcp-calls");

    // The server keeps its warm socket in the test's own runtime directory.
    let runtime = tempfile::tempdir().unwrap();
    let output = Command::new("node")
        .arg(repo().join("runtime/tests/mcp_client/concurrency.mjs"))
        .arg(&artifact)
        .arg(temp.path())
        .current_dir(repo())
        .env("XDG_RUNTIME_DIR", runtime.path())
        .output()
        .expect("running node");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "concurrency.mjs failed:\n{stderr}");
    let figures: Value =
        serde_json::from_slice(&output.stdout).unwrap_or_else(|error| panic!("{error}: {stderr}"));
    // The script asserts each bound; the figures say by how much they were met.
    for key in ["pingMedianMs", "childGoneMs", "socketClosedMs"] {
        assert!(
            figures[key].as_f64().is_some_and(|ms| ms < 200.0),
            "{figures}"
        );
    }
    let calls = &figures["concurrentCalls"];
    assert_eq!(
        calls["answered"].as_u64().unwrap() + calls["busy"].as_u64().unwrap(),
        1000,
        "{figures}"
    );
}

/// Runs `progress-order.mjs` against `target` (an artifact for stdio, a URL for HTTP).
fn check_progress_order(mode: &str, target: &std::path::Path, runtime: &std::path::Path) {
    let output = Command::new("node")
        .arg(repo().join("runtime/tests/mcp_client/progress-order.mjs"))
        .arg(mode)
        .arg(target)
        .current_dir(repo())
        .env("XDG_RUNTIME_DIR", runtime)
        .output()
        .expect("running node");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "progress-order.mjs {mode} failed:\n{stderr}"
    );
    let figures: Value =
        serde_json::from_slice(&output.stdout).unwrap_or_else(|error| panic!("{error}: {stderr}"));
    assert!(figures["progress"].as_u64().unwrap() > 0, "{figures}");
}

#[test]
fn every_progress_notification_arrives_before_its_result() {
    let temp = tempfile::tempdir().unwrap();
    let artifact = build_fixture(temp.path(), "valid-mcp-calls");
    let runtime = tempfile::tempdir().unwrap();
    check_progress_order("stdio", &artifact, runtime.path());

    let (url, mut server) = support::serve_mcp_http(&artifact, "desk", runtime.path(), None);
    check_progress_order("http", std::path::Path::new(&url), runtime.path());
    server.kill().unwrap();
    server.wait().unwrap();
}

/// Runs `disconnect.mjs` against `target` (an artifact for stdio, a URL for HTTP).
fn check_disconnect(mode: &str, target: &std::path::Path, scratch: &std::path::Path) -> Value {
    let output = Command::new("node")
        .arg(repo().join("runtime/tests/mcp_client/disconnect.mjs"))
        .arg(mode)
        .arg(target)
        .arg(scratch)
        .current_dir(repo())
        .env("XDG_RUNTIME_DIR", scratch)
        .output()
        .expect("running node");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "disconnect.mjs {mode} failed:\n{stderr}"
    );
    serde_json::from_slice(&output.stdout).unwrap_or_else(|error| panic!("{error}: {stderr}"))
}

/// A client that leaves mid-call (stdio: its stdin and stdout closed; HTTP: its session
/// deleted) has the render cancelled through the kernel at once, not after the five-second
/// drain meant for clients still reading: the route's child and socket go, the stdio server
/// exits, and the HTTP server goes on serving the next session.
#[test]
fn a_client_that_leaves_mid_call_has_its_render_cancelled_at_once() {
    let temp = tempfile::tempdir().unwrap();
    let artifact = build_fixture(temp.path(), "valid-mcp-calls");
    let scratch = tempfile::tempdir().unwrap();
    let stdio = check_disconnect("stdio", &artifact, scratch.path());
    for key in ["childGoneMs", "socketClosedMs", "serverExitedMs"] {
        assert!(
            stdio[key].as_f64().is_some_and(|ms| ms < 1_000.0),
            "{stdio}"
        );
    }

    let (url, mut server) = support::serve_mcp_http(&artifact, "desk", scratch.path(), None);
    let http = check_disconnect("http", std::path::Path::new(&url), scratch.path());
    assert!(
        http["nextCallMs"].as_f64().is_some_and(|ms| ms < 2_000.0),
        "{http}"
    );
    assert_eq!(
        server.try_wait().unwrap(),
        None,
        "the HTTP server is still serving"
    );
    server.kill().unwrap();
    server.wait().unwrap();
}
