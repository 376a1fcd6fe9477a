//! Claude Code's hook envelopes and outputs (the host contracts reference §2.3 and §2.4), as
//! data: the envelope, one decoder per payload shape and one encoder per output shape, under
//! the ids the compiler's Claude host table writes into the manifest.
//!
//! | Native event | Decoder | Encoder |
//! |---|---|---|
//! | SessionStart, SessionEnd | `claude.session` | `claude.context`, `claude.silent` |
//! | UserPromptSubmit | `claude.prompt` | `claude.prompt` |
//! | PreToolUse | `claude.tool` | `claude.pre-tool` |
//! | PostToolUse, PostToolUseFailure | `claude.tool` | `claude.post-tool` |
//! | PermissionRequest, PermissionDenied | `claude.tool` | `claude.permission`, `claude.context` |
//! | SubagentStart, SubagentStop | `claude.agent` | `claude.context`, `claude.stop` |
//! | Stop, StopFailure | `claude.stop` | `claude.stop`, `claude.silent` |
//! | PreCompact, PostCompact | `claude.compact` | `claude.block`, `claude.silent` |
//! | Notification | `claude.notification` | `claude.silent` |
//! | ConfigChange | `claude.config` | `claude.block` |
//! | TaskCreated, TaskCompleted | `claude.task` | `claude.block`, `claude.silent` |
//! | FileChanged | `claude.file` | `claude.silent` |
//! | CwdChanged | `claude.cwd` | `claude.silent` |

use serde_json::{Map, Value};

use super::HostTables;
use super::decode::{Decoder, HostEnvelope, ToolNames, ToolRow, ToolShape};
use super::encode::{Accepts, Encoder};
use crate::canonical::ToolSelector;
use crate::project::hook::HookAnswer;

pub const TABLES: HostTables = HostTables {
    decoders: DECODERS,
    encoders: ENCODERS,
};

const ENVELOPE: HostEnvelope = HostEnvelope {
    host: "claude",
    contract_revision: "claude-code-hooks/2026-08-22",
    event_field: "hook_event_name",
    session_field: "session_id",
    cwd_field: "cwd",
    // Claude Code exports the project root to hook commands; `cwd` follows `cd` and worktrees.
    project_dir_env: Some("CLAUDE_PROJECT_DIR"),
    roots_field: None,
    tool_name_field: "tool_name",
    tool_input_field: "tool_input",
    prompt_field: "prompt",
    common_fields: &[
        "session_id",
        "prompt_id",
        "transcript_path",
        "cwd",
        "permission_mode",
        "effort",
        "hook_event_name",
        "agent_id",
        "agent_type",
    ],
    common_opt_in_fields: &[],
    tools: &[
        ToolRow {
            selector: ToolSelector::Shell,
            names: ToolNames::Exact(&["Bash"]),
        },
        ToolRow {
            selector: ToolSelector::FileRead,
            names: ToolNames::Exact(&["Read"]),
        },
        ToolRow {
            selector: ToolSelector::FileWrite,
            names: ToolNames::Exact(&["Write", "Edit", "MultiEdit", "NotebookEdit"]),
        },
        ToolRow {
            selector: ToolSelector::Mcp,
            names: ToolNames::Prefix("mcp__"),
        },
        // The subagent tool was called `Task` before it became `Agent`.
        ToolRow {
            selector: ToolSelector::Agent,
            names: ToolNames::Exact(&["Task", "Agent"]),
        },
    ],
    foreign,
};

/// Cursor replays Claude plugin hooks with its own payloads: those lack a field Claude Code sends
/// on every event (`session_id` on tool events, `cwd` on session events) and carry Cursor's base
/// fields. Nothing else is foreign: Codex never
/// runs this document (its plugins point at their own), and a field Claude Code adds (a Codex-like
/// `turn_id`) must not silence a guard.
fn foreign(payload: &Map<String, Value>) -> Option<&'static str> {
    const CURSOR: &[&str] = &[
        "cursor_version",
        "conversation_id",
        "generation_id",
        "workspace_roots",
    ];
    let always = ["session_id", "cwd"];
    (always.iter().any(|field| !payload.contains_key(*field))
        && CURSOR.iter().any(|field| payload.contains_key(*field)))
    .then_some("cursor")
}

const fn decoder(
    id: &'static str,
    fields: &'static [&'static str],
    opt_in_fields: &'static [&'static str],
) -> Decoder {
    Decoder::plain(id, &ENVELOPE, fields, opt_in_fields)
}

const DECODERS: &[Decoder] = &[
    decoder(
        "claude.session",
        &["source", "model", "session_title", "reason"],
        &[],
    ),
    Decoder {
        prompt: true,
        ..decoder("claude.prompt", &[], &[])
    },
    decoder(
        "claude.agent",
        &["stop_hook_active", "agent_transcript_path"],
        &["last_assistant_message"],
    ),
    Decoder {
        tool: ToolShape::Named,
        ..decoder(
            "claude.tool",
            &[
                "tool_name",
                "tool_use_id",
                "duration_ms",
                "is_interrupt",
                "error",
            ],
            &["tool_response"],
        )
    },
    decoder(
        "claude.compact",
        &["trigger"],
        &["custom_instructions", "compact_summary"],
    ),
    decoder(
        "claude.stop",
        &["stop_hook_active", "error"],
        &[
            "last_assistant_message",
            "background_tasks",
            "session_crons",
        ],
    ),
    decoder(
        "claude.notification",
        &["notification_type", "title"],
        &["message"],
    ),
    decoder("claude.config", &["source", "file_path"], &[]),
    decoder("claude.task", &[], &[]),
    decoder("claude.file", &["file_path", "event"], &[]),
    decoder("claude.cwd", &["old_cwd", "new_cwd"], &[]),
];

const CONTEXT_AND_NOTICE: Accepts = Accepts {
    context: true,
    deny: false,
    notice: true,
};
const EVERYTHING: Accepts = Accepts {
    context: true,
    deny: true,
    notice: true,
};
const NOTHING: Accepts = Accepts {
    context: false,
    deny: false,
    notice: false,
};

const ENCODERS: &[Encoder] = &[
    // SessionStart, SubagentStart: context before the first prompt; no decision control.
    Encoder {
        id: "claude.context",
        accepts: CONTEXT_AND_NOTICE,
        write: write_without_deny,
    },
    Encoder {
        id: "claude.pre-tool",
        accepts: EVERYTHING,
        write: write_permission_deny,
    },
    // PostToolUse: `decision: "block"` puts the reason next to the tool result (it already ran).
    Encoder {
        id: "claude.post-tool",
        accepts: EVERYTHING,
        write: write_block,
    },
    // UserPromptSubmit: a block erases the prompt and shows the reason to the user.
    Encoder {
        id: "claude.prompt",
        accepts: EVERYTHING,
        write: write_block,
    },
    // Stop, SubagentStop: a block continues the turn with the reason as Claude's instruction.
    Encoder {
        id: "claude.stop",
        accepts: EVERYTHING,
        write: write_block,
    },
    // PermissionRequest: `hookSpecificOutput.decision.{behavior: "deny", message}` (the shape
    // Codex copied); allowing, rewriting the input or the permissions is never written.
    Encoder {
        id: "claude.permission",
        accepts: Accepts {
            deny: true,
            notice: true,
            ..NOTHING
        },
        write: write_permission_request,
    },
    // PreCompact, ConfigChange, TaskCreated: block only (PreCompact discards `systemMessage`).
    Encoder {
        id: "claude.block",
        accepts: Accepts {
            deny: true,
            ..NOTHING
        },
        write: write_block,
    },
    // SessionEnd, PostCompact, FileChanged, Notification, …: no decision control at all.
    Encoder {
        id: "claude.silent",
        accepts: NOTHING,
        write: write_without_deny,
    },
];

fn write_without_deny(native_event: &str, answer: &HookAnswer) -> Map<String, Value> {
    write(native_event, answer, DenyShape::None)
}

fn write_permission_deny(native_event: &str, answer: &HookAnswer) -> Map<String, Value> {
    write(native_event, answer, DenyShape::PermissionDecision)
}

fn write_block(native_event: &str, answer: &HookAnswer) -> Map<String, Value> {
    write(native_event, answer, DenyShape::DecisionBlock)
}

pub(super) enum DenyShape {
    None,
    /// `hookSpecificOutput.permissionDecision: "deny"`; the reason goes to Claude.
    PermissionDecision,
    /// Top-level `decision: "block"` with a `reason`.
    DecisionBlock,
}

/// `{decision?, reason?, hookSpecificOutput?, systemMessage?}`: several texts of one kind are
/// joined, context by blank lines, reasons and notices by newlines.
///
/// Codex reads the same shape (stricter: see `codex.rs`), so its encoders share this writer.
pub(super) fn write(
    native_event: &str,
    answer: &HookAnswer,
    deny: DenyShape,
) -> Map<String, Value> {
    let mut output = Map::new();
    let mut specific = Map::new();
    let reason = (!answer.deny.is_empty()).then(|| answer.deny.join("\n"));
    match (deny, reason) {
        (DenyShape::DecisionBlock, Some(reason)) => {
            output.insert("decision".into(), "block".into());
            output.insert("reason".into(), reason.into());
        }
        (DenyShape::PermissionDecision, Some(reason)) => {
            specific.insert("permissionDecision".into(), "deny".into());
            specific.insert("permissionDecisionReason".into(), reason.into());
        }
        _ => {}
    }
    if !answer.context.is_empty() {
        specific.insert(
            "additionalContext".into(),
            answer.context.join("\n\n").into(),
        );
    }
    if !specific.is_empty() {
        let mut named = Map::new();
        named.insert("hookEventName".into(), native_event.into());
        named.extend(specific);
        output.insert("hookSpecificOutput".into(), Value::Object(named));
    }
    if !answer.notice.is_empty() {
        output.insert("systemMessage".into(), answer.notice.join("\n").into());
    }
    output
}

/// `{hookSpecificOutput: {hookEventName, decision: {behavior: "deny", message}}, systemMessage?}`,
/// the PermissionRequest answer of Claude Code and of Codex.
pub(super) fn write_permission_request(
    native_event: &str,
    answer: &HookAnswer,
) -> Map<String, Value> {
    let notice = HookAnswer {
        notice: answer.notice.clone(),
        ..HookAnswer::default()
    };
    let mut output = write(native_event, &notice, DenyShape::None);
    if !answer.deny.is_empty() {
        let mut decision = Map::new();
        decision.insert("behavior".into(), "deny".into());
        decision.insert("message".into(), answer.deny.join("\n").into());
        let mut specific = Map::new();
        specific.insert("hookEventName".into(), native_event.into());
        specific.insert("decision".into(), Value::Object(decision));
        output.insert("hookSpecificOutput".into(), Value::Object(specific));
    }
    output
}
