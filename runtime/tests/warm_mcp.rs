//! The warm runtime hosted by `abgen-host mcp`: real MCP server processes of one test artifact
//! (hook_fixture's worker entry), each with its own kernel, and `abgen-host hook` processes
//! spawned as a host spawns them. One server owns the hook socket; others of the same plugin
//! stand by and take over when it dies, SIGKILL included; a server that never owned the socket
//! leaves it alone when it exits. Hooks and the session's tool calls render on the same kernel,
//! so they see the same process-lifetime provider instance; a rebuilt artifact (a new epoch) is
//! served by a new server, with the provider loaded afresh.

#[path = "hook_fixture/support.rs"]
mod support;

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Output, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use abgen_runtime::warm::SocketPath;
use serde_json::{Value, json};
use support::{abgen_host, build_artifact, build_artifact_of, manifest, repo, transcript};

/// A running `abgen-host mcp --server demo`, its stdin held open as a host holds it.
struct McpProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    stderr: Receiver<String>,
    stdout: Receiver<Value>,
}

impl McpProcess {
    fn start(artifact: &Path, runtime: &Path) -> Self {
        Self::with_workers(artifact, runtime, 1)
    }

    fn with_workers(artifact: &Path, runtime: &Path, workers: usize) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_abgen-host"))
            .args(["mcp", "--server", "demo", "--workers", &workers.to_string()])
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

/// The provider test's artifact at `name`: the `visits` provider behind a session/start route
/// and the `echo` tool, for the epoch `digest`.
fn visits_artifact(name: &str, digest: &str) -> std::path::PathBuf {
    let entry = format!(
        "import {{ startWorker }} from '@agent-bundle/runtime/worker';\n\
         startWorker({{ protocol: {protocol}, artifact: {digest:?}, routes: {{\n\
           'event:session/start': () => import('./visits-event.tsx'),\n\
           'tool:demo/echo': () => import('./visits-tool.tsx'),\n\
         }}, providers: {{ visits: () => import('./visits-provider.ts') }} }});\n",
        protocol = abgen_runtime::worker::WORKER_PROTOCOL,
    );
    let mut manifest = manifest();
    manifest["digest"] = json!(digest);
    build_artifact_of(name, &entry, &manifest)
}

/// What the `visits` provider returned to a session/start hook answered warm.
fn visits_of_hook(artifact: &Path, runtime: &Path) -> Value {
    let output = abgen_host(
        &[
            "hook",
            "--host",
            "claude",
            "--event",
            "session/start",
            "--fallback",
            "none",
        ],
        &[("ABGEN_ARTIFACT", artifact), ("XDG_RUNTIME_DIR", runtime)],
        &std::fs::read(repo().join("fixtures/hosts/claude/SessionStart.json")).unwrap(),
    );
    let text = transcript(&output, artifact);
    assert!(text.ends_with("----- stderr -----\n"), "not warm:\n{text}");
    let answer: Value = serde_json::from_slice(&output.stdout).unwrap();
    let context = answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or_else(|| panic!("{answer}"));
    serde_json::from_str(context).unwrap()
}

#[test]
fn hooks_and_tool_calls_share_the_process_lifetime_provider_until_a_new_epoch() {
    let runtime = tempfile::tempdir().unwrap();
    let artifact = visits_artifact("warm-mcp-provider", "provider-epoch-1");
    let socket = socket_of(&artifact, runtime.path());
    // Two workers: renders one after another still stay on one of them.
    let mut server = McpProcess::with_workers(&artifact, runtime.path(), 2);
    wait_for(&socket.socket);

    let first = visits_of_hook(&artifact, runtime.path());
    let second = visits_of_hook(&artifact, runtime.path());
    server.send(&json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "x"}}}));
    let reply = server.reply(7);
    let text = reply["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{reply}"));
    let call: Value = serde_json::from_str(text).unwrap();

    let instance = &first["instance"];
    assert_eq!(&second["instance"], instance, "{first} {second}");
    assert_eq!(&call["instance"], instance, "{first} {call}");
    let visits: Vec<u64> = [&first, &second, &call]
        .iter()
        .map(|visit| visit["visits"].as_u64().unwrap())
        .collect();
    assert_eq!(visits, [1, 2, 3]);
    // The factory gets the request as the route reads it, outside the render's context.
    assert_eq!(first["invocation"], "event");
    assert_eq!(call["invocation"], "tool");
    assert_eq!(
        first["host"],
        json!({"state": "available", "value": "claude", "source": "native"})
    );
    assert_eq!(
        call["host"],
        json!({"state": "available", "value": "claude", "source": "derived"})
    );
    assert_eq!(first["plugin"]["value"]["digest"], "provider-epoch-1");
    assert_eq!(first["signal"], true);
    assert_eq!(first["insideRender"], false);

    // A rebuilt artifact is a new epoch: its hooks go to the server of its own digest (the host
    // starts a new one), whose provider is loaded afresh.
    let rebuilt = visits_artifact("warm-mcp-provider", "provider-epoch-2");
    let new_socket = socket_of(&rebuilt, runtime.path());
    assert_ne!(new_socket.socket, socket.socket);
    let _new_server = McpProcess::with_workers(&rebuilt, runtime.path(), 2);
    wait_for(&new_socket.socket);
    let reloaded = visits_of_hook(&rebuilt, runtime.path());
    assert_ne!(&reloaded["instance"], instance);
    assert_eq!(reloaded["visits"], 1);
    assert_eq!(reloaded["plugin"]["value"]["digest"], "provider-epoch-2");
}

#[test]
fn an_owner_ended_by_sigint_removes_its_socket_and_a_standby_takes_over() {
    use std::os::unix::process::ExitStatusExt as _;
    let artifact = build_artifact("warm-mcp-sigint");
    let runtime = tempfile::tempdir().unwrap();
    let socket = socket_of(&artifact, runtime.path());
    let mut owner = McpProcess::start(&artifact, runtime.path());
    wait_for(&socket.socket);
    let standby = McpProcess::start(&artifact, runtime.path());
    standby.said("standing by to take over");

    // Claude Code ends its MCP servers with SIGINT.
    let interrupted = Command::new("kill")
        .args(["-INT", &owner.child.id().to_string()])
        .status()
        .unwrap();
    assert!(interrupted.success());
    let status = owner.child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "{status:?} {:?}", status.signal());
    standby.said("took over the hook socket");
    assert_warm(
        &guarded_hook(&artifact, runtime.path()),
        &artifact,
        "after the owner was interrupted",
    );
    // The last server of the plugin, interrupted, leaves no socket behind either.
    let mut standby = standby;
    let interrupted = Command::new("kill")
        .args(["-INT", &standby.child.id().to_string()])
        .status()
        .unwrap();
    assert!(interrupted.success());
    assert_eq!(standby.child.wait().unwrap().code(), Some(130));
    assert!(
        !socket.socket.exists(),
        "an interrupted owner left its socket"
    );
}
