//! OpenAI Codex's hook envelopes and outputs (the host contracts reference §3.3 and §3.4), as
//! data: the envelope, one decoder per payload shape and one encoder per output shape, under
//! the ids the compiler's Codex host table writes into the manifest.
//!
//! Codex validates hook output strictly: an unknown field, `permissionDecision: "ask"`,
//! `continue`, `stopReason` or `suppressOutput` where an event does not take them makes the
//! whole output invalid and the hook fails open. So these encoders write only the fields each
//! event documents and never write `continue` at all.
//!
//! | Native event | Decoder | Encoder |
//! |---|---|---|
//! | SessionStart, SessionEnd | `codex.session` | `codex.context`, `codex.silent` |
//! | UserPromptSubmit | `codex.prompt` | `codex.prompt` |
//! | PreToolUse, PostToolUse, PermissionRequest | `codex.tool` | `codex.pre-tool`, `codex.post-tool`, `codex.permission` |
//! | SubagentStart, SubagentStop | `codex.agent` | `codex.context`, `codex.stop` |
//! | Stop | `codex.stop` | `codex.stop` |
//! | PreCompact, PostCompact | `codex.compact` | `codex.notice` |
//! | Interrupt | `codex.interrupt` | `codex.notice` |

use serde_json::{Map, Value};

use super::HostTables;
use super::claude::{DenyShape, write, write_permission_request};
use super::decode::{Decoder, HostEnvelope, ToolNames, ToolRow, ToolShape};
use super::encode::{Accepts, Encoder};
use crate::canonical::ToolSelector;
use crate::project::hook::HookAnswer;

pub const TABLES: HostTables = HostTables {
    decoders: DECODERS,
    encoders: ENCODERS,
};

const ENVELOPE: HostEnvelope = HostEnvelope {
    host: "codex",
    contract_revision: "codex-hooks/2026-07-17",
    event_field: "hook_event_name",
    session_field: "session_id",
    cwd_field: "cwd",
    // Codex names no project directory; hooks run in the session's working directory.
    project_dir_env: None,
    roots_field: None,
    tool_name_field: "tool_name",
    tool_input_field: "tool_input",
    prompt_field: "prompt",
    common_fields: &[
        "session_id",
        "turn_id",
        "transcript_path",
        "cwd",
        "hook_event_name",
        "model",
        "permission_mode",
        "agent_id",
        "agent_type",
    ],
    common_opt_in_fields: &[],
    tools: &[
        // Every shell-like tool reports `Bash`.
        ToolRow {
            selector: ToolSelector::Shell,
            names: ToolNames::Exact(&["Bash"]),
        },
        ToolRow {
            selector: ToolSelector::FileWrite,
            names: ToolNames::Exact(&["apply_patch"]),
        },
        ToolRow {
            selector: ToolSelector::Mcp,
            names: ToolNames::Prefix("mcp__"),
        },
    ],
    foreign,
};

/// Cursor's payloads lack a field Codex always sends (`session_id`, `cwd`) and carry Cursor's base
/// fields; a
/// turn-scoped event without the `turn_id` Codex puts on every one is Claude Code's. Extra fields
/// never make a payload foreign: a newer Codex may send more.
fn foreign(payload: &Map<String, Value>) -> Option<&'static str> {
    const TURN_SCOPED: &[&str] = &[
        "PreToolUse",
        "PermissionRequest",
        "PostToolUse",
        "PreCompact",
        "PostCompact",
        "UserPromptSubmit",
        "Stop",
        "SubagentStart",
        "SubagentStop",
        "Interrupt",
    ];
    const CURSOR: &[&str] = &[
        "cursor_version",
        "conversation_id",
        "generation_id",
        "workspace_roots",
    ];
    let turn_scoped_without_turn = !payload.contains_key("turn_id")
        && payload
            .get("hook_event_name")
            .and_then(Value::as_str)
            .is_some_and(|event| TURN_SCOPED.contains(&event));
    if ["session_id", "cwd"]
        .iter()
        .any(|field| !payload.contains_key(*field))
        && CURSOR.iter().any(|field| payload.contains_key(*field))
    {
        Some("cursor")
    } else if turn_scoped_without_turn {
        Some("claude")
    } else {
        None
    }
}

const fn decoder(
    id: &'static str,
    fields: &'static [&'static str],
    opt_in_fields: &'static [&'static str],
) -> Decoder {
    Decoder::plain(id, &ENVELOPE, fields, opt_in_fields)
}

const DECODERS: &[Decoder] = &[
    decoder("codex.session", &["source", "reason"], &[]),
    Decoder {
        prompt: true,
        ..decoder("codex.prompt", &[], &[])
    },
    Decoder {
        tool: ToolShape::Named,
        ..decoder(
            "codex.tool",
            &["tool_name", "tool_use_id"],
            &["tool_response"],
        )
    },
    decoder(
        "codex.agent",
        &["stop_hook_active", "agent_transcript_path"],
        &["last_assistant_message"],
    ),
    decoder(
        "codex.stop",
        &["stop_hook_active"],
        &["last_assistant_message"],
    ),
    decoder("codex.compact", &["trigger"], &[]),
    decoder("codex.interrupt", &[], &[]),
];

const NOTHING: Accepts = Accepts {
    context: false,
    deny: false,
    notice: false,
};
const EVERYTHING: Accepts = Accepts {
    context: true,
    deny: true,
    notice: true,
};

const ENCODERS: &[Encoder] = &[
    // SessionStart, SubagentStart: context only (no decision control; `continue` never written).
    Encoder {
        id: "codex.context",
        accepts: Accepts {
            context: true,
            notice: true,
            ..NOTHING
        },
        write: write_without_deny,
    },
    // PreToolUse: deny through `permissionDecision` with a non-empty reason; never "ask".
    Encoder {
        id: "codex.pre-tool",
        accepts: EVERYTHING,
        write: write_permission_deny,
    },
    // PostToolUse: `decision: "block"` sends the reason to the model (the tool already ran).
    Encoder {
        id: "codex.post-tool",
        accepts: EVERYTHING,
        write: write_block,
    },
    // UserPromptSubmit: a block stops the prompt.
    Encoder {
        id: "codex.prompt",
        accepts: EVERYTHING,
        write: write_block,
    },
    // Stop, SubagentStop: a block continues the turn with the reason as the next prompt. Codex
    // documents no `additionalContext` here, and an unknown field would void the output.
    Encoder {
        id: "codex.stop",
        accepts: Accepts {
            deny: true,
            notice: true,
            ..NOTHING
        },
        write: write_block,
    },
    // PermissionRequest: `hookSpecificOutput.decision.{behavior, message}`; the reserved
    // `updatedInput`, `updatedPermissions` and `interrupt` fail the hook closed, so never appear.
    Encoder {
        id: "codex.permission",
        accepts: Accepts {
            deny: true,
            notice: true,
            ..NOTHING
        },
        write: write_permission_request,
    },
    // PreCompact, PostCompact, Interrupt: the universal `systemMessage` only (Interrupt allows
    // nothing else).
    Encoder {
        id: "codex.notice",
        accepts: Accepts {
            notice: true,
            ..NOTHING
        },
        write: write_without_deny,
    },
    // SessionEnd: advisory; Codex ignores its output.
    Encoder {
        id: "codex.silent",
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
