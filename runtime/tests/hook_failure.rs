//! Guards that fail closed: `abgen-host hook` with bindings of `failure: 'closed'` and a real
//! worker (React Flight), fed payloads shaped like the hosts' own (`fixtures/hosts/claude/`).
//! Each fault ends in Claude Code's native deny with a reason that says why, on exit 0, before
//! the host's timeout minus 200 ms: writes of 1.1 MB and 10 MB, a tool input nested a million
//! levels deep, a lone surrogate, a payload cut short, bytes that are not UTF-8, a command longer
//! than 64 KiB, an extra top-level field, a route that hangs, throws or crashes its worker, and a
//! warm runtime that is alive but slow; Codex and Cursor get their own native deny. Another
//! host's payload stays silent.

#[path = "hook_fixture/support.rs"]
#[expect(
    dead_code,
    reason = "the render tests' artifact helpers are not used here"
)]
mod support;

use std::path::Path;
use std::process::Output;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use abgen_runtime::document::RenderEvent;
use abgen_runtime::warm::{RenderSource, SocketPath, WarmRequest, WarmServer};
use serde_json::{Value, json};
use support::{abgen_host, build_artifact_from, event_route, repo};

const DIGEST: &str = "guard-test-digest";
/// The host's timeout of the tool/before binding (3 s) and of the others (2 s), as `abgen build`
/// writes them for `timeoutMs: 3000` and `2000`.
const GUARD_TIMEOUT: Duration = Duration::from_secs(3);
const OTHER_TIMEOUT: Duration = Duration::from_secs(2);
/// The answer must reach the host this long before its timeout.
const HEADROOM: Duration = Duration::from_millis(200);

/// A closed Claude binding as `abgen build` writes it (standalone fallback, matrix budgets).
fn binding(event: &str, native: &str, decoder: &str, encoder: &str, timeout: Duration) -> Value {
    let timeout_ms = u64::try_from(timeout.as_millis()).unwrap();
    json!({
        "nativeEvent": native, "routes": [format!("event:{event}")], "event": event,
        "deadlineMs": timeout_ms - 250, "timeoutSec": timeout_ms / 1000,
        "decoder": decoder, "encoder": encoder, "fallback": "standalone", "coldWorkerMs": 1500,
        "failure": "closed", "payloadMaxBytes": 8_388_608, "payloadMaxDepth": 64
    })
}

fn artifact() -> &'static Path {
    static ARTIFACT: OnceLock<std::path::PathBuf> = OnceLock::new();
    ARTIFACT.get_or_init(|| {
        let closed = |extra: Value| {
            let mut config = json!({"failure": "closed", "fallback": "standalone"});
            config
                .as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            config
        };
        let manifest = json!({
            "manifestVersion": abgen_runtime::manifest::MANIFEST_VERSION,
            "application": {"name": "guard-test", "version": "0.0.0"},
            "digest": DIGEST,
            "react": "19.3.1",
            "workerProtocol": abgen_runtime::worker::WORKER_PROTOCOL,
            "routes": [
                event_route("tool/before", closed(json!({"tools": ["shell", "file.write"]}))),
                event_route("prompt/submit", closed(json!({}))),
                event_route("stop", closed(json!({}))),
                event_route("compact/before", closed(json!({}))),
            ],
            "servers": [],
            "cli": {"bin": "guard-test", "commands": []},
            "hooks": {"claude": [
                binding("compact/before", "PreCompact", "claude.compact", "claude.block", OTHER_TIMEOUT),
                binding("prompt/submit", "UserPromptSubmit", "claude.prompt", "claude.prompt", OTHER_TIMEOUT),
                binding("stop", "Stop", "claude.stop", "claude.stop", OTHER_TIMEOUT),
                binding("tool/before", "PreToolUse", "claude.tool", "claude.pre-tool", GUARD_TIMEOUT),
            ],
            "codex": [binding("tool/before", "PreToolUse", "codex.tool", "codex.pre-tool", GUARD_TIMEOUT)],
            "cursor": [binding("tool/before", "preToolUse", "cursor.tool", "cursor.pre-tool", GUARD_TIMEOUT)]},
            "limits": {"render": {"maxElapsedMs": 20_000, "maxBytes": 8_388_608}, "hookInputMaxBytes": 1_048_576},
            "files": []
        });
        build_artifact_from("hook-failure-artifact", "guards.tsx", &manifest)
    })
}

fn fixture(native_event: &str) -> Value {
    let path = repo().join(format!("fixtures/hosts/claude/{native_event}.json"));
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// The PreToolUse fixture with `tool_input` replaced by `raw` JSON text, spliced in as it is.
fn pre_tool_use(tool: &str, raw_input: &str) -> Vec<u8> {
    let mut payload = fixture("PreToolUse");
    payload["tool_name"] = tool.into();
    payload["tool_input"] = "RAW-INPUT".into();
    payload
        .to_string()
        .replacen("\"RAW-INPUT\"", raw_input, 1)
        .into_bytes()
}

fn write_of(content: &str) -> Vec<u8> {
    let input = json!({"file_path": "/home/user/my-project/keys.pem", "content": content});
    pre_tool_use("Write", &input.to_string())
}

struct Hook {
    output: Output,
    elapsed: Duration,
}

impl Hook {
    fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.output.stdout).into_owned()
    }

    fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.output.stderr).into_owned()
    }

    /// The hook's own stderr lines: all but the route's log records.
    fn own_lines(&self) -> Vec<String> {
        let levels = ["debug", "info", "notice", "warning", "error"];
        self.stderr()
            .lines()
            // `abgen-host: hook <host> <event>: <level>: <message>` is a log record.
            .filter(|line| {
                !line
                    .split(": ")
                    .nth(2)
                    .is_some_and(|level| levels.contains(&level))
            })
            .map(str::to_owned)
            .collect()
    }

    /// Exit 0, at most one stderr line of its own, and the answer `timeout - 200 ms` after the
    /// start at the latest. Renders and the warm attempt give up 500 ms before the timeout; the
    /// 300 ms between is room for process start and exit on a loaded 2-core machine.
    fn assert_in_time(&self, timeout: Duration) {
        assert_eq!(self.output.status.code(), Some(0), "{}", self.stderr());
        assert!(self.own_lines().len() <= 1, "{}", self.stderr());
        assert!(
            self.elapsed < timeout - HEADROOM,
            "answered after {:?}: {}",
            self.elapsed,
            self.stderr()
        );
    }

    /// Claude Code's PreToolUse deny, whose reason contains `because`.
    fn assert_pre_tool_deny(&self, because: &str) {
        self.assert_in_time(GUARD_TIMEOUT);
        let answer: Value = serde_json::from_str(&self.stdout())
            .unwrap_or_else(|_| panic!("no JSON answer: {:?} / {}", self.stdout(), self.stderr()));
        let specific = &answer["hookSpecificOutput"];
        assert_eq!(specific["hookEventName"], "PreToolUse", "{answer}");
        assert_eq!(specific["permissionDecision"], "deny", "{answer}");
        let reason = specific["permissionDecisionReason"].as_str().unwrap();
        assert!(reason.contains(because), "{reason}");
    }
}

/// Runs `abgen-host hook --host claude --event EVENT` on the guard artifact with `stdin`, with no
/// warm runtime unless `runtime` holds one.
fn hook(event: &str, stdin: &[u8], runtime: Option<&Path>, extra_args: &[&str]) -> Hook {
    hook_on("claude", event, stdin, runtime, extra_args)
}

fn hook_on(
    host: &str,
    event: &str,
    stdin: &[u8],
    runtime: Option<&Path>,
    extra_args: &[&str],
) -> Hook {
    let mut args = vec!["hook", "--host", host, "--event", event];
    args.extend_from_slice(extra_args);
    let mut env = vec![("ABGEN_ARTIFACT", artifact())];
    env.extend(runtime.map(|runtime| ("XDG_RUNTIME_DIR", runtime)));
    let started = Instant::now();
    let output = abgen_host(&args, &env, stdin);
    let elapsed = started.elapsed();
    Hook { output, elapsed }
}

fn tool_before(stdin: &[u8]) -> Hook {
    // Build the artifact before the clock starts.
    artifact();
    hook("tool/before", stdin, None, &[])
}

#[test]
fn a_1_1_mb_write_reaches_the_guard_whole() {
    // The key sits at the end, past any cut a bound could make.
    let content = format!("{}\n-----BEGIN PRIVATE KEY-----\n", "a".repeat(1_100_000));
    tool_before(&write_of(&content))
        .assert_pre_tool_deny("1100029-character write holds a private key");
}

#[test]
fn a_10_mb_write_is_denied_as_over_the_payload_budget() {
    let hook = tool_before(&write_of(&"a".repeat(10_000_000)));
    hook.assert_pre_tool_deny("the payload is larger than 8388608 bytes");
    assert!(
        hook.stderr().contains("failing closed"),
        "{}",
        hook.stderr()
    );
}

#[test]
fn a_command_longer_than_64_kib_reaches_the_guard_whole() {
    let command = format!("echo {} && rm -rf build/", "x".repeat(100_000));
    let input = json!({"command": command});
    tool_before(&pre_tool_use("Bash", &input.to_string()))
        .assert_pre_tool_deny("The command (100022 characters) deletes files.");
}

#[test]
fn a_tool_input_a_million_levels_deep_is_denied_as_cut() {
    let depth = 1_000_000;
    let input = format!(
        "{{\"command\":\"ls\",\"args\":{}0{}}}",
        "[".repeat(depth),
        "]".repeat(depth)
    );
    tool_before(&pre_tool_use("Bash", &input))
        .assert_pre_tool_deny("the Bash input is nested deeper than 64 levels");
}

#[test]
fn a_lone_surrogate_is_denied_as_lossy() {
    let hook = tool_before(&pre_tool_use("Bash", r#"{"command":"echo \ud800"}"#));
    hook.assert_pre_tool_deny("lone UTF-16 surrogate");
}

#[test]
fn a_payload_cut_short_or_not_utf8_is_denied_as_unreadable() {
    let whole = pre_tool_use("Bash", r#"{"command":"ls"}"#);
    tool_before(&whole[..whole.len() / 2]).assert_pre_tool_deny("the payload is not JSON");
    let mut binary = whole.clone();
    let at = binary.len() - 10;
    binary[at] = 0xff;
    tool_before(&binary).assert_pre_tool_deny("the payload is not UTF-8 text");
}

#[test]
fn an_extra_top_level_field_never_silences_the_guard() {
    let mut payload: Value =
        serde_json::from_slice(&pre_tool_use("Bash", r#"{"command":"rm -rf build/"}"#)).unwrap();
    payload["turn_id"] = "019d036e".into();
    payload["future_field"] = json!({"anything": [1, 2]});
    tool_before(payload.to_string().as_bytes()).assert_pre_tool_deny("deletes files");
}

#[test]
fn a_shell_call_the_guard_allows_stays_allowed() {
    let hook = tool_before(&pre_tool_use("Bash", r#"{"command":"npm test"}"#));
    hook.assert_in_time(GUARD_TIMEOUT);
    assert_eq!(hook.stdout(), "");
}

#[test]
fn another_hosts_payload_stays_silent_even_when_closed() {
    let cursor = json!({
        "conversation_id": "conv-456", "generation_id": "gen-001", "model": "gpt-5",
        "hook_event_name": "PreToolUse", "cursor_version": "1.7.2",
        "workspace_roots": ["/project"], "user_email": null, "transcript_path": null,
        "tool_name": "Shell", "tool_input": {"command": "rm -rf build/"}, "tool_use_id": "t1",
        "agent_message": "cleaning up"
    });
    let hook = tool_before(cursor.to_string().as_bytes());
    hook.assert_in_time(GUARD_TIMEOUT);
    assert_eq!(hook.stdout(), "");
    assert!(
        hook.stderr().contains("comes from cursor"),
        "{}",
        hook.stderr()
    );
}

#[test]
fn a_route_that_hangs_is_denied_before_the_deadline() {
    artifact();
    let hook = hook(
        "prompt/submit",
        &fixture_bytes("UserPromptSubmit"),
        None,
        &[],
    );
    hook.assert_in_time(OTHER_TIMEOUT);
    assert_block(&hook, "did not answer within");
    assert!(
        hook.elapsed >= Duration::from_millis(1000),
        "gave up too early: {:?}",
        hook.elapsed
    );
}

#[test]
fn a_route_that_throws_is_denied() {
    artifact();
    let hook = hook("stop", &fixture_bytes("Stop"), None, &[]);
    hook.assert_in_time(OTHER_TIMEOUT);
    assert_block(&hook, "the audit backend is unreachable");
    // What the route logged before it threw is on stderr, one line, before the hook's own.
    let stderr = hook.stderr();
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(
        lines[0], "abgen-host: hook claude stop: warning: asking the audit backend {\"attempt\":1}",
        "{stderr}"
    );
    assert_eq!(lines.len(), 2, "{stderr}");
}

#[test]
fn a_route_that_crashes_its_worker_is_denied() {
    artifact();
    let hook = hook("compact/before", &fixture_bytes("PreCompact"), None, &[]);
    hook.assert_in_time(OTHER_TIMEOUT);
    assert_block(&hook, "worker");
}

fn fixture_bytes(native_event: &str) -> Vec<u8> {
    fixture(native_event).to_string().into_bytes()
}

/// Claude Code's `decision: "block"` answer, whose reason contains `because`.
fn assert_block(hook: &Hook, because: &str) {
    let answer: Value = serde_json::from_str(&hook.stdout())
        .unwrap_or_else(|_| panic!("no JSON answer: {:?} / {}", hook.stdout(), hook.stderr()));
    assert_eq!(answer["decision"], "block", "{answer}");
    let reason = answer["reason"].as_str().unwrap();
    assert!(reason.contains(because), "{reason}");
    assert!(reason.contains("fails closed"), "{reason}");
}

/// A warm runtime that accepts the request and then takes longer than any hook deadline.
struct AliveButSlow;

impl RenderSource for AliveButSlow {
    fn render(
        &self,
        _request: &WarmRequest,
        _deadline: Instant,
        _emit: &mut dyn FnMut(&RenderEvent) -> bool,
    ) {
        std::thread::sleep(Duration::from_secs(5));
    }
}

#[test]
fn a_slow_warm_runtime_leaves_the_fallback_its_cold_worker_time() {
    let runtime = tempfile::tempdir().unwrap();
    let path = SocketPath::in_directory(&runtime.path().join("abgen"), artifact(), DIGEST).unwrap();
    let _server = WarmServer::bind(path, DIGEST, Arc::new(AliveButSlow)).unwrap();
    let payload = pre_tool_use("Bash", r#"{"command":"rm -rf build/"}"#);
    // The standalone fallback renders the guard's own deny after the warm attempt gave up.
    let hook = hook("tool/before", &payload, Some(runtime.path()), &[]);
    hook.assert_pre_tool_deny("deletes files");
    assert!(hook.stderr().contains("[timeout]"), "{}", hook.stderr());
    assert!(
        hook.stderr().contains("rendered standalone"),
        "{}",
        hook.stderr()
    );
    // Without a fallback, the closed guard denies once the warm attempt has run out.
    let hook = self::hook(
        "tool/before",
        &payload,
        Some(runtime.path()),
        &["--fallback", "none"],
    );
    hook.assert_pre_tool_deny("the warm runtime did not finish before the deadline");
}

#[test]
fn codex_and_cursor_get_their_own_native_deny() {
    artifact();
    let payload = |host: &str, input: &str| {
        let path = repo().join(format!(
            "fixtures/hosts/{host}/{}.json",
            if host == "codex" {
                "PreToolUse"
            } else {
                "preToolUse"
            }
        ));
        let mut payload: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        payload["tool_input"] = "RAW-INPUT".into();
        payload
            .to_string()
            .replacen("\"RAW-INPUT\"", input, 1)
            .into_bytes()
    };
    let lone = r#"{"command":"echo \udc00"}"#;
    let codex = hook_on("codex", "tool/before", &payload("codex", lone), None, &[]);
    codex.assert_in_time(GUARD_TIMEOUT);
    let answer: Value = serde_json::from_str(&codex.stdout()).unwrap();
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny");
    let reason = answer["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap();
    assert!(reason.contains("lone UTF-16 surrogate"), "{reason}");
    let cursor = hook_on("cursor", "tool/before", &payload("cursor", lone), None, &[]);
    cursor.assert_in_time(GUARD_TIMEOUT);
    let answer: Value = serde_json::from_str(&cursor.stdout()).unwrap();
    assert_eq!(answer["permission"], "deny", "{answer}");
    assert!(
        answer["agent_message"]
            .as_str()
            .unwrap()
            .contains("lone UTF-16 surrogate"),
        "{answer}"
    );
    // Claude Code's payload on Cursor's hook is another host's: silence, closed or not.
    let claude = hook_on(
        "cursor",
        "tool/before",
        &pre_tool_use("Bash", r#"{"command":"rm -rf build/"}"#),
        None,
        &[],
    );
    claude.assert_in_time(GUARD_TIMEOUT);
    assert_eq!(claude.stdout(), "");
    assert!(
        claude.stderr().contains("comes from claude"),
        "{}",
        claude.stderr()
    );
}

/// A warm runtime whose route logs one record, then denies.
struct LogsThenDenies;

impl RenderSource for LogsThenDenies {
    fn render(
        &self,
        _request: &WarmRequest,
        _deadline: Instant,
        emit: &mut dyn FnMut(&RenderEvent) -> bool,
    ) {
        use abgen_runtime::document::{Document, LogLevel, Node, RenderEventKind};
        let logged = RenderEvent {
            sequence: 0,
            kind: RenderEventKind::Log {
                level: LogLevel::Notice,
                message: "checked against the warm policy".into(),
                data: Some(json!({"rules": 3})),
            },
        };
        let denied = RenderEvent {
            sequence: 1,
            kind: RenderEventKind::Complete {
                document: Document::new(
                    Node::Deny {
                        reason: "the warm policy forbids it".into(),
                    },
                    None,
                ),
            },
        };
        let _ = emit(&logged) && emit(&denied);
    }
}

#[test]
fn a_warm_routes_log_records_reach_the_hooks_stderr() {
    let runtime = tempfile::tempdir().unwrap();
    let path = SocketPath::in_directory(&runtime.path().join("abgen"), artifact(), DIGEST).unwrap();
    let _server = WarmServer::bind(path, DIGEST, Arc::new(LogsThenDenies)).unwrap();
    let payload = pre_tool_use("Bash", r#"{"command":"ls"}"#);
    let hook = hook("tool/before", &payload, Some(runtime.path()), &[]);
    hook.assert_pre_tool_deny("the warm policy forbids it");
    assert_eq!(
        hook.stderr(),
        "abgen-host: hook claude tool/before: notice: checked against the warm policy {\"rules\":3}\n"
    );
}
