//! A real host dispatches our hooks, offline: the pinned Codex (`codex exec`) runs one whole
//! non-interactive turn with the built curator installed from its own marketplace in a private
//! CODEX_HOME, against a stub Responses API on 127.0.0.1 that answers with scripted tool calls
//! and records every request. The turn calls the curator's MCP tool, then writes a reading note
//! with `apply_patch`; the test asserts that the tool answered, that the SessionStart and
//! PostToolUse hooks' context reached the next model request, and — from the hook log
//! (`ABGEN_HOOK_LOG`), since Codex shows no hook output — that PostToolUse and Stop were answered
//! by the warm runtime of the MCP server Codex started.
//!
//! Codex runs only hooks the user trusted: the test writes the trust entries into the private
//! `config.toml` as Codex computes them (see [`trust_entries`]); with a wrong hash Codex skips
//! the hooks and the context assertions fail. Codex starts MCP servers with a filtered
//! environment (no `XDG_RUNTIME_DIR`), while hooks get the whole one, so this turn also proves a
//! hook finds the warm runtime wherever its server could bind.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};

mod support;

use support::host_turn::{
    Envelope, StubModel, TimeoutProbe, assert_envelopes, replace_hook, run_bounded, sse, texts,
};
use support::{build_curator, repo};

/// The plugin as Codex names it once installed from the artifact's own marketplace.
const PLUGIN_ID: &str = "curator@curator-marketplace";
/// Codex's hook document in the artifact, relative to the plugin root (part of each trust key).
const HOOKS_DOCUMENT: &str = ".codex-plugin/hooks.json";
/// A model whose metadata Codex ships, so it offers the `apply_patch` tool the curator's
/// PostToolUse route selects (an unknown model gets no `apply_patch`).
const MODEL: &str = "gpt-5.5";

/// What the model "says" next: call the curator's search, then add a reading note with
/// `apply_patch`, then end the turn; decided by how many tool outputs the input holds.
fn script(request: &Value) -> Value {
    let outputs = request["input"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|item| {
            matches!(
                item["type"].as_str(),
                Some("function_call_output" | "custom_tool_call_output")
            )
        })
        .count();
    match outputs {
        // Codex offers a server's tools as one namespace of functions.
        0 => json!({"type": "function_call", "id": "fc_search", "call_id": "call_search",
                    "namespace": "mcp__library", "name": "search_books",
                    "arguments": json!({"query": "Le Guin"}).to_string()}),
        1 => json!({"type": "custom_tool_call", "id": "ctc_note", "call_id": "call_note",
                    "name": "apply_patch",
                    "input": "*** Begin Patch\n*** Add File: notes/earthsea.md\n+# A Wizard of Earthsea\n*** End Patch\n"}),
        _ => json!({"type": "message", "id": "msg_done", "role": "assistant",
                    "content": [{"type": "output_text", "text": "Noted."}]}),
    }
}

/// The Responses API's event stream for the next step of [`script`].
fn responses_events(request: &Value) -> String {
    response_with(script(request))
}

/// The Responses API's event stream of one response holding `item`.
fn response_with(item: Value) -> String {
    [
        (
            "response.created",
            json!({"type": "response.created", "response": {"id": "resp_stub"}}),
        ),
        (
            "response.output_item.done",
            json!({"type": "response.output_item.done", "item": item}),
        ),
        (
            "response.completed",
            json!({"type": "response.completed", "response": {"id": "resp_stub",
            "usage": {"input_tokens": 1, "input_tokens_details": null, "output_tokens": 1,
                      "output_tokens_details": null, "total_tokens": 2}}}),
        ),
    ]
    .iter()
    .map(|(name, data)| sse(name, data))
    .collect()
}

fn codex_cli() -> PathBuf {
    let path = repo().join("scripts/host-clis/node_modules/.bin/codex");
    assert!(
        path.exists(),
        "the pinned Codex CLI is missing: run scripts/host-clis/install (or scripts/setup)"
    );
    path
}

/// `codex` with a private HOME and CODEX_HOME; the model provider is the stub (config.toml).
fn codex(home: &Path, runtime: &Path, hook_log: &Path) -> Command {
    let mut command = Command::new(codex_cli());
    command
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("CODEX_HOME", home.join(".codex"))
        .env("XDG_RUNTIME_DIR", runtime)
        .env("ABGEN_HOOK_LOG", hook_log)
        .env("STUB_API_KEY", "sk-stub");
    command
}

/// Codex's config: the stub as the model provider, nothing else.
fn provider_config(port: u16) -> String {
    format!(
        "model = \"{MODEL}\"\nmodel_provider = \"stub\"\n\n[model_providers.stub]\n\
         name = \"stub\"\nbase_url = \"http://127.0.0.1:{port}/v1\"\nwire_api = \"responses\"\n\
         env_key = \"STUB_API_KEY\"\n"
    )
}

/// `PostToolUse` → `post_tool_use`, as Codex spells an event in trust keys and hashes.
fn snake_case(event: &str) -> String {
    let mut out = String::new();
    for (index, character) in event.chars().enumerate() {
        if character.is_ascii_uppercase() && index > 0 {
            out.push('_');
        }
        out.push(character.to_ascii_lowercase());
    }
    out
}

/// The `[hooks.state]` entries that trust every handler of the artifact's Codex hook document,
/// as Codex records a review in `/hooks`. The key is positional,
/// `<plugin>:<document>:<event>:<group>:<handler>`; `trusted_hash` is `sha256:` and the hex
/// SHA-256 of the compact, key-sorted JSON of the normalized handler declaration:
/// `{"event_name", "hooks": [{"async", "command", "timeout", "type"}], "matcher"}`, with Codex's
/// defaults filled (`async: false`) and `matcher` left out when the group has none.
fn trust_entries(hooks: &Value) -> String {
    let mut entries = String::from("\n[hooks.state]\n");
    for (event, groups) in hooks["hooks"].as_object().unwrap() {
        let event = snake_case(event);
        for (group_index, group) in groups.as_array().unwrap().iter().enumerate() {
            for (handler_index, handler) in group["hooks"].as_array().unwrap().iter().enumerate() {
                let mut identity = json!({
                    "event_name": event,
                    "hooks": [{
                        "async": false,
                        "command": handler["command"],
                        "timeout": handler["timeout"],
                        "type": handler["type"],
                    }],
                });
                if let Some(matcher) = group.get("matcher") {
                    identity["matcher"] = matcher.clone();
                }
                // serde_json's map is sorted by key, so this is the canonical form.
                let digest = Sha256::digest(identity.to_string().as_bytes());
                let hex: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
                let key =
                    format!("{PLUGIN_ID}:{HOOKS_DOCUMENT}:{event}:{group_index}:{handler_index}");
                writeln!(
                    entries,
                    "[hooks.state.{}]\ntrusted_hash = \"sha256:{hex}\"",
                    Value::from(key)
                )
                .unwrap();
            }
        }
    }
    entries
}

/// The hook log's lines for `event`.
fn logged(log: &str, event: &str) -> Vec<Value> {
    log.lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|line| line["event"] == event)
        .collect()
}

/// The private folders of one turn, under the test's temporary directory.
struct Places {
    home: PathBuf,
    work: PathBuf,
    runtime: PathBuf,
    hook_log: PathBuf,
}

impl Places {
    fn under(temp: &Path) -> Self {
        let places = Self {
            home: temp.join("home"),
            work: temp.join("work"),
            runtime: temp.join("runtime"),
            hook_log: temp.join("hooks.jsonl"),
        };
        for directory in [&places.home.join(".codex"), &places.work, &places.runtime] {
            std::fs::create_dir_all(directory).unwrap();
        }
        places
    }
}

/// Writes the stub provider's config, installs the artifact from its own marketplace into the
/// private CODEX_HOME and trusts every hook of its (possibly rewritten) hook document.
fn install(artifact: &Path, home: &Path, runtime: &Path, hook_log: &Path, port: u16) {
    let config = home.join(".codex/config.toml");
    std::fs::write(&config, provider_config(port)).unwrap();
    for args in [
        vec!["plugin", "marketplace", "add", artifact.to_str().unwrap()],
        vec!["plugin", "add", PLUGIN_ID],
    ] {
        let output = run_bounded(
            codex(home, runtime, hook_log).args(&args).current_dir(home),
            Duration::from_secs(120),
        );
        assert!(output.status.success(), "codex {args:?}: {output:?}");
    }
    let hooks: Value =
        serde_json::from_slice(&std::fs::read(artifact.join(HOOKS_DOCUMENT)).unwrap()).unwrap();
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str(&trust_entries(&hooks));
    std::fs::write(&config, text).unwrap();
}

#[test]
fn codex_runs_a_turn_whose_hooks_reach_the_model_and_answer_warm() {
    let temp = tempfile::tempdir().unwrap();
    let temp = temp.path().canonicalize().unwrap();
    let artifact = build_curator(&temp, &["codex"]);
    let Places {
        home,
        work,
        runtime,
        hook_log,
    } = Places::under(&temp);
    let model = StubModel::start("/v1/responses", Box::new(responses_events));
    install(&artifact, &home, &runtime, &hook_log, model.port);

    let output = run_bounded(
        codex(&home, &runtime, &hook_log)
            .args(["exec", "--skip-git-repo-check"])
            // The note is written by apply_patch; no sandbox binary is needed for that.
            .arg("--dangerously-bypass-approvals-and-sandbox")
            .arg("Find my Le Guin books and write a reading note.")
            .current_dir(&work),
        Duration::from_secs(180),
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "codex exec: {output:?}");
    assert_eq!(stdout.trim(), "Noted.", "{stdout}\n{stderr}");
    assert!(
        work.join("notes/earthsea.md").is_file(),
        "the scripted apply_patch did not run:\n{stderr}"
    );
    for event in ["SessionStart", "PostToolUse", "Stop"] {
        assert!(
            stderr.contains(&format!("hook: {event} Completed")),
            "Codex did not run the trusted {event} hook:\n{stderr}"
        );
    }

    let requests = model.requests();
    assert_eq!(requests.len(), 3, "{requests:#?}");
    assert!(
        texts(&requests[0]).contains("The user keeps a library catalog of"),
        "no SessionStart context in the first request"
    );
    // search_books declares `model: 'content'`: the model reads its Markdown, not its value.
    let second = texts(&requests[1]);
    assert!(
        second.contains("Found 3 books for “Le Guin”") && second.contains("A Wizard of Earthsea"),
        "no search_books Markdown in the second request:\n{second}"
    );
    assert!(
        !second.contains(r#""total":3"#),
        "the model was handed the structured value:\n{second}"
    );
    let third = texts(&requests[2]);
    assert!(
        third.contains("You just wrote `notes/earthsea.md`"),
        "no PostToolUse context in the third request:\n{third}"
    );

    let log = std::fs::read_to_string(&hook_log).unwrap();
    let after = logged(&log, "tool/after");
    assert_eq!(after.len(), 1, "{log}");
    assert_eq!(after[0]["answeredBy"], "warm", "{log}");
    // Stop declares no fallback: only the warm runtime can answer it (with its notice).
    let stop = logged(&log, "stop");
    assert_eq!(stop.len(), 1, "{log}");
    assert_eq!(stop[0]["answeredBy"], "warm", "{log}");
    assert_eq!(stop[0]["answered"], true, "{log}");
    // SessionStart runs while Codex starts the MCP server: warm or standalone, it answered.
    let start = logged(&log, "session/start");
    assert_eq!(start.len(), 1, "{log}");
    assert_eq!(start[0]["answered"], true, "{log}");

    // What Codex really sent is what the recorded fixtures say it sends.
    let exact = |event, native_event| Envelope {
        event,
        native_event,
        not_sent: &[],
        also_sent: &[],
    };
    assert_envelopes(
        "codex",
        &log,
        &[
            exact("session/start", "SessionStart"),
            exact("tool/after", "PostToolUse"),
            exact("stop", "Stop"),
        ],
    );
}

/// The timeout Codex applies to a plugin hook, observed: a SessionStart handler declared with
/// `timeout: 2` that would run 12 s is killed outright (no SIGTERM first) two seconds after it
/// started, and the turn goes on without its context. The host matrix's
/// `timeout_unit = "seconds"` rests on this, and so does the hook client's deadline: a hook that
/// overruns on Codex gets no chance to answer late.
#[test]
fn codex_kills_a_hook_past_its_timeout_in_seconds_without_sigterm() {
    let temp = tempfile::tempdir().unwrap();
    let temp = temp.path().canonicalize().unwrap();
    let artifact = build_curator(&temp, &["codex"]);
    let probe = TimeoutProbe::write(&temp);
    replace_hook(
        &artifact.join(HOOKS_DOCUMENT),
        "SessionStart",
        &probe.command(),
        2,
    );
    let Places {
        home,
        work,
        runtime,
        hook_log,
    } = Places::under(&temp);
    let model = StubModel::start(
        "/v1/responses",
        Box::new(|_| {
            response_with(
                json!({"type": "message", "id": "msg_hello", "role": "assistant",
                "content": [{"type": "output_text", "text": "Hello."}]}),
            )
        }),
    );
    install(&artifact, &home, &runtime, &hook_log, model.port);
    let watching = probe.watch();
    let output = run_bounded(
        codex(&home, &runtime, &hook_log)
            .args(["exec", "--skip-git-repo-check", "Say hello."])
            .current_dir(&work),
        Duration::from_secs(120),
    );
    assert!(output.status.success(), "codex exec: {output:?}");
    assert_eq!(
        model.requests().len(),
        1,
        "the turn did not go on to the model"
    );
    let observed = watching.join().unwrap();
    assert!(
        !observed.finished,
        "the hook ran its whole sleep: {observed:?}"
    );
    let lived = observed.term_ms.unwrap_or(observed.gone_ms) - observed.started_ms;
    assert!(
        // The host's clock starts at the spawn, before the probe logs its start: a loaded
        // machine takes a while to start a shell.
        (1_000..4_000).contains(&lived),
        "ended {lived} ms after the start, for a 2 s timeout: {observed:?}"
    );
}
