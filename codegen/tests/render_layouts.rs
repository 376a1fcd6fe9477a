//! Layouts compose around every rendered MCP route (seed 002 §Shared layouts): root layout, then
//! the server's, then the route; a rendered `src/cli/**` command and a rendered script get the
//! root layout alone; the containers merge into the route's result (one result, the
//! route's value) and their metadata merges key by key, the outermost winning. A route that
//! throws fails the whole render, with no layout around it. `fixtures/projects/valid-layouts` is
//! built (a copy) with the real `abgen-host` and rendered by `abgen-host render`. Needs the npm
//! workspace installed and Node 20+.

mod support;

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};
use support::build_fixture;

fn render(artifact: &Path, input: &str) -> (Option<i32>, Value) {
    let output = Command::new(artifact.join("bin/abgen-host"))
        .args(["render", "--artifact"])
        .arg(artifact)
        .args(["--route", "tool:shelf/find", "--input", input])
        .args(["--format", "document"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let document =
        serde_json::from_slice(&output.stdout).unwrap_or_else(|error| panic!("{error}: {stderr}"));
    (output.status.code(), document)
}

#[test]
fn layouts_wrap_the_route_and_a_throwing_route_has_none() {
    let temp = tempfile::tempdir().unwrap();
    let artifact = build_fixture(temp.path(), "valid-layouts");

    let (code, document) = render(&artifact, r#"{"title": "Earthsea"}"#);
    assert_eq!(code, Some(0), "{document}");
    assert_eq!(
        document,
        json!({
            "version": 1,
            "status": "success",
            "root": {"kind": "result", "children": [
                {"kind": "markdown", "text": "# Shelf assistant"},
                {"kind": "markdown", "text": "Looked for Earthsea."},
                {"kind": "markdown", "text": "_Answers come from the local catalog._"}
            ]},
            "value": {"found": true},
            "metadata": {"route": "tool:shelf/find", "layout": "root", "server": "shelf", "trace": "find"}
        })
    );

    let (code, document) = render(&artifact, r#"{"title": "Earthsea", "offline": true}"#);
    assert_eq!(code, Some(2), "{document}");
    assert_eq!(document["status"], "failed", "{document}");
    assert_eq!(document.get("metadata"), None, "{document}");
    assert!(
        document["root"]["message"]
            .as_str()
            .is_some_and(|message| message.contains("the catalog is offline")),
        "{document}"
    );
}

/// The final document of `bin/valid-layouts <args> --ndjson`.
fn command_document(artifact: &Path, args: &[&str]) -> Value {
    let output = Command::new(artifact.join("bin/valid-layouts"))
        .args(args)
        .arg("--ndjson")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let last: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(last["type"], "complete", "{stdout}");
    last["document"].clone()
}

#[test]
fn the_root_layout_alone_wraps_a_command_and_a_rendered_script() {
    let temp = tempfile::tempdir().unwrap();
    let artifact = build_fixture(temp.path(), "valid-layouts");
    assert_eq!(
        command_document(&artifact, &["shelf", "count"]),
        json!({
            "version": 1,
            "status": "success",
            "root": {"kind": "result", "children": [
                {"kind": "markdown", "text": "# Shelf assistant"},
                {"kind": "markdown", "text": "3 books."},
                {"kind": "markdown", "text": "_Answers come from the local catalog._"}
            ]},
            "value": {"books": 3},
            "metadata": {"route": "cli:shelf/count", "layout": "root", "trace": "count"}
        })
    );
    let script = command_document(&artifact, &["run", "tally"]);
    assert_eq!(
        script["metadata"],
        json!({"route": "script:tally", "layout": "root"}),
        "{script}"
    );
    assert_eq!(
        script["root"]["children"][1],
        json!({"kind": "markdown", "text": "Tallied."}),
        "{script}"
    );
}
