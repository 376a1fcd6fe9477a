//! Hostile and foreign deliveries to `abgen-host hook`: truncated JSON, a 10 MB stdin, wrong
//! types, other hosts' payloads, a missing manifest, no Node, a worker that never says hello.
//! Every one ends in exit 0 with no stdout (an honest empty answer) inside the deadline, and the
//! decoders never panic on any prefix or corruption of a real payload.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use abgen_runtime::hosts::{self, DecodeInput};
use serde_json::{Value, json};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn fixture(native_event: &str) -> Vec<u8> {
    std::fs::read(repo().join(format!("fixtures/hosts/claude/{native_event}.json"))).unwrap()
}

/// An artifact with the curator's golden manifest (its real Claude bindings), a short deadline on
/// `session/start` (standalone) and a placeholder worker: enough for every path before Node.
fn artifact() -> tempfile::TempDir {
    let directory = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(repo().join("fixtures/manifests/curator.json")).unwrap();
    let mut manifest: Value = serde_json::from_str(&text).unwrap();
    for binding in manifest["hooks"]["claude"].as_array_mut().unwrap() {
        if binding["event"] == "session/start" {
            binding["deadlineMs"] = json!(600);
        }
    }
    std::fs::write(
        directory.path().join("abgen.manifest.json"),
        manifest.to_string(),
    )
    .unwrap();
    std::fs::create_dir_all(directory.path().join("runtime")).unwrap();
    std::fs::write(
        directory.path().join("runtime/worker.mjs"),
        "// placeholder\n",
    )
    .unwrap();
    directory
}

fn hook(artifact: &Path, args: &[&str], stdin: &[u8], env: &[(&str, &Path)]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_abgen-host"))
        .arg("hook")
        .args(args)
        .env("ABGEN_ARTIFACT", artifact)
        .env_remove("CLAUDE_PROJECT_DIR")
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let bytes = stdin.to_vec();
    // The hook may stop reading early (an oversized payload); a broken pipe here is expected.
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&bytes);
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    output
}

/// Exit 0, nothing on stdout, and at most one line on stderr, which is returned.
fn assert_silent(output: &Output) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&output.stdout), "", "{stderr}");
    assert!(stderr.lines().count() <= 1, "{stderr}");
    stderr
}

const TOOL_AFTER: &[&str] = &["--host", "claude", "--event", "tool/after"];

#[test]
fn broken_and_mistyped_payloads_are_silence() {
    let artifact = artifact();
    let post = fixture("PostToolUse");
    let mut cases: Vec<(String, Vec<u8>)> = vec![
        ("truncated".into(), post[..post.len() / 2].to_vec()),
        ("empty".into(), Vec::new()),
        ("not an object".into(), b"[1, 2, 3]".to_vec()),
        ("not UTF-8".into(), vec![0xff, 0xfe, b'{']),
    ];
    for (field, value) in [
        ("hook_event_name", json!(7)),
        ("session_id", json!({"id": 1})),
        ("cwd", json!(["/"])),
        ("tool_name", json!(null)),
        ("tool_name", json!(["Write"])),
    ] {
        let mut payload: Value = serde_json::from_slice(&post).unwrap();
        payload[field] = value.clone();
        cases.push((
            format!("{field} = {value}"),
            serde_json::to_vec(&payload).unwrap(),
        ));
    }
    for (name, payload) in cases {
        let stderr = assert_silent(&hook(artifact.path(), TOOL_AFTER, &payload, &[]));
        assert!(
            stderr.contains("answering with nothing"),
            "{name}: {stderr}"
        );
    }
}

#[test]
fn an_oversized_stdin_is_refused_without_reading_it_all() {
    let artifact = artifact();
    // Past the host matrix's 8 MiB budget: a 10 MB Write.
    let mut payload: Value = serde_json::from_slice(&fixture("PostToolUse")).unwrap();
    payload["tool_input"]["content"] = "x".repeat(10_000_000).into();
    let stderr = assert_silent(&hook(
        artifact.path(),
        TOOL_AFTER,
        &serde_json::to_vec(&payload).unwrap(),
        &[],
    ));
    assert!(stderr.contains("larger than 8388608 bytes"), "{stderr}");
}

#[test]
fn other_hosts_payloads_are_recognised_and_answered_with_silence() {
    let artifact = artifact();
    let cursor = json!({
        "conversation_id": "conv-456", "generation_id": "gen-001",
        "model": "claude-opus-4-7-thinking-max", "hook_event_name": "afterFileEdit",
        "cursor_version": "1.7.2", "workspace_roots": ["/project"], "user_email": null,
        "transcript_path": null, "file_path": "/project/src/auth.ts",
        "edits": [{"old_string": "const a = 1;", "new_string": "const a = 2;"}]
    });
    let stderr = assert_silent(&hook(
        artifact.path(),
        TOOL_AFTER,
        cursor.to_string().as_bytes(),
        &[],
    ));
    assert!(stderr.contains("comes from cursor"), "{stderr}");
    // Codex sends the same native event name and the same fields plus its own (`turn_id`):
    // extra fields never make a payload foreign, so it reads as Claude's. (Codex never runs
    // Claude Code's hooks document; `apply_patch` is no tool the route selects.)
    let codex = json!({
        "session_id": "019d036d", "turn_id": "019d036e",
        "transcript_path": "/home/user/.codex/sessions/rollout.jsonl", "cwd": "/home/user/project",
        "hook_event_name": "PostToolUse", "model": "gpt-5.5", "permission_mode": "default",
        "tool_name": "apply_patch",
        "tool_input": {"command": "*** Begin Patch\n*** Add File: notes/a.md\n+Hi\n*** End Patch"},
        "tool_response": "Success.", "tool_use_id": "call-apply-patch"
    });
    let stderr = assert_silent(&hook(
        artifact.path(),
        TOOL_AFTER,
        codex.to_string().as_bytes(),
        &[],
    ));
    assert_eq!(stderr, "");
    // Gemini's event names are its own.
    let gemini = json!({
        "session_id": "abc123", "transcript_path": "/t.jsonl", "cwd": "/p",
        "hook_event_name": "AfterTool", "timestamp": "2025-12-01T10:30:01Z",
        "tool_name": "write_file", "tool_input": {"file_path": "notes/a.md"}
    });
    let stderr = assert_silent(&hook(
        artifact.path(),
        TOOL_AFTER,
        gemini.to_string().as_bytes(),
        &[],
    ));
    assert!(stderr.contains("`AfterTool` event"), "{stderr}");
}

#[test]
fn a_tool_the_route_does_not_select_gets_no_answer_and_no_message() {
    let artifact = artifact();
    let mut payload: Value = serde_json::from_slice(&fixture("PostToolUse")).unwrap();
    payload["tool_name"] = "Bash".into();
    payload["tool_input"] = json!({"command": "ls"});
    let stderr = assert_silent(&hook(
        artifact.path(),
        TOOL_AFTER,
        &serde_json::to_vec(&payload).unwrap(),
        &[],
    ));
    assert_eq!(stderr, "");
}

#[test]
fn misuse_and_missing_pieces_never_exit_2() {
    let artifact = artifact();
    let payload = fixture("SessionStart");
    for (args, expected) in [
        (&["--host", "claude"][..], "--event"),
        (
            &["--host", "vscode", "--event", "session/start"][..],
            "no vscode hook",
        ),
        (
            &["--host", "claude", "--event", "prompt/submit"][..],
            "no claude hook for `prompt/submit`",
        ),
        (
            &["--host", "claude", "--event", "stop", "--bogus"][..],
            "--bogus",
        ),
    ] {
        let stderr = assert_silent(&hook(artifact.path(), args, &payload, &[]));
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
    let empty = tempfile::tempdir().unwrap();
    let stderr = assert_silent(&hook(
        empty.path(),
        &["--host", "claude", "--event", "session/start"],
        &payload,
        &[],
    ));
    assert!(stderr.contains("abgen.manifest.json"), "{stderr}");
}

#[test]
fn a_declared_fallback_of_none_answers_nothing_and_says_why() {
    let artifact = artifact();
    let stderr = assert_silent(&hook(
        artifact.path(),
        &["--host", "claude", "--event", "stop"],
        &fixture("Stop"),
        &[],
    ));
    assert!(
        stderr.contains("`event:stop` declares no fallback"),
        "{stderr}"
    );
}

#[test]
fn no_node_is_an_empty_answer() {
    let artifact = artifact();
    let stderr = assert_silent(&hook(
        artifact.path(),
        &["--host", "claude", "--event", "session/start"],
        &fixture("SessionStart"),
        &[("ABGEN_NODE", Path::new("/nonexistent/node"))],
    ));
    assert!(stderr.contains("Node.js was not found"), "{stderr}");
}

#[test]
fn a_path_without_node_names_node_20_and_how_to_get_it() {
    let artifact = artifact();
    let no_node = tempfile::tempdir().unwrap();
    let stderr = assert_silent(&hook(
        artifact.path(),
        &["--host", "claude", "--event", "session/start"],
        &fixture("SessionStart"),
        // An empty ABGEN_NODE counts as unset: only PATH is searched, and it holds no node.
        &[("ABGEN_NODE", Path::new("")), ("PATH", no_node.path())],
    ));
    assert!(
        stderr.contains("Node.js 20 or newer")
            && stderr.contains("`node` is on PATH")
            && stderr.contains("set ABGEN_NODE")
            && stderr.contains(&no_node.path().display().to_string()),
        "{stderr}"
    );
}

#[test]
fn a_worker_that_never_answers_is_cut_off_at_the_deadline() {
    let artifact = artifact();
    let node = artifact.path().join("fake-node");
    std::fs::write(
        &node,
        "#!/bin/sh\nif [ \"$1\" = --version ]; then echo v20.0.0; exit 0; fi\nexec sleep 30\n",
    )
    .unwrap();
    std::fs::set_permissions(&node, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let started = Instant::now();
    let output = hook(
        artifact.path(),
        &["--host", "claude", "--event", "session/start"],
        &fixture("SessionStart"),
        &[("ABGEN_NODE", &node)],
    );
    let elapsed = started.elapsed();
    let stderr = assert_silent(&output);
    assert!(stderr.contains("did not answer within"), "{stderr}");
    // The binding's deadline is 600 ms and the host's timeout 5 s. The node stand-in sleeps for
    // 30 s, so any answer near the deadline proves the cut-off; the bound leaves room for process
    // start and exit on a loaded 2-core machine.
    assert!(elapsed < Duration::from_millis(1500), "{elapsed:?}");
}

#[test]
fn a_node_that_hangs_before_starting_is_cut_off_at_the_deadline() {
    let artifact = artifact();
    let node = artifact.path().join("stuck-node");
    std::fs::write(&node, "#!/bin/sh\nexec sleep 30\n").unwrap();
    std::fs::set_permissions(&node, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let started = Instant::now();
    let output = hook(
        artifact.path(),
        &["--host", "claude", "--event", "session/start"],
        &fixture("SessionStart"),
        &[("ABGEN_NODE", &node)],
    );
    let elapsed = started.elapsed();
    let stderr = assert_silent(&output);
    assert!(
        stderr.contains("no answer within the 600 ms deadline"),
        "{stderr}"
    );
    assert!(elapsed < Duration::from_millis(1500), "{elapsed:?}");
}

#[test]
fn decoders_never_panic_on_prefixes_or_corruption_of_real_payloads() {
    let no_environment = |_: &str| None;
    for entry in std::fs::read_dir(repo().join("fixtures/hosts/claude")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|extension| extension != "json") {
            continue;
        }
        let payload = std::fs::read(&path).unwrap();
        let native_event = path.file_stem().unwrap().to_str().unwrap().to_owned();
        let mut variants: Vec<Vec<u8>> = (0..payload.len())
            .map(|end| payload[..end].to_vec())
            .collect();
        for (index, byte) in payload.iter().enumerate().step_by(3) {
            let mut corrupted = payload.clone();
            corrupted[index] = byte.wrapping_add(0x5b);
            variants.push(corrupted);
        }
        variants.push(b"[".repeat(100_000));
        for decoder in [
            "claude.tool",
            "claude.session",
            "claude.stop",
            "claude.prompt",
        ] {
            let decoder = hosts::decoder(decoder).unwrap();
            for variant in &variants {
                let _ = decoder.decode(&DecodeInput {
                    payload: variant,
                    event: "tool/after",
                    native_event: &native_event,
                    opt_in: &[],
                    env: &no_environment,
                    max_depth: 64,
                });
            }
        }
    }
}
