//! `abgen-host render` prints the right document for every tool of `examples/curator`: the
//! example is built for Claude into a temporary directory with the real `abgen-host`, and each
//! tool is rendered from outside the repository (no sources, no `node_modules` reachable), its
//! final document validated against the document schema and snapshotted. `catalog_audit` is also
//! rendered as ndjson, proving that `agent()` and progress reports work in the async component
//! React renders after an `await`. Needs the npm workspace installed (`npm ci`) and Node 20+.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

mod support;

use support::{build_curator, repo};

fn build(temp: &Path) -> PathBuf {
    build_curator(temp, &["claude"])
}

fn render(artifact: &Path, cwd: &Path, route: &str, input: &str, format: &str) -> Output {
    Command::new(artifact.join("bin/abgen-host"))
        .args(["render", "--artifact"])
        .arg(artifact)
        .args(["--route", route, "--input", input, "--format", format])
        .current_dir(cwd)
        .env_remove("NODE_PATH")
        .output()
        .unwrap()
}

fn document_schema() -> jsonschema::Validator {
    let text = std::fs::read_to_string(repo().join("schemas/agent-document.schema.json")).unwrap();
    jsonschema::draft202012::new(&serde_json::from_str::<Value>(&text).unwrap()).unwrap()
}

/// Every tool of the curator with an input, the exit code `abgen-host render` must give, and
/// the snapshot name. `stalled` is left out of the audit: it depends on today's date.
const CASES: &[(&str, &str, i32, &str)] = &[
    (
        "tool:library/search_books",
        r#"{"query": "le guin", "limit": 2}"#,
        0,
        "search_books",
    ),
    (
        "tool:library/search_books",
        r#"{"query": "no such words anywhere"}"#,
        0,
        "search_books_nothing",
    ),
    (
        "tool:library/shelve_book",
        r#"{"bookId": "dispossessed", "shelf": "finished", "note": "loved it"}"#,
        0,
        "shelve_book",
    ),
    (
        "tool:library/shelve_book",
        r#"{"bookId": "nope", "shelf": "reading"}"#,
        1,
        "shelve_book_unknown_id",
    ),
    (
        "tool:library/show_shelf",
        r#"{"shelf": "finished"}"#,
        0,
        "show_shelf",
    ),
    (
        "tool:library/export_bibliography",
        r#"{"bookIds": ["wizard-of-earthsea", "missing-book"]}"#,
        0,
        "export_bibliography",
    ),
    (
        "tool:library/catalog_audit",
        r#"{"checks": ["unshelved", "unrated", "duplicates"]}"#,
        0,
        "catalog_audit",
    ),
];

#[test]
fn every_curator_tool_renders_its_document() {
    let temp = tempfile::tempdir().unwrap();
    let temp = temp.path().canonicalize().unwrap();
    let artifact = build(&temp);
    let schema = document_schema();

    for (route, input, code, name) in CASES {
        let output = render(&artifact, &temp, route, input, "document");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(*code), "{name}: {stderr}");
        let document: Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|error| panic!("{name}: {error}: {stderr}"));
        assert!(schema.is_valid(&document), "{name}: {document:#}");
        insta::assert_json_snapshot!(*name, document);
    }
}

#[test]
fn catalog_audit_reports_progress_from_its_deferred_component() {
    let temp = tempfile::tempdir().unwrap();
    let temp = temp.path().canonicalize().unwrap();
    let artifact = build(&temp);

    let output = render(
        &artifact,
        &temp,
        "tool:library/catalog_audit",
        "{}",
        "ndjson",
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let events: Vec<Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let progress: Vec<(u64, u64)> = events
        .iter()
        .filter(|event| event["type"] == "progress")
        .map(|event| {
            (
                event["completed"].as_u64().unwrap(),
                event["total"].as_u64().unwrap(),
            )
        })
        .collect();
    // Each of the four checks reports once, from the component React renders after `await`s.
    assert_eq!(progress, [(1, 4), (2, 4), (3, 4), (4, 4)], "{events:#?}");
    assert_eq!(events[0]["type"], "shell");
    let shell = &events[0]["document"]["root"]["children"];
    assert_eq!(shell[1]["state"], "pending", "{shell:#}");
    let last = events.last().unwrap();
    assert_eq!(last["type"], "complete");
    let children = last["document"]["root"]["children"].as_array().unwrap();
    let kinds: Vec<&str> = children
        .iter()
        .map(|node| node["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["markdown", "markdown", "json"], "{last:#}");
    assert!(children[2]["value"]["findings"].is_array(), "{last:#}");
}
