//! End to end: build `examples/curator` for Claude into a temporary directory with the real
//! `abgen-host`, then use only the artifact — from outside the repository, so nothing of the
//! example's sources or `node_modules` is reachable — to render a tool (`abgen-host render`) and
//! to simulate the `tool/after` hook on a Claude `Write` of a reading note (`abgen hooks
//! simulate`). Needs the npm workspace installed (`npm ci`) and Node 20 or newer.

use std::path::{Path, PathBuf};
use std::process::Command;

use abgen::simulate::{SimulateOptions, Simulation, render_simulation, simulate_hook};
use serde_json::{Value, json};

mod support;

use support::{build_curator, repo};

fn build(temp: &Path) -> PathBuf {
    build_curator(temp, &["claude"])
}

fn document_schema() -> jsonschema::Validator {
    let text = std::fs::read_to_string(repo().join("schemas/agent-document.schema.json")).unwrap();
    jsonschema::draft202012::new(&serde_json::from_str::<Value>(&text).unwrap()).unwrap()
}

/// The Claude PostToolUse fixture, changed to a `Write` of a reading note in `workspace`.
fn reading_note_write(workspace: &Path) -> Value {
    let text =
        std::fs::read_to_string(repo().join("fixtures/hosts/claude/PostToolUse.json")).unwrap();
    let mut payload: Value = serde_json::from_str(&text).unwrap();
    let note = workspace.join("notes/earthsea.md");
    payload["cwd"] = json!(workspace);
    payload["tool_input"] = json!({
        "file_path": note,
        "content": "# A Wizard of Earthsea\n\nFinished it today; Ged's shadow stays with me.\n"
    });
    payload["tool_response"] = json!({"filePath": note, "success": true});
    payload
}

/// Simulates the hook with its warm runtime looked for in `temp/runtime`, a directory that never
/// exists, so what the hook reports does not depend on what else ran on this machine.
fn simulate(artifact: &Path, input: &Path, standalone: bool, temp: &Path) -> Simulation {
    simulate_hook(&SimulateOptions {
        artifact: artifact.to_owned(),
        host: "claude".into(),
        event: "tool/after".into(),
        input: Some(input.to_owned()),
        standalone,
        runtime_dir: Some(temp.join("runtime")),
    })
    .unwrap_or_else(|error| panic!("{error}"))
}

/// The report with the temporary directory and the elapsed time redacted.
fn report(simulation: &Simulation, temp: &Path) -> String {
    let text = render_simulation(simulation).replace(temp.to_str().unwrap(), "[TEMP]");
    let elapsed = format!("after {} ms", simulation.elapsed.as_millis());
    text.replace(&elapsed, "after [TIME] ms")
}

#[test]
fn the_built_curator_renders_a_tool_and_answers_its_tool_after_hook() {
    let temp = tempfile::tempdir().unwrap();
    let temp = temp.path().canonicalize().unwrap();
    let artifact = build(&temp);

    // abgen-host render, run from the temporary directory with no NODE_PATH.
    let output = Command::new(artifact.join("bin/abgen-host"))
        .args(["render", "--artifact"])
        .arg(&artifact)
        .args(["--route", "tool:library/search_books"])
        .args(["--input", r#"{"query": "le guin", "limit": 2}"#])
        .args(["--format", "document"])
        .current_dir(&temp)
        .env_remove("NODE_PATH")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert_eq!(stderr, "");
    let document: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(document_schema().is_valid(&document), "{document:#}");
    insta::assert_json_snapshot!("search_books_document", document);

    // abgen hooks simulate: the host's view of a Write of notes/earthsea.md.
    let input = temp.join("post-tool-use.json");
    let workspace = temp.join("workspace");
    std::fs::write(&input, reading_note_write(&workspace).to_string()).unwrap();
    // The route declares `fallback: 'standalone'` and no warm runtime runs: the hook renders the
    // route on a fresh worker, inside the hook's deadline.
    let rendered = simulate(&artifact, &input, false, &temp);
    assert_eq!(rendered.exit_code, Some(0), "{}", rendered.stderr);
    let answer: Value = serde_json::from_str(&rendered.stdout).unwrap();
    assert_eq!(answer["hookSpecificOutput"]["hookEventName"], "PostToolUse");
    let context = answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or_default();
    assert!(context.contains("notes/earthsea.md"), "{context}");
    insta::assert_snapshot!("tool_after_standalone", report(&rendered, &temp));
    assert!(
        rendered.elapsed.as_millis() < u128::from(rendered.deadline_ms),
        "{:?}",
        rendered.elapsed
    );

    // Any other tool is filtered out before the route runs: no output, no message.
    let mut bash = reading_note_write(&workspace);
    bash["tool_name"] = "Bash".into();
    bash["tool_input"] = json!({"command": "ls notes"});
    std::fs::write(&input, bash.to_string()).unwrap();
    let skipped = simulate(&artifact, &input, true, &temp);
    assert_eq!(
        (
            skipped.exit_code,
            skipped.stdout.as_str(),
            skipped.stderr.as_str()
        ),
        (Some(0), "", "")
    );
}
