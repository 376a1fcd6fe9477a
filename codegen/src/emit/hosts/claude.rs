//! The Claude Code host table (the host contracts reference §2: hooks, matchers, deadlines).
//!
//! Decoder and encoder ids name the runtime's envelope readers and output writers in
//! `runtime/src/hosts`; they are grouped by payload shape, not one per event.

use super::{EventRow, HostTable, MatcherSource, NativeTools, Support, ToolSelectorRow};

pub const CLAUDE: HostTable = HostTable {
    name: "claude",
    plugin_root_token: "${CLAUDE_PLUGIN_ROOT}",
    default_timeout_sec: 10,
    exit_margin_ms: 250,
    events: CLAUDE_EVENTS,
    tool_selectors: CLAUDE_TOOL_SELECTORS,
    exact_matcher_chars: is_portable_exact_char,
    plan_documents: crate::emit::claude::plan_claude_documents,
};

/// Letters, digits and `_`: the set every Claude Code version reads as an exact name (`-`,
/// space and `,` were added in later versions, and `FileChanged` still excludes them).
fn is_portable_exact_char(character: char) -> bool {
    character.is_ascii_alphanumeric() || character == '_'
}

const fn row(
    event: &'static str,
    native_event: &'static str,
    matcher: MatcherSource,
    decoder: &'static str,
    encoder: &'static str,
) -> EventRow {
    EventRow {
        event,
        support: Support::Supported,
        native_event,
        matcher,
        decoder,
        encoder,
        budget_ms: None,
    }
}

const UNAVAILABLE: &str = "Claude Code has no hook event for it";

const fn unavailable(event: &'static str, reason: &'static str) -> EventRow {
    EventRow {
        event,
        support: Support::Unavailable { reason },
        native_event: "",
        matcher: MatcherSource::None,
        decoder: "",
        encoder: "",
        budget_ms: None,
    }
}

const CLAUDE_EVENTS: &[EventRow] = &[
    row(
        "session/start",
        "SessionStart",
        MatcherSource::None,
        "claude.session",
        "claude.context",
    ),
    EventRow {
        // Claude Code gives SessionEnd hooks 1.5 s in total; a plugin's timeout does not raise it.
        budget_ms: Some(1_500),
        ..row(
            "session/end",
            "SessionEnd",
            MatcherSource::None,
            "claude.session",
            "claude.silent",
        )
    },
    row(
        "prompt/submit",
        "UserPromptSubmit",
        MatcherSource::None,
        "claude.prompt",
        "claude.prompt",
    ),
    row(
        "agent/start",
        "SubagentStart",
        MatcherSource::None,
        "claude.agent",
        "claude.context",
    ),
    row(
        "agent/stop",
        "SubagentStop",
        MatcherSource::None,
        "claude.agent",
        "claude.stop",
    ),
    row(
        "tool/before",
        "PreToolUse",
        MatcherSource::ToolSelectors,
        "claude.tool",
        "claude.pre-tool",
    ),
    row(
        "tool/after",
        "PostToolUse",
        MatcherSource::ToolSelectors,
        "claude.tool",
        "claude.post-tool",
    ),
    row(
        "tool/failure",
        "PostToolUseFailure",
        MatcherSource::ToolSelectors,
        "claude.tool",
        "claude.post-tool",
    ),
    row(
        "permission/request",
        "PermissionRequest",
        MatcherSource::ToolSelectors,
        "claude.tool",
        "claude.permission",
    ),
    row(
        "permission/denied",
        "PermissionDenied",
        MatcherSource::ToolSelectors,
        "claude.tool",
        "claude.context",
    ),
    row(
        "compact/before",
        "PreCompact",
        MatcherSource::None,
        "claude.compact",
        "claude.block",
    ),
    row(
        "compact/after",
        "PostCompact",
        MatcherSource::None,
        "claude.compact",
        "claude.silent",
    ),
    row(
        "stop",
        "Stop",
        MatcherSource::None,
        "claude.stop",
        "claude.stop",
    ),
    row(
        "stop/failure",
        "StopFailure",
        MatcherSource::None,
        "claude.stop",
        "claude.silent",
    ),
    row(
        "notification",
        "Notification",
        MatcherSource::None,
        "claude.notification",
        "claude.silent",
    ),
    row(
        "config/change",
        "ConfigChange",
        MatcherSource::None,
        "claude.config",
        "claude.block",
    ),
    row(
        "task/create",
        "TaskCreated",
        MatcherSource::None,
        "claude.task",
        "claude.block",
    ),
    row(
        "task/complete",
        "TaskCompleted",
        MatcherSource::None,
        "claude.task",
        "claude.silent",
    ),
    row(
        "file/saved",
        "FileChanged",
        MatcherSource::FileNames,
        "claude.file",
        "claude.silent",
    ),
    EventRow {
        support: Support::Degraded {
            reason: "delivered as SessionStart with source `startup`",
        },
        ..row(
            "workspace/open",
            "SessionStart",
            MatcherSource::Fixed("startup"),
            "claude.session",
            "claude.context",
        )
    },
    unavailable("agent/idle", UNAVAILABLE),
    unavailable("model-switch/before", UNAVAILABLE),
    unavailable("model-switch/after", UNAVAILABLE),
    unavailable(
        "turn/interrupt",
        "Claude Code's Stop hook does not fire on a user interrupt",
    ),
];

const CLAUDE_TOOL_SELECTORS: &[ToolSelectorRow] = &[
    ToolSelectorRow {
        selector: "shell",
        tools: NativeTools::Names(&["Bash"]),
    },
    ToolSelectorRow {
        selector: "file.read",
        tools: NativeTools::Names(&["Read"]),
    },
    ToolSelectorRow {
        selector: "file.write",
        tools: NativeTools::Names(&["Write", "Edit", "MultiEdit"]),
    },
    // Plugin MCP tools are `mcp__plugin_<plugin>_<server>__<tool>`, others `mcp__<server>__<tool>`.
    ToolSelectorRow {
        selector: "mcp",
        tools: NativeTools::Pattern("^mcp__"),
    },
    // The subagent tool was called `Task` before it became `Agent`.
    ToolSelectorRow {
        selector: "agent",
        tools: NativeTools::Names(&["Agent", "Task"]),
    },
    ToolSelectorRow {
        selector: "other",
        tools: NativeTools::Any,
    },
];
