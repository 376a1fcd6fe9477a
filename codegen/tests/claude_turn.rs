//! A real host dispatches our hooks, offline: the pinned Claude Code (`claude -p`) runs one whole
//! non-interactive turn with the built curator installed from its own marketplace in a private
//! HOME, against a stub model API on 127.0.0.1 that answers with scripted tool calls and records
//! every request. The turn calls the curator's MCP tool, then writes a reading note; the test
//! asserts that the tool answered, that the SessionStart and PostToolUse hooks' context reached
//! the next model request, and — from Claude Code's own debug log — that the PostToolUse and Stop
//! hooks were answered by the warm runtime of the running MCP server (no stderr line; the Stop
//! route declares no fallback, so only the warm runtime can answer it).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};

mod support;

use support::host_turn::{
    Envelope, StubModel, TimeoutProbe, assert_envelopes, epoch_ms, replace_hook, run_bounded, sse,
    texts,
};
use support::{build_curator, repo};

/// The curator's MCP tool as Claude Code names a plugin's tools.
const SEARCH_TOOL: &str = "mcp__plugin_curator_library__search_books";

/// What the model "says" next: call the curator's search, then write a reading note, then end
/// the turn; decided by how many tool results the conversation holds.
fn script(request: &Value, note: &Path) -> Value {
    let results = request["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|message| message["content"].as_array())
        .flatten()
        .filter(|block| block["type"] == "tool_result")
        .count();
    match results {
        0 => json!({"type": "tool_use", "id": "toolu_search", "name": SEARCH_TOOL,
                    "input": {"query": "Le Guin"}}),
        1 => json!({"type": "tool_use", "id": "toolu_note", "name": "Write",
                    "input": {"file_path": note, "content": "# A Wizard of Earthsea\n"}}),
        _ => json!({"type": "text", "text": "Noted."}),
    }
}

/// The Messages API's event stream for the next step of [`script`].
fn claude_events(request: &Value, note: &Path) -> String {
    message_events(request, &script(request, note))
}

/// The Messages API's event stream of one message holding `block`.
fn message_events(request: &Value, block: &Value) -> String {
    let (start, delta, stop) = if block["type"] == "text" {
        (
            json!({"type": "text", "text": ""}),
            json!({"type": "text_delta", "text": block["text"]}),
            "end_turn",
        )
    } else {
        (
            json!({"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}),
            json!({"type": "input_json_delta", "partial_json": block["input"].to_string()}),
            "tool_use",
        )
    };
    [
        (
            "message_start",
            json!({"type": "message_start", "message": {"id": "msg_stub",
            "type": "message", "role": "assistant", "model": request["model"], "content": [],
            "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 1, "output_tokens": 1}}}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": start}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": delta}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            "message_delta",
            json!({"type": "message_delta",
            "delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": 3}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ]
    .iter()
    .map(|(name, data)| sse(name, data))
    .collect()
}

fn claude_cli() -> PathBuf {
    let path = repo().join("scripts/host-clis/node_modules/.bin/claude");
    assert!(
        path.exists(),
        "the pinned Claude Code CLI is missing: run scripts/host-clis/install (or scripts/setup)"
    );
    path
}

/// `claude` with a private HOME, the stub model, and every optional network use switched off.
fn claude(home: &Path, runtime: &Path, port: u16) -> Command {
    let hook_log = home.join("hooks.jsonl");
    let mut command = Command::new(claude_cli());
    command
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("CLAUDE_CONFIG_DIR", home.join(".claude"))
        .env("XDG_RUNTIME_DIR", runtime)
        // Claude Code's own session files (`claude-<uid>/`) go to /tmp otherwise.
        .env("CLAUDE_CODE_TMPDIR", runtime)
        .env("ABGEN_HOOK_LOG", hook_log)
        .env("DISABLE_AUTOUPDATER", "1")
        .env("DISABLE_TELEMETRY", "1")
        .env("DISABLE_ERROR_REPORTING", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("ANTHROPIC_BASE_URL", format!("http://127.0.0.1:{port}"))
        .env("ANTHROPIC_API_KEY", "sk-ant-stub");
    command
}

/// The lines of Claude Code's debug log that report how a hook of `event` finished.
fn hook_reports(debug: &str, event: &str) -> Vec<String> {
    debug
        .lines()
        .filter(|line| line.contains(&format!("\"Hook {event}")) && line.contains("success"))
        .map(str::to_owned)
        .collect()
}

/// Installs the artifact from its own marketplace into the private `home`.
fn install(artifact: &Path, home: &Path, runtime: &Path, port: u16) {
    for args in [
        vec!["plugin", "marketplace", "add", artifact.to_str().unwrap()],
        vec!["plugin", "install", "curator@curator-marketplace"],
    ] {
        let output = run_bounded(
            claude(home, runtime, port).args(&args).current_dir(home),
            Duration::from_secs(120),
        );
        assert!(output.status.success(), "claude {args:?}: {output:?}");
    }
}

#[test]
fn claude_code_runs_a_turn_whose_hooks_reach_the_model_and_answer_warm() {
    let temp = tempfile::tempdir().unwrap();
    let temp = temp.path().canonicalize().unwrap();
    let artifact = build_curator(&temp, &["claude"]);
    let home = temp.join("home");
    let work = temp.join("work");
    let runtime = temp.join("runtime");
    for directory in [&home, &work, &runtime] {
        std::fs::create_dir_all(directory).unwrap();
    }
    let note = work.join("notes/earthsea.md");
    let model = {
        let note = note.clone();
        StubModel::start(
            "/v1/messages",
            Box::new(move |request| claude_events(request, &note)),
        )
    };

    install(&artifact, &home, &runtime, model.port);
    let output = run_bounded(
        claude(&home, &runtime, model.port)
            .args(["-p", "Find my Le Guin books and write a reading note."])
            .args(["--output-format", "json", "--debug", "hooks"])
            .args(["--allowedTools", &format!("{SEARCH_TOOL},Write")])
            .current_dir(&work),
        Duration::from_secs(180),
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "claude -p: {output:?}");
    let result: Value = serde_json::from_str(&stdout).unwrap_or_else(|_| panic!("{stdout}"));
    assert_eq!(result["result"], "Noted.", "{result}");
    assert!(note.is_file(), "the scripted Write did not run");

    let requests = model.requests();
    assert_eq!(requests.len(), 3, "{requests:#?}");
    // SessionStart's context is in the very first request.
    assert!(
        texts(&requests[0]).contains("The user keeps a library catalog of"),
        "no SessionStart context in the first request"
    );
    // Our MCP tool answered the scripted call: its result is in the next request, as the
    // Markdown the model reads (search_books declares `model: 'content'`), not the value.
    let second = texts(&requests[1]);
    assert!(
        second.contains("Found 3 books for “Le Guin”") && second.contains("A Wizard of Earthsea"),
        "no search_books Markdown in the second request:\n{second}"
    );
    assert!(
        !second.contains(r#""total":3"#),
        "the model was handed the structured value:\n{second}"
    );
    // PostToolUse's context after the note was written is in the request after that.
    let third = texts(&requests[2]);
    assert!(
        third.contains(&format!("You just wrote `{}`", note.display())),
        "no PostToolUse context in the third request:\n{third}"
    );

    // Claude Code's debug log has each hook's stdout and, when there is one, its stderr line.
    let debug_dir = home.join(".claude/debug");
    let debug: String = std::fs::read_dir(&debug_dir)
        .unwrap()
        .flatten()
        .filter(|entry| entry.path().extension().is_some_and(|ext| ext == "txt"))
        .map(|entry| std::fs::read_to_string(entry.path()).unwrap())
        .collect();
    let after = hook_reports(&debug, "PostToolUse");
    assert_eq!(after.len(), 1, "{after:?}");
    assert!(
        after[0].contains("You just wrote") && !after[0].contains("stderr"),
        "PostToolUse was not answered by the warm runtime: {}",
        after[0]
    );
    let stop = hook_reports(&debug, "Stop");
    assert_eq!(stop.len(), 1, "{stop:?}");
    assert!(
        stop[0].contains("Curator: ") && !stop[0].contains("stderr"),
        "Stop (no fallback) was not answered by the warm runtime: {}",
        stop[0]
    );
    // SessionStart runs while Claude Code starts the MCP server: warm or standalone, it answered.
    let start = hook_reports(&debug, "SessionStart");
    assert_eq!(start.len(), 1, "{start:?}");
    assert!(
        !start[0].contains("stderr") || start[0].contains("rendered standalone"),
        "{}",
        start[0]
    );

    // What Claude Code really sent is what the recorded fixtures say it sends, but for the
    // differences recorded in fixtures/hosts/claude/PROVENANCE.md.
    let log = std::fs::read_to_string(home.join("hooks.jsonl")).unwrap();
    let sent_by_print_mode = Envelope {
        event: "session/start",
        native_event: "SessionStart",
        not_sent: &["model"],
        also_sent: &[],
    };
    let with_prompt = |event, native_event| Envelope {
        event,
        native_event,
        not_sent: &[],
        also_sent: &["effort", "prompt_id"],
    };
    assert_envelopes(
        "claude",
        &log,
        &[
            sent_by_print_mode,
            with_prompt("tool/after", "PostToolUse"),
            with_prompt("stop", "Stop"),
        ],
    );
}

/// The timeout Claude Code applies to a plugin hook, observed: a SessionStart handler declared
/// with `timeout: 2` that would run 12 s is sent SIGTERM two seconds after it started, Claude
/// Code asks the model only after that, and the turn goes on without the hook's context. The host matrix's `timeout_unit = "seconds"` and the hook
/// client's deadline (the declared timeout less `exit_margin_ms`) rest on this.
#[test]
fn claude_code_ends_a_hook_past_its_timeout_in_seconds_with_sigterm() {
    let temp = tempfile::tempdir().unwrap();
    let temp = temp.path().canonicalize().unwrap();
    let artifact = build_curator(&temp, &["claude"]);
    let probe = TimeoutProbe::write(&temp);
    replace_hook(
        &artifact.join("hooks/hooks.json"),
        "SessionStart",
        &probe.command(),
        2,
    );
    let home = temp.join("home");
    let work = temp.join("work");
    let runtime = temp.join("runtime");
    for directory in [&home, &work, &runtime] {
        std::fs::create_dir_all(directory).unwrap();
    }
    let model = StubModel::start(
        "/v1/messages",
        Box::new(|request| message_events(request, &json!({"type": "text", "text": "Hello."}))),
    );
    install(&artifact, &home, &runtime, model.port);
    let watching = probe.watch();
    let output = run_bounded(
        claude(&home, &runtime, model.port)
            .args(["-p", "Say hello.", "--output-format", "json"])
            .current_dir(&work),
        Duration::from_secs(120),
    );
    assert!(output.status.success(), "claude -p: {output:?}");
    let observed = watching.join().unwrap();
    let first_request = epoch_ms(model.first_request_at().expect("no model request"));
    assert!(
        !observed.finished,
        "the hook ran its whole sleep: {observed:?}"
    );
    let term = observed.term_ms.expect("Claude Code did not send SIGTERM");
    let lived = term - observed.started_ms;
    assert!(
        // The host's clock starts at the spawn, before the probe logs its start: a loaded
        // machine takes a while to start a shell.
        (1_000..4_000).contains(&lived),
        "SIGTERM {lived} ms after the start, for a 2 s timeout: {observed:?}"
    );
    assert!(
        first_request >= term,
        "Claude Code asked the model before the SessionStart hook ended: {observed:?}"
    );
}
