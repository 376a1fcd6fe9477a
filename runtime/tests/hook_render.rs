//! `abgen-host hook` through the `standalone` fallback with a real worker (React Flight): the
//! event props a route receives, context, deny and notice as Claude's native output, content a
//! hook cannot carry, and a route that hangs past the deadline. Reports the cold render time.

#[path = "hook_fixture/support.rs"]
mod support;

use std::path::Path;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::{abgen_host, build_artifact, repo, transcript};

fn artifact() -> &'static Path {
    static ARTIFACT: OnceLock<std::path::PathBuf> = OnceLock::new();
    ARTIFACT.get_or_init(|| build_artifact("hook-render-artifact"))
}

fn fixture(native_event: &str) -> Value {
    let path = repo().join(format!("fixtures/hosts/claude/{native_event}.json"));
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn hook(event: &str, payload: &Value) -> (String, Duration) {
    let started = Instant::now();
    let output = abgen_host(
        &["hook", "--host", "claude", "--event", event],
        &[("ABGEN_ARTIFACT", artifact())],
        payload.to_string().as_bytes(),
    );
    (transcript(&output, artifact()), started.elapsed())
}

#[expect(
    clippy::print_stderr,
    reason = "reports the measured time; shown with --nocapture"
)]
fn report(line: &str) {
    eprintln!("{line}");
}

#[test]
fn a_shell_call_gets_context_built_from_the_event_props() {
    let (text, elapsed) = hook("tool/before", &fixture("PreToolUse"));
    report(&format!(
        "standalone tool/before render, cold worker: {elapsed:?}"
    ));
    insta::assert_snapshot!(text);
}

#[test]
fn a_dangerous_shell_call_is_denied() {
    let mut payload = fixture("PreToolUse");
    payload["tool_input"] = json!({"command": "rm -rf build/"});
    insta::assert_snapshot!(hook("tool/before", &payload).0);
}

#[test]
fn stop_blocks_or_leaves_a_notice() {
    insta::assert_snapshot!("stop_notice", hook("stop", &fixture("Stop")).0);
    let mut payload = fixture("Stop");
    payload["session_id"] = "block-me".into();
    insta::assert_snapshot!("stop_block", hook("stop", &payload).0);
}

#[test]
fn a_json_node_is_a_projection_error_and_an_empty_answer() {
    insta::assert_snapshot!(hook("session/start", &fixture("SessionStart")).0);
}

#[test]
fn a_hanging_route_is_cut_off_inside_the_deadline() {
    let (text, elapsed) = hook("prompt/submit", &fixture("UserPromptSubmit"));
    assert!(
        text.starts_with("exit code: 0\n----- stdout -----\n----- stderr -----\n"),
        "{text}"
    );
    assert!(text.contains("did not answer within"), "{text}");
    // The binding's own deadline is 1000 ms and the host's timeout 2 s: the empty answer must
    // reach the host before it gives up. Alone this takes about 1.0 s; on a loaded 2-core
    // machine, with the other tests' workers starting beside it, up to about 1.45 s.
    assert!(elapsed < Duration::from_secs(2), "{elapsed:?}");
    assert!(
        elapsed >= Duration::from_millis(500),
        "gave up too early: {elapsed:?}"
    );
}
