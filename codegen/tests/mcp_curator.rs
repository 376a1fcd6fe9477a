//! `abgen-host mcp` answers the official MCP TypeScript SDK client: the curator example is built
//! for Claude into a temporary directory with the real `abgen-host`, and
//! `runtime/tests/mcp_client/check.mjs` lists and calls its tools over stdio (its own assertions
//! fail the script); the JSON summary it prints is snapshotted. Needs the npm workspace installed
//! (`npm ci`) and Node 20+.

mod support;

use support::{build_curator, node_summary};

#[test]
fn the_sdk_client_lists_and_calls_the_curator_tools() {
    let temp = tempfile::tempdir().unwrap();
    let temp = temp.path().canonicalize().unwrap();
    let artifact = build_curator(&temp, &["claude"]);

    // The script resolves the SDK from its own place in the repository (the root `node_modules`).
    // The server keeps its warm socket in the test's own runtime directory.
    let summary = node_summary("runtime/tests/mcp_client/check.mjs", &[&artifact]);
    insta::assert_json_snapshot!("mcp_sdk_summary", summary);
}
