//! The built-in sample envelopes of `abgen hooks simulate`: the documented Claude Code payloads
//! kept in `fixtures/hosts/claude/` (see its PROVENANCE.md), one per native event.

const CLAUDE: &[(&str, &str)] = &[
    (
        "CwdChanged",
        include_str!("../../../fixtures/hosts/claude/CwdChanged.json"),
    ),
    (
        "FileChanged",
        include_str!("../../../fixtures/hosts/claude/FileChanged.json"),
    ),
    (
        "PostToolUse",
        include_str!("../../../fixtures/hosts/claude/PostToolUse.json"),
    ),
    (
        "PostToolUseFailure",
        include_str!("../../../fixtures/hosts/claude/PostToolUseFailure.json"),
    ),
    (
        "PreCompact",
        include_str!("../../../fixtures/hosts/claude/PreCompact.json"),
    ),
    (
        "PreToolUse",
        include_str!("../../../fixtures/hosts/claude/PreToolUse.json"),
    ),
    (
        "SessionEnd",
        include_str!("../../../fixtures/hosts/claude/SessionEnd.json"),
    ),
    (
        "SessionStart",
        include_str!("../../../fixtures/hosts/claude/SessionStart.json"),
    ),
    (
        "Stop",
        include_str!("../../../fixtures/hosts/claude/Stop.json"),
    ),
    (
        "SubagentStart",
        include_str!("../../../fixtures/hosts/claude/SubagentStart.json"),
    ),
    (
        "UserPromptSubmit",
        include_str!("../../../fixtures/hosts/claude/UserPromptSubmit.json"),
    ),
];

/// The sample payload `host` sends for `native_event`, if there is one.
pub fn sample_envelope(host: &str, native_event: &str) -> Option<String> {
    let samples = match host {
        "claude" => CLAUDE,
        _ => return None,
    };
    samples
        .iter()
        .find(|(event, _)| *event == native_event)
        .map(|(_, payload)| (*payload).to_owned())
}
