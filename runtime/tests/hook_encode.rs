//! The Claude encoders: for each native event, what the host receives for context, a deny, a
//! notice, all three, and nothing (one snapshot per event, read like a table), checked against
//! the output contract of the host contracts reference §2.4.

use std::fmt::Write as _;

use abgen_runtime::hosts;
use abgen_runtime::project::hook::HookAnswer;
use serde_json::Value;

/// Native event → encoder id, as the compiler's Claude host table binds them.
const EVENTS: &[(&str, &str)] = &[
    ("SessionStart", "claude.context"),
    ("SubagentStart", "claude.context"),
    ("UserPromptSubmit", "claude.prompt"),
    ("PreToolUse", "claude.pre-tool"),
    ("PostToolUse", "claude.post-tool"),
    ("Stop", "claude.stop"),
    ("SubagentStop", "claude.stop"),
    ("PostToolUseFailure", "claude.post-tool"),
    ("Notification", "claude.silent"),
    ("ConfigChange", "claude.block"),
    ("TaskCreated", "claude.block"),
    ("PermissionDenied", "claude.context"),
    ("PostCompact", "claude.silent"),
    ("StopFailure", "claude.silent"),
    ("TaskCompleted", "claude.silent"),
    ("FileChanged", "claude.silent"),
    ("CwdChanged", "claude.silent"),
    ("PermissionRequest", "claude.permission"),
    ("PreCompact", "claude.block"),
    ("SessionEnd", "claude.silent"),
];

fn answer(context: &[&str], deny: &[&str], notice: &[&str]) -> HookAnswer {
    let owned = |list: &[&str]| list.iter().map(|text| (*text).to_owned()).collect();
    HookAnswer {
        context: owned(context),
        deny: owned(deny),
        notice: owned(notice),
    }
}

#[test]
fn claude_outputs_per_event() {
    let cases = [
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
    ];
    for (native_event, encoder_id) in EVENTS {
        let encoder = hosts::encoder(encoder_id).expect(encoder_id);
        let mut table = String::new();
        for (name, answer) in &cases {
            let output = encoder.encode(native_event, answer);
            assert_eq!(output.exit_code, 0);
            if !output.stdout.is_empty() {
                let value: Value = serde_json::from_str(&output.stdout).unwrap();
                if let Some(specific) = value.get("hookSpecificOutput") {
                    assert_eq!(specific["hookEventName"], *native_event);
                }
                assert!(output.stdout.ends_with("}\n"));
            }
            let stdout = if output.stdout.is_empty() {
                "(no output)".to_owned()
            } else {
                output.stdout.trim_end().to_owned()
            };
            let _ = writeln!(table, "{name}: {stdout}");
            if !output.dropped.is_empty() {
                let _ = writeln!(table, "  left out: {}", output.dropped.join(", "));
            }
        }
        insta::assert_snapshot!(native_event.to_string(), table, encoder_id);
    }
}

#[test]
fn only_pre_tool_use_denies_with_a_permission_decision() {
    let deny = answer(&[], &["no"], &[]);
    let pre = hosts::encoder("claude.pre-tool")
        .unwrap()
        .encode("PreToolUse", &deny);
    assert_eq!(
        pre.stdout,
        "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"no\"}}\n"
    );
    let stop = hosts::encoder("claude.stop").unwrap().encode("Stop", &deny);
    assert_eq!(stop.stdout, "{\"decision\":\"block\",\"reason\":\"no\"}\n");
    let start = hosts::encoder("claude.context")
        .unwrap()
        .encode("SessionStart", &deny);
    assert_eq!((start.stdout.as_str(), start.dropped), ("", vec!["a deny"]));
}
