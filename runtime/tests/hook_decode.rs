//! `claude_fixtures`: the Claude decoders over every native payload in `fixtures/hosts/claude/`
//! (Codex and Cursor: `hook_decode_hosts.rs`): each decodes to a canonical event that the schema
//! accepts (snapshotted, idempotency key redacted), and the identity axes, tool selectors and
//! `native` opt-ins behave as documented.

use std::path::{Path, PathBuf};

use abgen_runtime::canonical::{Axis, AxisSource, CanonicalEvent, ToolSelector};
use abgen_runtime::hosts::{self, DecodeInput, Decoded, Silence};
use serde_json::{Value, json};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Native event → (canonical event, decoder id), as the compiler's Claude host table binds them.
/// CwdChanged has no canonical event yet; the reference names it workspace/cwd.
fn binding(native_event: &str) -> (&'static str, &'static str) {
    match native_event {
        "SessionStart" => ("session/start", "claude.session"),
        "SessionEnd" => ("session/end", "claude.session"),
        "UserPromptSubmit" => ("prompt/submit", "claude.prompt"),
        "PreToolUse" => ("tool/before", "claude.tool"),
        "PostToolUse" => ("tool/after", "claude.tool"),
        "PostToolUseFailure" => ("tool/failure", "claude.tool"),
        "PermissionRequest" => ("permission/request", "claude.tool"),
        "SubagentStart" => ("agent/start", "claude.agent"),
        "SubagentStop" => ("agent/stop", "claude.agent"),
        "Stop" => ("stop", "claude.stop"),
        "PreCompact" => ("compact/before", "claude.compact"),
        "Notification" => ("notification", "claude.notification"),
        "FileChanged" => ("file/saved", "claude.file"),
        "CwdChanged" => ("workspace/cwd", "claude.cwd"),
        "PermissionDenied" => ("permission/denied", "claude.tool"),
        "PostCompact" => ("compact/after", "claude.compact"),
        "StopFailure" => ("stop/failure", "claude.stop"),
        "ConfigChange" => ("config/change", "claude.config"),
        "TaskCreated" => ("task/create", "claude.task"),
        "TaskCompleted" => ("task/complete", "claude.task"),
        other => panic!("no binding for the fixture {other}"),
    }
}

fn no_environment(_: &str) -> Option<String> {
    None
}

fn decode_with(
    payload: &[u8],
    native_event: &str,
    opt_in: &[String],
    env: &dyn Fn(&str) -> Option<String>,
) -> Decoded {
    let (event, decoder) = binding(native_event);
    hosts::decoder(decoder).unwrap().decode(&DecodeInput {
        payload,
        event,
        native_event,
        opt_in,
        env,
        max_depth: 64,
    })
}

fn decode(payload: &[u8], native_event: &str) -> CanonicalEvent {
    match decode_with(payload, native_event, &[], &no_environment) {
        Decoded::Event(event) => *event,
        Decoded::Silent(silence) => panic!("{native_event}: {silence}"),
    }
}

fn schema() -> jsonschema::Validator {
    let text = std::fs::read_to_string(repo().join("schemas/canonical-event.schema.json")).unwrap();
    jsonschema::draft202012::new(&serde_json::from_str::<Value>(&text).unwrap()).unwrap()
}

fn assert_valid(event: &CanonicalEvent) {
    let value = serde_json::to_value(event).unwrap();
    let errors: Vec<String> = schema()
        .iter_errors(&value)
        .map(|error| format!("{error} at {}", error.instance_path()))
        .collect();
    assert_eq!(errors, Vec::<String>::new(), "{value:#}");
}

#[test]
fn claude_fixtures() {
    insta::glob!("../../fixtures/hosts/claude", "*.json", |path| {
        let native_event = path.file_stem().unwrap().to_str().unwrap();
        let payload = std::fs::read(path).unwrap();
        let event = decode(&payload, native_event);
        assert_valid(&event);
        insta::assert_json_snapshot!(event, {".idempotencyKey" => "[sha256]"});
    });
}

fn fixture(native_event: &str) -> Vec<u8> {
    std::fs::read(repo().join(format!("fixtures/hosts/claude/{native_event}.json"))).unwrap()
}

#[test]
fn the_project_directory_is_native_and_the_working_directory_derived() {
    let payload = fixture("PostToolUse");
    let event = decode(&payload, "PostToolUse");
    assert_eq!(
        event.workspace,
        Axis::Available {
            value: "/Users/...".into(),
            source: AxisSource::Derived
        }
    );
    let project = |name: &str| (name == "CLAUDE_PROJECT_DIR").then(|| "/home/u/project".to_owned());
    let Decoded::Event(event) = decode_with(&payload, "PostToolUse", &[], &project) else {
        panic!()
    };
    assert_eq!(event.workspace.value(), Some("/home/u/project"));
    assert!(matches!(
        event.workspace,
        Axis::Available {
            source: AxisSource::Native,
            ..
        }
    ));

    let mut bare: Value = serde_json::from_slice(&payload).unwrap();
    bare.as_object_mut().unwrap().remove("session_id");
    bare.as_object_mut().unwrap().remove("cwd");
    let event = decode(&serde_json::to_vec(&bare).unwrap(), "PostToolUse");
    assert_valid(&event);
    assert_eq!(
        serde_json::to_value((&event.session, &event.workspace)).unwrap(),
        json!([
            {"state": "unavailable", "reason": "the payload has no `session_id`"},
            {"state": "unavailable", "reason": "neither $CLAUDE_PROJECT_DIR nor `cwd` is set"}
        ])
    );
}

#[test]
fn claude_tool_names_map_to_canonical_selectors() {
    let mut payload: Value = serde_json::from_slice(&fixture("PreToolUse")).unwrap();
    for (name, selector) in [
        ("Write", ToolSelector::FileWrite),
        ("Edit", ToolSelector::FileWrite),
        ("MultiEdit", ToolSelector::FileWrite),
        ("NotebookEdit", ToolSelector::FileWrite),
        ("Read", ToolSelector::FileRead),
        ("Bash", ToolSelector::Shell),
        (
            "mcp__plugin_curator_library__search_books",
            ToolSelector::Mcp,
        ),
        ("Task", ToolSelector::Agent),
        ("Agent", ToolSelector::Agent),
        ("WebFetch", ToolSelector::Other),
        ("bash", ToolSelector::Other),
    ] {
        payload["tool_name"] = name.into();
        let event = decode(&serde_json::to_vec(&payload).unwrap(), "PreToolUse");
        let tool = event.tool.unwrap();
        assert_eq!((tool.name.as_str(), tool.selector), (name, selector));
    }
}

#[test]
fn unbounded_fields_enter_native_only_when_the_route_names_them() {
    let payload = fixture("Stop");
    let event = decode(&payload, "Stop");
    assert!(!event.native.contains_key("last_assistant_message"));
    assert!(!event.native.contains_key("background_tasks"));
    assert_eq!(event.native["stop_hook_active"], json!(true));
    let opt_in = vec!["last_assistant_message".to_owned(), "cwd".to_owned()];
    let Decoded::Event(event) = decode_with(&payload, "Stop", &opt_in, &no_environment) else {
        panic!()
    };
    assert_eq!(
        event.native["last_assistant_message"],
        json!("I've completed the refactoring. Here's a summary...")
    );
    // A field no decoder documents never enters, asked for or not.
    let mut extra: Value = serde_json::from_slice(&payload).unwrap();
    extra["user_email"] = "someone@example.com".into();
    let opt_in = vec!["user_email".to_owned()];
    let Decoded::Event(event) = decode_with(
        &serde_json::to_vec(&extra).unwrap(),
        "Stop",
        &opt_in,
        &no_environment,
    ) else {
        panic!()
    };
    assert!(!event.native.contains_key("user_email"));
}

#[test]
fn long_tool_input_and_prompt_are_kept_whole() {
    // A guard judges the whole input: a 1.1 MB Write and a 200 KB prompt reach it uncut.
    let mut payload: Value = serde_json::from_slice(&fixture("PostToolUse")).unwrap();
    payload["tool_input"]["content"] = "x".repeat(1_100_000).into();
    let event = decode(&serde_json::to_vec(&payload).unwrap(), "PostToolUse");
    assert_valid(&event);
    let tool = event.tool.unwrap();
    assert!(!tool.truncated && !tool.lossy);
    assert_eq!(tool.input["content"].as_str().unwrap().len(), 1_100_000);

    let mut payload: Value = serde_json::from_slice(&fixture("UserPromptSubmit")).unwrap();
    payload["prompt"] = "é".repeat(100_000).into();
    let event = decode(&serde_json::to_vec(&payload).unwrap(), "UserPromptSubmit");
    assert_valid(&event);
    let prompt = event.prompt.unwrap();
    assert_eq!(
        (prompt.text.chars().count(), prompt.truncated),
        (100_000, false)
    );
}

/// The fixture `native_event` with `field` set to `raw`, JSON text spliced in as it is.
fn with_raw_field(native_event: &str, field: &str, raw: &str) -> Vec<u8> {
    let mut payload: Value = serde_json::from_slice(&fixture(native_event)).unwrap();
    payload[field] = "RAW-FIELD".into();
    payload
        .to_string()
        .replacen("\"RAW-FIELD\"", raw, 1)
        .into_bytes()
}

#[test]
fn deep_tool_input_is_cut_at_the_depth_limit_and_marked() {
    // Deeper than serde_json's 128 levels: read, kept to the limit, and said so.
    let deep = format!(
        "{{\"command\":\"ls\",\"nested\":{}1{}}}",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let event = decode(
        &with_raw_field("PreToolUse", "tool_input", &deep),
        "PreToolUse",
    );
    assert_valid(&event);
    let tool = event.tool.unwrap();
    assert!(tool.truncated);
    assert_eq!(tool.input["command"], "ls");
    assert!(tool.input["nested"].is_array());
    // Only the field that was cut is marked: a shallow input is whole.
    assert!(
        !decode(&fixture("PreToolUse"), "PreToolUse")
            .tool
            .unwrap()
            .truncated
    );
}

#[test]
fn a_lone_surrogate_is_read_as_a_replacement_character_and_marked_lossy() {
    let payload = with_raw_field("UserPromptSubmit", "prompt", "\"\\ud800 then\"");
    let event = decode(&payload, "UserPromptSubmit");
    assert_valid(&event);
    let prompt = event.prompt.unwrap();
    assert!(prompt.lossy);
    assert_eq!(prompt.text, "\u{FFFD} then");
    let payload = with_raw_field("PreToolUse", "tool_input", "{\"command\":\"echo \\udc00\"}");
    let tool = decode(&payload, "PreToolUse").tool.unwrap();
    assert!(tool.lossy && !tool.truncated);
    assert_eq!(tool.input["command"], "echo \u{FFFD}");
}

#[test]
fn the_idempotency_key_follows_the_delivery() {
    let payload = fixture("PreToolUse");
    let first = decode(&payload, "PreToolUse").idempotency_key;
    assert_eq!(first, decode(&payload, "PreToolUse").idempotency_key);
    let mut other: Value = serde_json::from_slice(&payload).unwrap();
    other["tool_use_id"] = "toolu_02".into();
    let second = decode(&serde_json::to_vec(&other).unwrap(), "PreToolUse").idempotency_key;
    assert_ne!(first, second);
}

#[test]
fn a_payload_for_another_event_is_silence() {
    let Decoded::Silent(silence) =
        decode_with(&fixture("PreToolUse"), "PostToolUse", &[], &no_environment)
    else {
        panic!()
    };
    assert_eq!(
        silence,
        Silence::OtherEvent {
            found: "PreToolUse".into(),
            expected: "PostToolUse".into()
        }
    );
}
