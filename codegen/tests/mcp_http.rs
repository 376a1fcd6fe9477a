//! `abgen-host mcp --http` serves Streamable HTTP to the official MCP TypeScript SDK client: the
//! curator is built with the real `abgen-host`, the server started on a free loopback port with
//! a bearer token, and `runtime/tests/mcp_client/http.mjs` runs two sessions at once and checks
//! the front door (token, path, `Origin`, `Host`). Then SIGTERM ends the server with 143.

mod support;

use std::process::Command;

use support::{build_curator, repo, serve_mcp_http};

#[test]
fn the_sdk_client_is_served_over_streamable_http() {
    let temp = tempfile::tempdir().unwrap();
    let temp = temp.path().canonicalize().unwrap();
    let artifact = build_curator(&temp, &["claude"]);
    let runtime = temp.join("runtime");
    std::fs::create_dir_all(&runtime).unwrap();
    let (url, mut server) = serve_mcp_http(&artifact, "library", &runtime, Some("sesame"));

    let output = Command::new("node")
        .arg(repo().join("runtime/tests/mcp_client/http.mjs"))
        .args([&url, "sesame"])
        .current_dir(repo())
        .output()
        .expect("running node");
    let checked = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "http.mjs failed:\n{checked}");

    let killed = Command::new("kill")
        .args(["-TERM", &server.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = server.wait().unwrap();
    assert_eq!(status.code(), Some(143), "{status:?}");
}
