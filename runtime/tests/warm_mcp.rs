//! The warm runtime hosted by `abgen-host mcp`: real MCP server processes of one test artifact
//! (hook_fixture's worker entry), each with its own kernel, and `abgen-host hook` processes
//! spawned as a host spawns them. One server owns the hook socket; others of the same plugin
//! stand by and take over when it dies, SIGKILL included; a server that never owned the socket
//! leaves it alone when it exits.

#[path = "hook_fixture/support.rs"]
mod support;

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Output, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use abgen_runtime::warm::SocketPath;
use serde_json::{Value, json};
use support::{abgen_host, build_artifact, repo, transcript};

/// A running `abgen-host mcp --server demo`, its stdin held open as a host holds it.
struct McpProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    stderr: Receiver<String>,
    stdout: Receiver<Value>,
}

impl McpProcess {
    fn start(artifact: &Path, runtime: &Path) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_abgen-host"))
            .args(["mcp", "--server", "demo", "--workers", "1"])
            .env("ABGEN_ARTIFACT", artifact)
            .env("XDG_RUNTIME_DIR", runtime)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (lines, stderr) = mpsc::channel();
        let err = BufReader::new(child.stderr.take().unwrap());
        std::thread::spawn(move || {
            for line in err.lines().map_while(Result::ok) {
                let _ = lines.send(line);
            }
        });
        let (messages, stdout) = mpsc::channel();
        let out = BufReader::new(child.stdout.take().unwrap());
        std::thread::spawn(move || {
            for line in out.lines().map_while(Result::ok) {
                let _ = messages.send(serde_json::from_str(&line).unwrap());
            }
        });
        let mut process = Self {
            stdin: child.stdin.take(),
            child,
            stderr,
            stdout,
        };
        process.send(
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "claude-code", "version": "2.1.332"}}}),
        );
        process.reply(0);
        process.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        process
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    /// The reply to request `id`, within 30 s.
    fn reply(&self, id: u64) -> Value {
        let until = Instant::now() + Duration::from_secs(30);
        loop {
            let left = until.saturating_duration_since(Instant::now());
            let message = self
                .stdout
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no reply to request {id}"));
            if message["id"] == id {
                return message;
            }
        }
    }

    /// Waits (at most 20 s) for a stderr line containing `text`.
    fn said(&self, text: &str) -> String {
        let until = Instant::now() + Duration::from_secs(20);
        loop {
            let left = until.saturating_duration_since(Instant::now());
            match self.stderr.recv_timeout(left) {
                Ok(line) if line.contains(text) => return line,
                Ok(_) => {}
                Err(_) => panic!("the server never said `{text}`"),
            }
        }
    }

    /// Closes stdin, as a host ending the session does, and waits for the exit.
    fn close(mut self) -> std::process::ExitStatus {
        self.stdin = None;
        self.child.wait().unwrap()
    }
}

impl Drop for McpProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn socket_of(artifact: &Path, runtime: &Path) -> SocketPath {
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(artifact.join("abgen.manifest.json")).unwrap())
            .unwrap();
    SocketPath::in_directory(
        &runtime.join("abgen"),
        artifact,
        manifest["digest"].as_str().unwrap(),
    )
    .unwrap()
}

/// Waits (at most 20 s) for `path` to exist.
fn wait_for(path: &Path) {
    let until = Instant::now() + Duration::from_secs(20);
    while !path.exists() {
        assert!(Instant::now() < until, "{} never appeared", path.display());
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A Claude PreToolUse delivery of `rm -rf build/`, which the fixture's guard denies, answered
/// with no fallback: an answer that did not come from the warm runtime is empty and says why.
fn guarded_hook(artifact: &Path, runtime: &Path) -> Output {
    let mut payload: Value = serde_json::from_slice(
        &std::fs::read(repo().join("fixtures/hosts/claude/PreToolUse.json")).unwrap(),
    )
    .unwrap();
    payload["tool_input"] = json!({"command": "rm -rf build/"});
    abgen_host(
        &[
            "hook",
            "--host",
            "claude",
            "--event",
            "tool/before",
            "--fallback",
            "none",
        ],
        &[("ABGEN_ARTIFACT", artifact), ("XDG_RUNTIME_DIR", runtime)],
        payload.to_string().as_bytes(),
    )
}

fn assert_warm(output: &Output, artifact: &Path, when: &str) {
    let text = transcript(output, artifact);
    assert!(
        text.contains(r#""permissionDecision":"deny""#) && text.ends_with("----- stderr -----\n"),
        "{when}: not answered warm:\n{text}"
    );
}

#[test]
fn a_standby_server_takes_over_the_hooks_when_the_owner_is_killed() {
    let artifact = build_artifact("warm-mcp-takeover");
    let runtime = tempfile::tempdir().unwrap();
    let socket = socket_of(&artifact, runtime.path());

    let owner = McpProcess::start(&artifact, runtime.path());
    wait_for(&socket.socket);
    let standby = McpProcess::start(&artifact, runtime.path());
    standby.said("standing by to take over");
    assert_warm(
        &guarded_hook(&artifact, runtime.path()),
        &artifact,
        "owner up",
    );

    // A server that only stood by leaves the owner's socket alone when its session ends.
    let passer_by = McpProcess::start(&artifact, runtime.path());
    passer_by.said("standing by to take over");
    assert!(passer_by.close().success());
    assert!(socket.socket.exists());
    assert_warm(
        &guarded_hook(&artifact, runtime.path()),
        &artifact,
        "after a standby exited",
    );

    // SIGKILL: nothing of the owner runs its cleanup; its socket file stays behind.
    let mut owner = owner;
    owner.child.kill().unwrap();
    owner.child.wait().unwrap();
    std::thread::sleep(Duration::from_secs(1));
    assert_warm(
        &guarded_hook(&artifact, runtime.path()),
        &artifact,
        "one second after the owner was killed",
    );
    standby.said("took over the hook socket");

    // The new owner removes its socket file when its session ends.
    assert!(standby.close().success());
    assert!(!socket.socket.exists(), "the owner left its socket behind");
    let text = transcript(&guarded_hook(&artifact, runtime.path()), &artifact);
    assert!(
        text.contains("warm runtime unavailable [no-runtime]") && !text.contains("deny"),
        "{text}"
    );
}
