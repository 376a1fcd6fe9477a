//! Cursor's hook envelopes and outputs (the host contracts reference §4.3 and §4.4), as data:
//! the envelope, one decoder per payload shape and one encoder per output shape, under the ids
//! the compiler's Cursor host table writes into the manifest.
//!
//! Cursor's outputs are flat snake_case objects (`permission`, `agent_message`,
//! `additional_context`, `followup_message`), not Claude's nested `hookSpecificOutput`.
//!
//! | Native event | Decoder | Encoder |
//! |---|---|---|
//! | sessionStart, sessionEnd | `cursor.session` | `cursor.session`, `cursor.silent` |
//! | beforeSubmitPrompt | `cursor.prompt` | `cursor.prompt` |
//! | preToolUse, postToolUse, postToolUseFailure | `cursor.tool` | `cursor.pre-tool`, `cursor.post-tool`, `cursor.silent` |
//! | beforeShellExecution, afterShellExecution | `cursor.shell` | `cursor.pre-tool`, `cursor.silent` |
//! | beforeMCPExecution, afterMCPExecution | `cursor.mcp` | `cursor.pre-tool`, `cursor.silent` |
//! | beforeReadFile | `cursor.read-file` | `cursor.read-file` |
//! | afterFileEdit | `cursor.file` | `cursor.silent` |
//! | subagentStart, subagentStop | `cursor.agent` | `cursor.agent-start`, `cursor.stop` |
//! | stop | `cursor.stop` | `cursor.stop` |
//! | stop with `status: "aborted"` (turn/interrupt) | `cursor.interrupt` | `cursor.silent` |
//! | preCompact | `cursor.compact` | `cursor.compact` |
//! | workspaceOpen | `cursor.workspace` | `cursor.silent` |

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
    host: "cursor",
    contract_revision: "cursor-hooks/2026-08-22",
    event_field: "hook_event_name",
    // Cursor has no common `session_id`; where it sends one it equals the conversation id.
    session_field: "conversation_id",
    cwd_field: "cwd",
    project_dir_env: Some("CURSOR_PROJECT_DIR"),
    roots_field: Some("workspace_roots"),
    tool_name_field: "tool_name",
    tool_input_field: "tool_input",
    prompt_field: "prompt",
    common_fields: &[
        "conversation_id",
        "generation_id",
        "model",
        "model_id",
        "model_params",
        "hook_event_name",
        "cursor_version",
        "workspace_roots",
        "transcript_path",
        "session_id",
        "cwd",
    ],
    common_opt_in_fields: &["user_email"],
    tools: &[
        ToolRow {
            selector: ToolSelector::Shell,
            names: ToolNames::Exact(&["Shell"]),
        },
        ToolRow {
            selector: ToolSelector::FileRead,
            names: ToolNames::Exact(&["Read", "TabRead"]),
        },
        ToolRow {
            selector: ToolSelector::FileWrite,
            names: ToolNames::Exact(&["Write", "TabWrite", "Delete"]),
        },
        ToolRow {
            selector: ToolSelector::Mcp,
            names: ToolNames::Prefix("MCP:"),
        },
        ToolRow {
            selector: ToolSelector::Agent,
            names: ToolNames::Exact(&["Task"]),
        },
    ],
    foreign,
};

/// Every Cursor payload carries `cursor_version` and `workspace_roots` (workspaceOpen too);
/// without both, it comes from Codex (its `turn_id`) or Claude Code.
fn foreign(payload: &Map<String, Value>) -> Option<&'static str> {
    if payload.contains_key("cursor_version") || payload.contains_key("workspace_roots") {
        None
    } else if payload.contains_key("turn_id") {
        Some("codex")
    } else {
        Some("claude")
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
    decoder(
        "cursor.session",
        &[
            "is_background_agent",
            "composer_mode",
            "reason",
            "duration_ms",
            "final_status",
        ],
        &["error_message"],
    ),
    Decoder {
        prompt: true,
        ..decoder("cursor.prompt", &[], &["attachments"])
    },
    Decoder {
        tool: ToolShape::Named,
        ..decoder(
            "cursor.tool",
            &[
                "tool_name",
                "tool_use_id",
                "duration",
                "failure_type",
                "is_interrupt",
            ],
            &["agent_message", "tool_output", "error_message"],
        )
    },
    Decoder {
        tool: ToolShape::Fixed {
            name: "Shell",
            selector: ToolSelector::Shell,
            input_fields: &["command"],
        },
        ..decoder("cursor.shell", &["sandbox", "duration"], &["output"])
    },
    Decoder {
        tool: ToolShape::NamedAs(ToolSelector::Mcp),
        ..decoder(
            "cursor.mcp",
            &["tool_name", "url", "command", "duration"],
            &["result_json"],
        )
    },
    Decoder {
        tool: ToolShape::Fixed {
            name: "Read",
            selector: ToolSelector::FileRead,
            input_fields: &["file_path"],
        },
        ..decoder("cursor.read-file", &[], &["content", "attachments"])
    },
    decoder("cursor.file", &["file_path"], &["edits"]),
    decoder(
        "cursor.agent",
        &[
            "subagent_id",
            "subagent_type",
            "parent_conversation_id",
            "tool_call_id",
            "subagent_model",
            "is_parallel_worker",
            "git_branch",
            "status",
            "duration_ms",
            "message_count",
            "tool_call_count",
            "loop_count",
            "agent_transcript_path",
        ],
        &["task", "description", "summary", "modified_files"],
    ),
    decoder("cursor.stop", &["status", "loop_count"], &[]),
    // turn/interrupt: Cursor reports an interrupted turn only as a `stop` whose status is
    // `aborted`, and its `stop` hooks take no matcher, so the decoder picks that case out.
    Decoder {
        only_when: Some(("status", "aborted")),
        ..decoder("cursor.interrupt", &["status", "loop_count"], &[])
    },
    decoder(
        "cursor.compact",
        &[
            "trigger",
            "context_usage_percent",
            "context_tokens",
            "context_window_size",
            "message_count",
            "messages_to_compact",
            "is_first_compaction",
        ],
        &[],
    ),
    decoder("cursor.workspace", &[], &[]),
];

const NOTHING: Accepts = Accepts {
    context: false,
    deny: false,
    notice: false,
};
const DENY: Accepts = Accepts {
    deny: true,
    ..NOTHING
};
const CONTEXT: Accepts = Accepts {
    context: true,
    ..NOTHING
};

const ENCODERS: &[Encoder] = &[
    // preToolUse, beforeShellExecution, beforeMCPExecution: `permission: "deny"`, the reason to
    // the model (`agent_message`) and to the user (`user_message`). No context field exists, and
    // `user_message` is shown only with a deny. `ask` is never written (preToolUse ignores it).
    Encoder {
        id: "cursor.pre-tool",
        accepts: DENY,
        write: |_, answer| deny_with(answer, &["agent_message", "user_message"]),
    },
    // beforeReadFile: `permission` and `user_message` only.
    Encoder {
        id: "cursor.read-file",
        accepts: DENY,
        write: |_, answer| deny_with(answer, &["user_message"]),
    },
    // subagentStart: allow or deny with a `user_message`; it takes no context.
    Encoder {
        id: "cursor.agent-start",
        accepts: DENY,
        write: |_, answer| deny_with(answer, &["user_message"]),
    },
    // postToolUse: `additional_context` for the model.
    Encoder {
        id: "cursor.post-tool",
        accepts: CONTEXT,
        write: |_, answer| context(answer),
    },
    // sessionStart: `additional_context` for the model (`continue` is not enforced there).
    Encoder {
        id: "cursor.session",
        accepts: CONTEXT,
        write: |_, answer| context(answer),
    },
    // beforeSubmitPrompt: `continue: false` stops the prompt, the reason shown to the user.
    // Cursor documents no context injection for prompts.
    Encoder {
        id: "cursor.prompt",
        accepts: DENY,
        write: |_, answer| {
            let mut output = Map::new();
            output.insert("continue".into(), false.into());
            output.insert("user_message".into(), answer.deny.join("\n").into());
            output
        },
    },
    // stop, subagentStop: a deny keeps the agent going; `followup_message` is submitted as the
    // next user message (Cursor caps the loop with `loop_limit`).
    Encoder {
        id: "cursor.stop",
        accepts: DENY,
        write: |_, answer| {
            let mut output = Map::new();
            output.insert("followup_message".into(), answer.deny.join("\n").into());
            output
        },
    },
    // preCompact: observational; a `user_message` for the user.
    Encoder {
        id: "cursor.compact",
        accepts: Accepts {
            notice: true,
            ..NOTHING
        },
        write: |_, answer| {
            let mut output = Map::new();
            output.insert("user_message".into(), answer.notice.join("\n").into());
            output
        },
    },
    // sessionEnd, postToolUseFailure, afterFileEdit, afterShellExecution, afterMCPExecution,
    // workspaceOpen: Cursor reads no output the runtime could give.
    Encoder {
        id: "cursor.silent",
        accepts: NOTHING,
        write: |_, _| Map::new(),
    },
];

/// `{permission: "deny", <field>: reason, …}`; the encoder only calls it with a deny.
fn deny_with(answer: &HookAnswer, reason_fields: &[&str]) -> Map<String, Value> {
    let reason = answer.deny.join("\n");
    let mut output = Map::new();
    output.insert("permission".into(), "deny".into());
    for field in reason_fields {
        output.insert((*field).into(), reason.clone().into());
    }
    output
}

fn context(answer: &HookAnswer) -> Map<String, Value> {
    let mut output = Map::new();
    output.insert(
        "additional_context".into(),
        answer.context.join("\n\n").into(),
    );
    output
}
