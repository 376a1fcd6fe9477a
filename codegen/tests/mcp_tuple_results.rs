//! A tool whose result holds tuples answers the official MCP TypeScript SDK client, which checks
//! `structuredContent` against the advertised `outputSchema` with draft-07 keyword semantics:
//! seed 002's tuple form (`prefixItems`, `items` as the union of the positions, min/max items) is
//! what every client gets, never `items: false`, which that client reads as "no item at all".
//! `fixtures/projects/valid-tuple-results` is built (a copy) with the real `abgen-host` and
//! `runtime/tests/mcp_client/tuple-results.mjs` calls it as a client of no known host, as Claude
//! Code and as Cursor. Needs the npm workspace installed and Node 20+.

mod support;

use support::{build_fixture, node_summary};

#[test]
fn the_sdk_client_accepts_tuple_results_for_every_client() {
    let temp = tempfile::tempdir().unwrap();
    let temp = temp.path().canonicalize().unwrap();
    let artifact = build_fixture(&temp, "valid-tuple-results");

    // The server keeps its warm socket in the test's own runtime directory.
    let seen = node_summary(
        "runtime/tests/mcp_client/tuple-results.mjs",
        &[
            &artifact,
            &"some-inspector",
            &"claude-code",
            &"cursor-vscode",
        ],
    );
    insta::assert_json_snapshot!("mcp_tuple_results", seen);
}
