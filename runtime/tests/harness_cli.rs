//! `abgen-host harness` against a built test artifact: one answer a line, in order, for each
//! request — a render's events, a projection through the MCP or CLI projector, a run of the
//! plugin's command line — and an `error`
//! answer, never a crash, for a request it cannot serve.

#[path = "hook_fixture/support.rs"]
#[expect(
    dead_code,
    reason = "the transcript helper of the render tests is not used here"
)]
mod support;

use serde_json::{Value, json};
use support::{abgen_host, build_artifact};

#[test]
fn answers_each_request_line_in_order() {
    let artifact = build_artifact("harness-cli-artifact");
    let render =
        json!({ "id": 1, "render": { "route": "tool:demo/echo", "input": { "text": "hi" } } });
    let requests = [
        render.to_string(),
        "{not json".to_owned(),
        json!({ "id": 3, "render": { "route": "tool:demo/nope" } }).to_string(),
        json!({ "id": 4, "neither": {} }).to_string(),
        json!({ "id": 5, "render": { "route": "tool:demo/echo", "context": "claude" } })
            .to_string(),
    ];
    let stdin = requests.join("\n") + "\n";
    let output = abgen_host(
        &["harness", "--artifact", artifact.to_str().unwrap()],
        &[],
        stdin.as_bytes(),
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let answers: Vec<Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(answers.len(), 5, "{answers:#?}");

    let events = answers[0]["events"]
        .as_array()
        .expect("a render answers its events");
    assert_eq!(answers[0]["id"], 1);
    assert_eq!(events.last().unwrap()["type"], "complete");
    assert_eq!(events.last().unwrap()["document"]["status"], "success");

    assert_eq!(answers[1]["id"], Value::Null);
    assert!(
        answers[1]["error"]
            .as_str()
            .unwrap()
            .starts_with("the request is not JSON")
    );
    assert_eq!(answers[2]["id"], 3);
    assert!(
        answers[2]["error"]
            .as_str()
            .unwrap()
            .starts_with("no route `tool:demo/nope` in this artifact")
    );
    assert_eq!(
        answers[3],
        json!({ "id": 4, "error": "a request holds `render`, `project` or `cli`" })
    );
    assert_eq!(
        answers[4],
        json!({ "id": 5, "error": "`render.context` is an object of axes" })
    );

    // The events just rendered, projected for an MCP client with a progress token and for the CLI.
    let project = |id: u64, fixture: Value| {
        json!({ "id": id, "project": { "events": events, "fixture": fixture } }).to_string()
    };
    let stdin = [
        project(6, json!({ "surface": "mcp", "progressToken": "t" })),
        project(7, json!({ "surface": "cli", "format": "json" })),
        project(8, json!({ "surface": "workbench" })),
    ]
    .join("\n")
        + "\n";
    let output = abgen_host(
        &["harness", "--artifact", artifact.to_str().unwrap()],
        &[],
        stdin.as_bytes(),
    );
    let answers: Vec<Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(answers[0]["id"], 6);
    assert!(
        answers[0]["result"]["content"].is_array(),
        "{:#?}",
        answers[0]
    );
    assert_eq!(answers[1]["exitCode"], 0);
    assert!(answers[1]["stdout"].is_string());
    assert_eq!(
        answers[2]["error"],
        "no surface `workbench`: a fixture's `surface` is `mcp` or `cli` (hooks answer through invokeHook)"
    );
}

#[test]
fn runs_the_plugin_command_line_with_the_given_terminal() {
    let artifact = build_artifact("harness-cli-commands");
    let pipe = json!({ "kind": "pipe", "color": "none" });
    let terminal =
        json!({ "hostSurface": "cli", "stdout": pipe, "stderr": pipe, "sharesTarget": false });
    let stdin = [
        json!({ "id": 1, "cli": { "args": ["--help"], "terminal": terminal } }),
        json!({ "id": 2, "cli": { "args": ["no", "such"], "terminal": terminal } }),
        json!({ "id": 3, "cli": { "args": ["--help"] } }),
    ]
    .map(|request| request.to_string())
    .join("\n")
        + "\n";
    let output = abgen_host(
        &["harness", "--artifact", artifact.to_str().unwrap()],
        &[],
        stdin.as_bytes(),
    );
    let answers: Vec<Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(answers.len(), 3, "{answers:#?}");
    assert_eq!(answers[0]["exitCode"], 0, "{:#?}", answers[0]);
    assert!(
        answers[0]["stdout"].as_str().unwrap().contains("Usage: "),
        "{:#?}",
        answers[0]
    );
    assert_eq!(answers[1]["exitCode"], 2);
    assert!(
        answers[1]["stderr"]
            .as_str()
            .unwrap()
            .contains("unknown command `no such`"),
        "{:#?}",
        answers[1]
    );
    assert_eq!(
        answers[2]["error"],
        "`cli.terminal` is the terminal the command sees"
    );
}
