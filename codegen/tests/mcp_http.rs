//! `abgen-host mcp --http` serves Streamable HTTP to the official MCP TypeScript SDK client: the
//! curator is built with the real `abgen-host`, the server started on a free loopback port with
//! a bearer token, and `runtime/tests/mcp_client/http.mjs` runs two sessions at once and checks
//! the front door (token, path, `Origin`, `Host`). Then SIGTERM ends the server with 143.
//! Then two server processes behind one sticky-session front (`two-servers.mjs`) each serve
//! their own sessions, as a remote deployment runs them.

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

#[test]
fn two_server_processes_behind_one_address_each_serve_their_own_sessions() {
    let temp = tempfile::tempdir().unwrap();
    let temp = temp.path().canonicalize().unwrap();
    let artifact = build_curator(&temp, &["claude"]);
    let servers: Vec<(String, std::process::Child)> = (0..2)
        .map(|index| {
            let runtime = temp.join(format!("runtime-{index}"));
            std::fs::create_dir_all(&runtime).unwrap();
            serve_mcp_http(&artifact, "library", &runtime, None)
        })
        .collect();

    // The script bounds itself (60 s) and exits on its own.
    let output = Command::new("node")
        .arg(repo().join("runtime/tests/mcp_client/two-servers.mjs"))
        .args(servers.iter().map(|(url, _)| url))
        .current_dir(repo())
        .output()
        .expect("running node");
    for (_, mut server) in servers {
        server.kill().unwrap();
        server.wait().unwrap();
    }
    let checked = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "two-servers.mjs failed:\n{checked}"
    );
    assert!(checked.contains("two-servers.mjs: ok"), "{checked}");
}
