//! The Codex and Cursor decoders over every native payload in `fixtures/hosts/{codex,cursor}/`:
//! each decodes to a canonical event the schema accepts (snapshotted, idempotency key redacted);
//! tool names map to selectors, identifying fields stay out unless named, and every payload of
//! one host sent to another host's decoder is answered with silence.

use std::path::{Path, PathBuf};

use abgen_runtime::canonical::{Axis, AxisSource, CanonicalEvent, ToolSelector};
use abgen_runtime::hosts::{self, DecodeInput, Decoded, Silence};
use serde_json::{Value, json};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// (host, native event) → (canonical event, decoder id), as the host matrix binds them.
fn binding(host: &str, native_event: &str) -> (&'static str, &'static str) {
    match (host, native_event) {
        ("codex", "SessionStart") => ("session/start", "codex.session"),
        ("codex", "SessionEnd") => ("session/end", "codex.session"),
        ("codex", "UserPromptSubmit") => ("prompt/submit", "codex.prompt"),
        ("codex", "PreToolUse") => ("tool/before", "codex.tool"),
        ("codex", "PostToolUse") => ("tool/after", "codex.tool"),
        ("codex", "PermissionRequest") => ("permission/request", "codex.tool"),
        ("codex", "SubagentStart") => ("agent/start", "codex.agent"),
        ("codex", "SubagentStop") => ("agent/stop", "codex.agent"),
        ("codex", "Stop") => ("stop", "codex.stop"),
        ("codex", "PreCompact") => ("compact/before", "codex.compact"),
        ("codex", "PostCompact") => ("compact/after", "codex.compact"),
        ("codex", "Interrupt") => ("turn/interrupt", "codex.interrupt"),
        ("cursor", "sessionStart") => ("session/start", "cursor.session"),
        ("cursor", "sessionEnd") => ("session/end", "cursor.session"),
        ("cursor", "beforeSubmitPrompt") => ("prompt/submit", "cursor.prompt"),
        ("cursor", "preToolUse") => ("tool/before", "cursor.tool"),
        ("cursor", "postToolUse") => ("tool/after", "cursor.tool"),
        ("cursor", "postToolUseFailure") => ("tool/failure", "cursor.tool"),
        ("cursor", "beforeShellExecution") => ("tool/before", "cursor.shell"),
        ("cursor", "afterShellExecution") => ("tool/after", "cursor.shell"),
        ("cursor", "beforeMCPExecution") => ("tool/before", "cursor.mcp"),
        ("cursor", "afterMCPExecution") => ("tool/after", "cursor.mcp"),
        ("cursor", "beforeReadFile") => ("tool/before", "cursor.read-file"),
        ("cursor", "afterFileEdit") => ("file/saved", "cursor.file"),
        ("cursor", "subagentStart") => ("agent/start", "cursor.agent"),
        ("cursor", "subagentStop") => ("agent/stop", "cursor.agent"),
        ("cursor", "stop") => ("stop", "cursor.stop"),
        ("cursor", "preCompact") => ("compact/before", "cursor.compact"),
        ("cursor", "workspaceOpen") => ("workspace/open", "cursor.workspace"),
        other => panic!("no binding for the fixture {other:?}"),
    }
}

fn no_environment(_: &str) -> Option<String> {
    None
}

fn decode_with(
    host: &str,
    native_event: &str,
    payload: &[u8],
    opt_in: &[String],
    env: &dyn Fn(&str) -> Option<String>,
) -> Decoded {
    let (event, decoder) = binding(host, native_event);
    hosts::decoder(decoder).unwrap().decode(&DecodeInput {
        payload,
        event,
        native_event,
        opt_in,
        env,
        max_depth: 64,
    })
}

fn decode(host: &str, native_event: &str, payload: &[u8]) -> CanonicalEvent {
    match decode_with(host, native_event, payload, &[], &no_environment) {
        Decoded::Event(event) => *event,
        Decoded::Silent(silence) => panic!("{host} {native_event}: {silence}"),
    }
}

fn assert_valid(event: &CanonicalEvent) {
    let text = std::fs::read_to_string(repo().join("schemas/canonical-event.schema.json")).unwrap();
    let schema =
        jsonschema::draft202012::new(&serde_json::from_str::<Value>(&text).unwrap()).unwrap();
    let value = serde_json::to_value(event).unwrap();
    let errors: Vec<String> = schema
        .iter_errors(&value)
        .map(|error| format!("{error} at {}", error.instance_path()))
        .collect();
    assert_eq!(errors, Vec::<String>::new(), "{value:#}");
}

/// The native event of a fixture file: its stem up to a `-variant` suffix.
fn native_event(path: &Path) -> String {
    let stem = path.file_stem().unwrap().to_str().unwrap();
    stem.split('-').next().unwrap().to_owned()
}

fn fixture(host: &str, name: &str) -> Vec<u8> {
    std::fs::read(repo().join(format!("fixtures/hosts/{host}/{name}.json"))).unwrap()
}

#[test]
fn codex_fixtures() {
    insta::glob!("../../fixtures/hosts/codex", "*.json", |path| {
        let event = decode("codex", &native_event(path), &std::fs::read(path).unwrap());
        assert_valid(&event);
        insta::assert_json_snapshot!(event, {".idempotencyKey" => "[sha256]"});
    });
}

#[test]
fn cursor_fixtures() {
    insta::glob!("../../fixtures/hosts/cursor", "*.json", |path| {
        let event = decode("cursor", &native_event(path), &std::fs::read(path).unwrap());
        assert_valid(&event);
        insta::assert_json_snapshot!(event, {".idempotencyKey" => "[sha256]"});
    });
}

#[test]
fn tool_names_map_to_selectors_per_host() {
    let cases: &[(&str, &str, &str, ToolSelector)] = &[
        ("codex", "PreToolUse", "Bash", ToolSelector::Shell),
        (
            "codex",
            "PreToolUse",
            "apply_patch",
            ToolSelector::FileWrite,
        ),
        (
            "codex",
            "PreToolUse",
            "mcp__library__search",
            ToolSelector::Mcp,
        ),
        ("codex", "PreToolUse", "Write", ToolSelector::Other),
        ("cursor", "preToolUse", "Shell", ToolSelector::Shell),
        ("cursor", "preToolUse", "Read", ToolSelector::FileRead),
        ("cursor", "preToolUse", "Write", ToolSelector::FileWrite),
        ("cursor", "preToolUse", "Delete", ToolSelector::FileWrite),
        (
            "cursor",
            "preToolUse",
            "MCP:search_books",
            ToolSelector::Mcp,
        ),
        ("cursor", "preToolUse", "Task", ToolSelector::Agent),
        ("cursor", "preToolUse", "Grep", ToolSelector::Other),
    ];
    for (host, native_event, name, selector) in cases {
        let mut payload: Value = serde_json::from_slice(&fixture(host, native_event)).unwrap();
        payload["tool_name"] = (*name).into();
        let event = decode(host, native_event, &serde_json::to_vec(&payload).unwrap());
        let tool = event.tool.unwrap();
        assert_eq!(
            (tool.name.as_str(), tool.selector),
            (*name, *selector),
            "{host}"
        );
    }
    // Events about one kind of tool name it themselves.
    let shell = decode(
        "cursor",
        "beforeShellExecution",
        &fixture("cursor", "beforeShellExecution"),
    );
    let tool = shell.tool.unwrap();
    assert_eq!(
        (tool.name.as_str(), tool.selector, tool.input),
        (
            "Shell",
            ToolSelector::Shell,
            json!({"command": "git push origin main"})
        )
    );
    assert!(!shell.native.contains_key("command"));
    let mcp = decode(
        "cursor",
        "beforeMCPExecution",
        &fixture("cursor", "beforeMCPExecution"),
    );
    assert_eq!(mcp.tool.unwrap().selector, ToolSelector::Mcp);
}

#[test]
fn cursor_workspace_comes_from_its_environment_then_its_roots() {
    let payload = fixture("cursor", "stop");
    let event = decode("cursor", "stop", &payload);
    assert_eq!(
        event.workspace,
        Axis::Available {
            value: "/project".into(),
            source: AxisSource::Native
        }
    );
    assert_eq!(event.session.value(), Some("conv-456"));
    let project = |name: &str| (name == "CURSOR_PROJECT_DIR").then(|| "/home/u/p".to_owned());
    let Decoded::Event(event) = decode_with("cursor", "stop", &payload, &[], &project) else {
        panic!()
    };
    assert_eq!(event.workspace.value(), Some("/home/u/p"));
    // workspaceOpen has no conversation.
    let open = decode(
        "cursor",
        "workspaceOpen",
        &fixture("cursor", "workspaceOpen"),
    );
    assert!(matches!(open.session, Axis::Unavailable { .. }));
}

#[test]
fn identifying_and_unbounded_fields_need_the_routes_opt_in() {
    let mut payload: Value = serde_json::from_slice(&fixture("cursor", "postToolUse")).unwrap();
    payload["user_email"] = "someone@example.com".into();
    let payload = serde_json::to_vec(&payload).unwrap();
    let event = decode("cursor", "postToolUse", &payload);
    assert!(!event.native.contains_key("user_email"));
    assert!(!event.native.contains_key("tool_output"));
    let opt_in = vec!["user_email".to_owned(), "tool_output".to_owned()];
    let Decoded::Event(event) =
        decode_with("cursor", "postToolUse", &payload, &opt_in, &no_environment)
    else {
        panic!()
    };
    assert_eq!(event.native["user_email"], json!("someone@example.com"));
    assert!(event.native.contains_key("tool_output"));

    let event = decode("codex", "Stop", &fixture("codex", "Stop"));
    assert!(!event.native.contains_key("last_assistant_message"));
    assert_eq!(
        event.native["turn_id"],
        json!("019d036d-c7fa-72d2-b6fd-78878bfe34e5")
    );
}

/// Every fixture of every host, fed to a decoder of each other host for the same kind of event:
/// always silence naming the host it came from, never an event.
#[test]
fn another_hosts_payload_is_silence() {
    // (host, native event) of a decoder to try, for each host's fixtures.
    let decoders: &[(&str, &str, &str, &str)] = &[
        ("claude", "claude.tool", "tool/before", "PreToolUse"),
        ("claude", "claude.session", "session/start", "SessionStart"),
        ("claude", "claude.stop", "stop", "Stop"),
        ("codex", "codex.tool", "tool/before", "PreToolUse"),
        ("codex", "codex.stop", "stop", "Stop"),
        ("codex", "codex.prompt", "prompt/submit", "UserPromptSubmit"),
        ("cursor", "cursor.tool", "tool/before", "preToolUse"),
        ("cursor", "cursor.stop", "stop", "stop"),
        ("cursor", "cursor.session", "session/start", "sessionStart"),
    ];
    let mut checked = 0;
    for from in ["claude", "codex", "cursor"] {
        for entry in std::fs::read_dir(repo().join("fixtures/hosts").join(from)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|extension| extension != "json") {
                continue;
            }
            let mut payload: Value =
                serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
            // Codex's payloads are Claude Code's plus fields Claude Code does not send (`turn_id`,
            // `model`): extra fields never make a payload foreign, so to Claude they read as its
            // own. Codex never runs Claude Code's hooks document (its plugins point at their own),
            // and its SessionStart and SessionEnd (no `turn_id`) read as Claude's to Codex too.
            let stem = path.file_stem().unwrap().to_str().unwrap();
            let codex_session = from == "codex" && stem.starts_with("Session");
            let claude_session = from == "claude" && stem.starts_with("Session");
            for (host, decoder, event, native_event) in decoders {
                if *host == from
                    || (from == "codex" && *host == "claude")
                    || (claude_session && *host == "codex")
                {
                    continue;
                }
                // The same event name, so only the host tells the payload apart.
                payload["hook_event_name"] = (*native_event).into();
                let decoded = hosts::decoder(decoder).unwrap().decode(&DecodeInput {
                    payload: &serde_json::to_vec(&payload).unwrap(),
                    event,
                    native_event,
                    opt_in: &[],
                    env: &no_environment,
                    max_depth: 64,
                });
                match decoded {
                    Decoded::Silent(Silence::OtherHost { found, expected }) => {
                        // Without `turn_id`, Cursor cannot tell Codex's session payloads from
                        // Claude's; either way it is not Cursor's.
                        let found = if codex_session { "codex" } else { found };
                        assert_eq!((found, expected), (from, *host), "{}", path.display());
                    }
                    other => panic!("{} to {decoder}: {other:?}", path.display()),
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "{checked}");
}

/// Cursor delivers a turn interrupt only as a `stop` with `status: "aborted"`; the interrupt
/// decoder answers that case alone.
#[test]
fn a_cursor_interrupt_is_only_an_aborted_stop() {
    let decoder = hosts::decoder("cursor.interrupt").unwrap();
    let decode = |payload: &Value| {
        decoder.decode(&DecodeInput {
            payload: &serde_json::to_vec(payload).unwrap(),
            event: "turn/interrupt",
            native_event: "stop",
            opt_in: &[],
            env: &no_environment,
            max_depth: 64,
        })
    };
    let mut stop: Value = serde_json::from_slice(&fixture("cursor", "stop")).unwrap();
    let Decoded::Silent(silence) = decode(&stop) else {
        panic!("a completed stop is not an interrupt")
    };
    assert_eq!(
        silence,
        Silence::OtherCase {
            field: "status",
            expected: "aborted"
        }
    );
    stop["status"] = "aborted".into();
    let Decoded::Event(event) = decode(&stop) else {
        panic!("an aborted stop is an interrupt")
    };
    assert_valid(&event);
    assert_eq!(event.event, "turn/interrupt");
    assert_eq!(event.native["status"], json!("aborted"));
}
