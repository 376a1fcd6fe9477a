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
