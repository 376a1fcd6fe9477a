//! `abgen-host hook` against a warm runtime served in this test process: the warm answer is
//! encoded for Claude, Codex and Cursor with nothing on stderr; a digest mismatch, a server
//! that overruns the deadline and one that stops mid-render each fall back to the route's
//! declared fallback with one stderr line, inside the binding's deadline; hostile payloads are
//! answered with silence before the warm runtime is ever asked.

mod warm_support;

use warm_support::bind_when_free;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use abgen_runtime::document::{Document, Node, RenderEvent, RenderEventKind};
use abgen_runtime::warm::{RenderSource, SocketPath, WarmRequest, WarmServer};
use serde_json::{Value, json};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The curator's golden manifest with Codex and Cursor stop bindings added (fallback `none`).
fn artifact() -> (tempfile::TempDir, String) {
    let directory = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(repo().join("fixtures/manifests/curator.json")).unwrap();
    let mut manifest: Value = serde_json::from_str(&text).unwrap();
    let stop = |native: &str, decoder: &str, encoder: &str| {
        json!({"deadlineMs": 1750, "decoder": decoder, "encoder": encoder, "event": "stop",
               "fallback": "none", "nativeEvent": native, "routes": ["event:stop"], "timeoutSec": 2})
    };
    manifest["hooks"]["codex"] = json!([stop("Stop", "codex.stop", "codex.stop")]);
    manifest["hooks"]["cursor"] = json!([stop("stop", "cursor.stop", "cursor.stop")]);
    std::fs::write(
        directory.path().join("abgen.manifest.json"),
        manifest.to_string(),
    )
    .unwrap();
    let digest = manifest["digest"].as_str().unwrap().to_owned();
    (directory, digest)
}

/// Denies (keeps the agent going) with a reason naming the host; or misbehaves.
enum Source {
    Deny,
    Sleeps,
    StopsEarly,
    /// Completes with a failed document of this error code.
    Fails(&'static str),
}

impl RenderSource for Source {
    fn render(
        &self,
        request: &WarmRequest,
        _deadline: Instant,
        emit: &mut dyn FnMut(&RenderEvent) -> bool,
    ) {
        let host = request
            .event
            .as_ref()
            .and_then(|props| props["canonical"]["host"].as_str())
            .unwrap_or("?")
            .to_owned();
        match self {
            Source::Deny => {}
            Source::Sleeps => std::thread::sleep(Duration::from_secs(5)),
            Source::StopsEarly => return,
            Source::Fails(code) => {
                let failed = abgen_runtime::flight::FlightDecoder::new(
                    request.route.clone(),
                    abgen_runtime::document::DocumentLimits::default(),
                )
                .fail(abgen_runtime::document::DocumentError::new(
                    *code,
                    format!("failed with {code}"),
                ));
                for event in failed {
                    emit(&event);
                }
                return;
            }
        }
        let document = Document::new(
            Node::Result {
                children: vec![Node::Deny {
                    reason: format!("Shelve the new books first ({host})."),
                }]
                .into(),
            },
            None,
        );
        emit(&RenderEvent {
            sequence: 0,
            kind: RenderEventKind::Complete { document },
        });
    }
}

fn serve(runtime: &Path, root: &Path, digest: &str, serves: &str, source: Source) -> WarmServer {
    let path = SocketPath::in_directory(&runtime.join("abgen"), root, digest).unwrap();
    bind_when_free(&path, serves, Arc::new(source))
}

fn fixture(host: &str, name: &str) -> Vec<u8> {
    std::fs::read(repo().join(format!("fixtures/hosts/{host}/{name}.json"))).unwrap()
}

fn hook(root: &Path, runtime: &Path, host: &str, stdin: &[u8]) -> (Output, Duration) {
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_abgen-host"))
        .args(["hook", "--host", host, "--event", "stop"])
        .env("ABGEN_ARTIFACT", root)
        .env("XDG_RUNTIME_DIR", runtime)
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("CURSOR_PROJECT_DIR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A hook that refuses an oversized payload stops reading it: the pipe breaks, as it should.
    let _ = child.stdin.take().unwrap().write_all(stdin);
    let output = child.wait_with_output().unwrap();
    (output, started.elapsed())
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn the_warm_answer_is_encoded_for_each_host() {
    let (artifact, digest) = artifact();
    let runtime = tempfile::tempdir().unwrap();
    let _server = serve(
        runtime.path(),
        artifact.path(),
        &digest,
        &digest,
        Source::Deny,
    );
    for (host, payload, expected) in [
        (
            "claude",
            fixture("claude", "Stop"),
            r#"{"decision":"block","reason":"Shelve the new books first (claude)."}"#,
        ),
        (
            "codex",
            fixture("codex", "Stop"),
            r#"{"decision":"block","reason":"Shelve the new books first (codex)."}"#,
        ),
        (
            "cursor",
            fixture("cursor", "stop"),
            r#"{"followup_message":"Shelve the new books first (cursor)."}"#,
        ),
    ] {
        let (output, _) = hook(artifact.path(), runtime.path(), host, &payload);
        assert_eq!(output.status.code(), Some(0));
        assert_eq!(text(&output.stdout), format!("{expected}\n"), "{host}");
        assert_eq!(text(&output.stderr), "", "{host}");
    }
    // A Cursor payload sent to the Codex hook is silence, warm runtime or not.
    let (output, _) = hook(
        artifact.path(),
        runtime.path(),
        "codex",
        &fixture("cursor", "stop"),
    );
    assert_eq!(text(&output.stdout), "");
    assert!(text(&output.stderr).contains("comes from cursor"));
}

fn assert_fell_back(output: &Output, code: &str) {
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(text(&output.stdout), "");
    let stderr = text(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains(&format!("[{code}]")), "{stderr}");
    assert!(
        stderr.contains("`event:stop` declares no fallback"),
        "{stderr}"
    );
}

#[test]
fn a_server_of_another_digest_is_not_believed() {
    let (artifact, digest) = artifact();
    let runtime = tempfile::tempdir().unwrap();
    let _server = serve(
        runtime.path(),
        artifact.path(),
        &digest,
        "0000",
        Source::Deny,
    );
    let (output, _) = hook(
        artifact.path(),
        runtime.path(),
        "claude",
        &fixture("claude", "Stop"),
    );
    assert_fell_back(&output, "digest-mismatch");
}

#[test]
fn a_slow_or_broken_server_falls_back_inside_the_deadline() {
    let (artifact, digest) = artifact();
    let runtime = tempfile::tempdir().unwrap();
    let server = serve(
        runtime.path(),
        artifact.path(),
        &digest,
        &digest,
        Source::Sleeps,
    );
    let (output, elapsed) = hook(
        artifact.path(),
        runtime.path(),
        "claude",
        &fixture("claude", "Stop"),
    );
    assert_fell_back(&output, "timeout");
    // The binding's deadline is 1750 ms and the host's timeout 2 s: the fallback answer must
    // reach the host before it gives up, with room for process start on a loaded machine.
    assert!(elapsed < Duration::from_secs(2), "{elapsed:?}");
    assert!(elapsed > Duration::from_millis(1400), "{elapsed:?}");
    drop(server);

    let _server = serve(
        runtime.path(),
        artifact.path(),
        &digest,
        &digest,
        Source::StopsEarly,
    );
    let (output, _) = hook(
        artifact.path(),
        runtime.path(),
        "claude",
        &fixture("claude", "Stop"),
    );
    assert_fell_back(&output, "crashed");
}

#[test]
fn no_server_at_all_is_one_line_too() {
    let (artifact, _) = artifact();
    let runtime = tempfile::tempdir().unwrap();
    let (output, _) = hook(
        artifact.path(),
        runtime.path(),
        "claude",
        &fixture("claude", "Stop"),
    );
    assert_fell_back(&output, "no-runtime");
}

/// Counts the renders it is asked for, and answers each with a deny.
struct Counting(std::sync::atomic::AtomicUsize);

impl RenderSource for Counting {
    fn render(
        &self,
        request: &WarmRequest,
        deadline: Instant,
        emit: &mut dyn FnMut(&RenderEvent) -> bool,
    ) {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Source::Deny.render(request, deadline, emit);
    }
}

#[test]
fn hostile_payloads_never_reach_the_warm_runtime() {
    let (artifact, digest) = artifact();
    let runtime = tempfile::tempdir().unwrap();
    let source = Arc::new(Counting(Default::default()));
    let path =
        SocketPath::in_directory(&runtime.path().join("abgen"), artifact.path(), &digest).unwrap();
    let _server = WarmServer::bind(path, &digest, source.clone()).unwrap();
    let stop: Value = serde_json::from_slice(&fixture("codex", "Stop")).unwrap();
    let mut huge = stop.clone();
    huge["last_assistant_message"] = "x".repeat(2 * 1024 * 1024).into();
    let mut mistyped = stop.clone();
    mistyped["session_id"] = json!({"id": 1});
    let deep_text = stop.to_string().replacen(
        "\"stop_hook_active\":false",
        &format!(
            "\"stop_hook_active\":{}0{}",
            "[".repeat(5000),
            "]".repeat(5000)
        ),
        1,
    );
    for (host, name, payload) in [
        (
            "codex",
            "truncated",
            stop.to_string().as_bytes()[..40].to_vec(),
        ),
        ("codex", "binary", vec![0xff, 0x00, 0xfe, b'{']),
        ("codex", "2 MiB", huge.to_string().into_bytes()),
        (
            "codex",
            "mistyped session",
            mistyped.to_string().into_bytes(),
        ),
        ("cursor", "Codex's payload", stop.to_string().into_bytes()),
        ("cursor", "not an object", b"[1,2]".to_vec()),
    ] {
        let (output, elapsed) = hook(artifact.path(), runtime.path(), host, &payload);
        assert_eq!(output.status.code(), Some(0), "{host} {name}");
        assert_eq!(text(&output.stdout), "", "{host} {name}");
        assert_eq!(text(&output.stderr).lines().count(), 1, "{host} {name}");
        assert!(
            elapsed < Duration::from_millis(1750),
            "{host} {name}: {elapsed:?}"
        );
    }
    assert_eq!(source.0.load(std::sync::atomic::Ordering::SeqCst), 0);
    // The same server answers a real delivery.
    let (output, _) = hook(
        artifact.path(),
        runtime.path(),
        "codex",
        &fixture("codex", "Stop"),
    );
    assert!(text(&output.stdout).contains("\"decision\":\"block\""));
    assert_eq!(source.0.load(std::sync::atomic::Ordering::SeqCst), 1);
    // Nesting deeper than serde_json's limit is the host's delivery all the same: read, cut at
    // the depth limit, and answered.
    let (output, _) = hook(
        artifact.path(),
        runtime.path(),
        "codex",
        deep_text.as_bytes(),
    );
    assert!(text(&output.stdout).contains("\"decision\":\"block\""));
    assert_eq!(source.0.load(std::sync::atomic::Ordering::SeqCst), 2);
}

/// Without `XDG_RUNTIME_DIR`, the socket lives in `/tmp/abgen-<uid>/`, where the hook finds it.
#[test]
fn without_a_runtime_directory_the_socket_is_under_tmp() {
    let (artifact, digest) = artifact();
    let directory =
        std::path::PathBuf::from(format!("/tmp/abgen-{}", abgen_runtime::warm::current_uid()));
    // Leave /tmp as it was found: a directory this test creates is removed again below.
    let created = !directory.exists();
    let path = SocketPath::in_directory(&directory, artifact.path(), &digest).unwrap();
    let server = WarmServer::bind(path, &digest, Arc::new(Source::Deny)).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_abgen-host"))
        .args(["hook", "--host", "claude", "--event", "stop"])
        .env("ABGEN_ARTIFACT", artifact.path())
        .env_remove("XDG_RUNTIME_DIR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let _ = child
        .stdin
        .take()
        .unwrap()
        .write_all(&fixture("claude", "Stop"));
    let output = child.wait_with_output().unwrap();
    drop(server);
    if created {
        let _ = std::fs::remove_dir_all(&directory);
    }
    assert_eq!(
        text(&output.stdout),
        "{\"decision\":\"block\",\"reason\":\"Shelve the new books first (claude).\"}\n"
    );
    assert_eq!(text(&output.stderr), "");
}

#[test]
fn a_runtime_that_cannot_render_falls_back_but_a_route_failure_is_the_routes_answer() {
    let (artifact, digest) = artifact();
    let runtime = tempfile::tempdir().unwrap();
    // Busy (its queue full, or the deadline passed in it), stopping, no worker, a worker of
    // another epoch: the runtime's failures, so the hook takes the route's fallback.
    for (code, reported) in [
        ("busy", "busy"),
        ("stopped", "stopped"),
        ("worker-unavailable", "worker-unavailable"),
        ("worker-identity", "other-epoch"),
    ] {
        let server = serve(
            runtime.path(),
            artifact.path(),
            &digest,
            &digest,
            Source::Fails(code),
        );
        let (output, _) = hook(
            artifact.path(),
            runtime.path(),
            "claude",
            &fixture("claude", "Stop"),
        );
        assert_fell_back(&output, reported);
        drop(server);
    }
    // A route that threw failed on its own: that is its answer (here, open: nothing), not a
    // reason to render it again.
    let _server = serve(
        runtime.path(),
        artifact.path(),
        &digest,
        &digest,
        Source::Fails("render-error"),
    );
    let (output, _) = hook(
        artifact.path(),
        runtime.path(),
        "claude",
        &fixture("claude", "Stop"),
    );
    assert_eq!(text(&output.stdout), "");
    let stderr = text(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("event:stop: ") && !stderr.contains("warm runtime unavailable"),
        "{stderr}"
    );
}
