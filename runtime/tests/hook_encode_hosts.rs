//! The Codex and Cursor encoders: for each native event, what the host receives for context, a
//! deny, a notice, all three, and nothing (one snapshot per event, read like a table), and
//! Codex's strict output rules checked on every output: only documented fields (an unknown one
//! voids the output), a deny reason never empty, no `ask`, no `continue`.

use std::fmt::Write as _;

use abgen_runtime::hosts;
use abgen_runtime::project::hook::HookAnswer;
use serde_json::Value;

/// (native event, encoder id), as the host matrix binds them.
const CODEX: &[(&str, &str)] = &[
    ("SessionStart", "codex.context"),
    ("SubagentStart", "codex.context"),
    ("UserPromptSubmit", "codex.prompt"),
    ("PreToolUse", "codex.pre-tool"),
    ("PostToolUse", "codex.post-tool"),
    ("PermissionRequest", "codex.permission"),
    ("Stop", "codex.stop"),
    ("SubagentStop", "codex.stop"),
    ("PreCompact", "codex.notice"),
    ("PostCompact", "codex.notice"),
    ("Interrupt", "codex.notice"),
    ("SessionEnd", "codex.silent"),
];

const CURSOR: &[(&str, &str)] = &[
    ("sessionStart", "cursor.session"),
    ("sessionEnd", "cursor.silent"),
    ("beforeSubmitPrompt", "cursor.prompt"),
    ("preToolUse", "cursor.pre-tool"),
    ("beforeShellExecution", "cursor.pre-tool"),
    ("beforeMCPExecution", "cursor.pre-tool"),
    ("beforeReadFile", "cursor.read-file"),
    ("postToolUse", "cursor.post-tool"),
    ("postToolUseFailure", "cursor.silent"),
    ("afterShellExecution", "cursor.silent"),
    ("afterMCPExecution", "cursor.silent"),
    ("afterFileEdit", "cursor.silent"),
    ("subagentStart", "cursor.agent-start"),
    ("subagentStop", "cursor.stop"),
    ("stop", "cursor.stop"),
    ("preCompact", "cursor.compact"),
    ("workspaceOpen", "cursor.silent"),
];

fn answer(context: &[&str], deny: &[&str], notice: &[&str]) -> HookAnswer {
    let owned = |list: &[&str]| list.iter().map(|text| (*text).to_owned()).collect();
    HookAnswer {
        context: owned(context),
        deny: owned(deny),
        notice: owned(notice),
    }
}

fn cases() -> Vec<(&'static str, HookAnswer)> {
    vec![
        ("context", answer(&["Reading: *Middlemarch*."], &[], &[])),
        (
            "two contexts",
            answer(&["First paragraph.", "Second paragraph."], &[], &[]),
        ),
        ("deny", answer(&[], &["`rm -rf` is not allowed here"], &[])),
        ("notice", answer(&[], &[], &["3 books still unshelved"])),
        (
            "all three",
            answer(&["Some context."], &["Not now."], &["For the user."]),
        ),
        ("nothing", HookAnswer::default()),
    ]
}

/// One event's outputs as a table, each output checked by `check`.
fn table(native_event: &str, encoder_id: &str, check: &dyn Fn(&str, &Value)) -> String {
    let encoder = hosts::encoder(encoder_id).expect(encoder_id);
    let mut table = String::new();
    for (name, answer) in cases() {
        let output = encoder.encode(native_event, &answer);
        assert_eq!(output.exit_code, 0, "{native_event} {name}");
        let stdout = if output.stdout.is_empty() {
            "(no output)".to_owned()
        } else {
            assert!(output.stdout.ends_with("}\n"));
            let value: Value = serde_json::from_str(&output.stdout).unwrap();
            assert_ne!(
                value,
                Value::Object(Default::default()),
                "{native_event} {name}"
            );
            check(native_event, &value);
            output.stdout.trim_end().to_owned()
        };
        let _ = writeln!(table, "{name}: {stdout}");
        if !output.dropped.is_empty() {
            let _ = writeln!(table, "  left out: {}", output.dropped.join(", "));
        }
    }
    table
}

/// The fields Codex's output schema documents for `native_event` (the host contracts reference
/// §3.4); anything else voids the whole output.
fn codex_allowed(native_event: &str) -> (&'static [&'static str], &'static [&'static str]) {
    const SPECIFIC_CONTEXT: &[&str] = &["hookEventName", "additionalContext"];
    match native_event {
        "PreToolUse" => (
            &["hookSpecificOutput", "systemMessage"],
            &[
                "hookEventName",
                "additionalContext",
                "permissionDecision",
                "permissionDecisionReason",
            ],
        ),
        "PostToolUse" | "UserPromptSubmit" => (
            &["decision", "reason", "hookSpecificOutput", "systemMessage"],
            SPECIFIC_CONTEXT,
        ),
        "SessionStart" | "SubagentStart" => {
            (&["hookSpecificOutput", "systemMessage"], SPECIFIC_CONTEXT)
        }
        "Stop" | "SubagentStop" => (&["decision", "reason", "systemMessage"], &[]),
        "PermissionRequest" => (
            &["hookSpecificOutput", "systemMessage"],
            &["hookEventName", "decision"],
        ),
        "PreCompact" | "PostCompact" | "Interrupt" => (&["systemMessage"], &[]),
        _ => (&[], &[]),
    }
}

fn check_codex(native_event: &str, value: &Value) {
    let (top, specific) = codex_allowed(native_event);
    let object = value.as_object().unwrap();
    for key in object.keys() {
        assert!(top.contains(&key.as_str()), "{native_event}: `{key}`");
    }
    if let Some(inner) = object.get("hookSpecificOutput") {
        for key in inner.as_object().unwrap().keys() {
            assert!(specific.contains(&key.as_str()), "{native_event}: `{key}`");
        }
        assert_eq!(inner["hookEventName"], native_event);
        assert_ne!(inner.get("permissionDecision"), Some(&Value::from("ask")));
        if let Some(reason) = inner.get("permissionDecisionReason") {
            assert!(!reason.as_str().unwrap().is_empty());
        }
        if let Some(decision) = inner.get("decision") {
            assert_eq!(decision["behavior"], "deny");
            assert!(!decision["message"].as_str().unwrap().is_empty());
        }
    }
    // `reason` only with `decision: "block"`, and never empty.
    if let Some(reason) = object.get("reason") {
        assert_eq!(object["decision"], "block");
        assert!(!reason.as_str().unwrap().is_empty());
    }
    assert!(!object.contains_key("continue"));
}

/// Cursor's output fields per event (the host contracts reference §4.4).
fn check_cursor(native_event: &str, value: &Value) {
    let allowed: &[&str] = match native_event {
        "preToolUse" | "beforeShellExecution" | "beforeMCPExecution" => {
            &["permission", "user_message", "agent_message"]
        }
        "beforeReadFile" | "subagentStart" => &["permission", "user_message"],
        "postToolUse" | "sessionStart" => &["additional_context"],
        "beforeSubmitPrompt" => &["continue", "user_message"],
        "stop" | "subagentStop" => &["followup_message"],
        "preCompact" => &["user_message"],
        _ => &[],
    };
    for key in value.as_object().unwrap().keys() {
        assert!(allowed.contains(&key.as_str()), "{native_event}: `{key}`");
    }
    if let Some(permission) = value.get("permission") {
        assert_eq!(permission, "deny");
    }
}

#[test]
fn codex_outputs_per_event() {
    for (native_event, encoder_id) in CODEX {
        let table = table(native_event, encoder_id, &check_codex);
        insta::assert_snapshot!(format!("codex_{native_event}"), table, encoder_id);
    }
}

#[test]
fn cursor_outputs_per_event() {
    for (native_event, encoder_id) in CURSOR {
        let table = table(native_event, encoder_id, &check_cursor);
        insta::assert_snapshot!(format!("cursor_{native_event}"), table, encoder_id);
    }
}

/// Every encoder of every host answers on exit 0: the deny lives in the JSON, because exit 2
/// means something different on each host (Claude erases a prompt, Codex needs stderr, Cursor
/// blocks whatever the JSON says).
#[test]
fn every_encoder_exits_zero() {
    let all = answer(&["c"], &["d"], &["n"]);
    for host in hosts::HOSTS {
        for encoder in host.encoders {
            assert_eq!(encoder.encode("Event", &all).exit_code, 0, "{}", encoder.id);
        }
    }
}

/// Ids are unique across hosts and prefixed with their host, so the manifest's id names one
/// table row.
#[test]
fn ids_are_unique_and_name_their_host() {
    let mut ids = Vec::new();
    for host in hosts::HOSTS {
        let name = host.decoders[0].envelope.host;
        for id in host
            .decoders
            .iter()
            .map(|decoder| decoder.id)
            .chain(host.encoders.iter().map(|encoder| encoder.id))
        {
            assert!(id.starts_with(&format!("{name}.")), "{id}");
            ids.push(id);
        }
    }
    assert!(ids.len() > 40, "{}", ids.len());
    let decoders = hosts::HOSTS.iter().flat_map(|host| host.decoders).count();
    // A decoder and an encoder may share a name (`codex.prompt`); two decoders may not.
    let mut decoder_ids: Vec<&str> = hosts::HOSTS
        .iter()
        .flat_map(|host| host.decoders)
        .map(|decoder| decoder.id)
        .collect();
    decoder_ids.sort_unstable();
    decoder_ids.dedup();
    assert_eq!(decoder_ids.len(), decoders);
    let encoders = hosts::HOSTS.iter().flat_map(|host| host.encoders).count();
    let mut encoder_ids: Vec<&str> = hosts::HOSTS
        .iter()
        .flat_map(|host| host.encoders)
        .map(|encoder| encoder.id)
        .collect();
    encoder_ids.sort_unstable();
    encoder_ids.dedup();
    assert_eq!(encoder_ids.len(), encoders);
}
