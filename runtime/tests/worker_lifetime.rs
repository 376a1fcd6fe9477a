//! No render worker outlives the `abgen-host` that started it. For `mcp` during a busy-looping
//! `tools/call` (and before any message: it starts its worker at once), `hook` with a
//! busy-looping route, `render`, and `cli` (the plugin's command line, which like an MCP server
//! exits 130 / 143 / 129), each way `abgen-host` can stop —
//! SIGTERM, SIGINT, SIGHUP, SIGKILL, the end of its input — must leave no Node process behind.
//!
//! How the processes are counted, so that no case can pass vacuously: every case first waits for
//! the route to say it is spinning, finds the one process running this artifact's worker entry,
//! and checks that it is abgen-host's child and burning CPU. Only then does it stop abgen-host.
//! This test process is a child subreaper (`PR_SET_CHILD_SUBREAPER`), so a worker orphaned by
//! abgen-host becomes our child rather than init's: a worker abgen-host reaped itself is simply
//! gone (not our child, no /proc entry), one the kernel killed after abgen-host died shows up here
//! as our zombie with its SIGKILL status, and one left running stays our child and fails the
//! case (it is killed before the assertion fails). Afterwards no process anywhere runs the
//! artifact's worker entry. The cases run one at a time: each spins a core.

#![cfg(target_os = "linux")]

use std::io::{BufRead as _, BufReader, Write as _};
use std::os::unix::process::ExitStatusExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, WaitOptions};
use serde_json::json;

const SPINNING: &str = "lifetime-fixture: spinning";
/// The bound on everything a case waits for; far above what any step takes on a loaded machine.
const PATIENCE: Duration = Duration::from_secs(60);
/// How soon a worker must be gone once abgen-host has exited.
const GONE_WITHIN: Duration = Duration::from_secs(5);

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn artifact() -> &'static Path {
    static ARTIFACT: OnceLock<PathBuf> = OnceLock::new();
    ARTIFACT.get_or_init(build_artifact)
}

/// `lifetime_fixture/entry.tsx` bundled into `runtime/worker.mjs`, beside a manifest naming its
/// routes: `spin` (no limit worth the name), `spin_briefly` (1.5 s), a `SessionStart` hook with a
/// 60 s deadline and a `UserPromptSubmit` hook with an 8 s one, both busy-looping.
fn build_artifact() -> PathBuf {
    let root = repo();
    assert!(
        root.join("node_modules/react-server-dom-webpack").is_dir(),
        "node_modules is missing: run `npm ci` at the repository root before `cargo test`"
    );
    let artifact = Path::new(env!("CARGO_TARGET_TMPDIR")).join("lifetime-artifact");
    let _ = std::fs::remove_dir_all(&artifact);
    std::fs::create_dir_all(artifact.join("runtime")).unwrap();
    let status = Command::new("node")
        .arg(root.join("packages/runtime/scripts/bundle-worker.mjs"))
        .arg(root.join("runtime/tests/lifetime_fixture/entry.tsx"))
        .arg(artifact.join("runtime/worker.mjs"))
        .status()
        .expect("running the bundle script (is Node on PATH?)");
    assert!(status.success(), "bundling the test worker failed");
    let tool = |name: &str, config: serde_json::Value| {
        json!({"id": format!("tool:demo/{name}"), "kind": "tool",
               "source": format!("src/mcp/demo/tools/{name}.tsx"), "server": "demo",
               "wireName": name, "config": config, "schemas": {}})
    };
    let event = |event: &str| {
        json!({"id": format!("event:{event}"), "kind": "event", "event": event,
               "source": format!("src/events/{event}.tsx"), "config": {}, "schemas": {}})
    };
    let binding = |event: &str, native: &str, decoder: &str, encoder: &str, deadline_ms: u64| {
        json!({"nativeEvent": native, "routes": [format!("event:{event}")], "event": event,
               "deadlineMs": deadline_ms, "timeoutSec": deadline_ms.div_ceil(1000) + 1,
               "decoder": decoder, "encoder": encoder, "fallback": "standalone"})
    };
    let manifest = json!({
        "manifestVersion": abgen_runtime::manifest::MANIFEST_VERSION,
        "application": {"name": "lifetime-test", "version": "0.0.0"},
        "digest": "lifetime-test-digest",
        "react": "19.3.1",
        "workerProtocol": abgen_runtime::worker::WORKER_PROTOCOL,
        "routes": [
            tool("spin", json!({"description": "Spins forever."})),
            tool("spin_briefly", json!({"description": "Spins.", "render": {"maxElapsedMs": 1500}})),
            event("session/start"),
            event("prompt/submit"),
        ],
        "servers": [{"id": "demo", "mode": "generated",
                     "routes": ["tool:demo/spin", "tool:demo/spin_briefly"]}],
        "cli": {"bin": "lifetime-test", "commands": [
            {"path": ["demo", "spin"], "route": "tool:demo/spin", "projection": "mcp-command",
             "confirm": false}
        ]},
        "hooks": {"claude": [
            binding("session/start", "SessionStart", "claude.session", "claude.context", 60_000),
            binding("prompt/submit", "UserPromptSubmit", "claude.prompt", "claude.prompt", 8_000),
        ]},
        "limits": {"render": {"maxElapsedMs": 600_000, "maxBytes": 8_388_608},
                   "hookInputMaxBytes": 1_048_576},
        "files": []
    });
    std::fs::write(artifact.join("abgen.manifest.json"), manifest.to_string()).unwrap();
    artifact
}

/// One case at a time, in a process that adopts orphans.
fn exclusive() -> std::sync::MutexGuard<'static, ()> {
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
    static SUBREAPER: OnceLock<()> = OnceLock::new();
    SUBREAPER.get_or_init(|| {
        rustix::process::set_child_subreaper(Some(rustix::process::getpid()))
            .expect("becoming a child subreaper");
    });
    ONE_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A running `abgen-host` whose stderr lines arrive on a channel.
struct Host {
    child: Child,
    stdin: Option<ChildStdin>,
    stderr: Receiver<String>,
    seen: Vec<String>,
}

impl Drop for Host {
    /// A failed assertion must not leave this abgen-host, or its busy worker, to the next test:
    /// SIGKILL it (its worker's death signal follows) and reap it.
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Host {
    fn start(args: &[&str]) -> Host {
        let mut child = Command::new(env!("CARGO_BIN_EXE_abgen-host"))
            .args(args)
            .env("ABGEN_ARTIFACT", artifact())
            .env_remove("CLAUDE_PROJECT_DIR")
            // No warm runtime: hooks take their standalone fallback.
            .env("XDG_RUNTIME_DIR", "/nonexistent/abgen-tests")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let stderr = child.stderr.take().unwrap();
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { return };
                if sender.send(line).is_err() {
                    return;
                }
            }
        });
        Host {
            child,
            stdin,
            stderr: lines,
            seen: Vec::new(),
        }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    fn write(&mut self, text: &str) {
        let stdin = self.stdin.as_mut().expect("stdin is still open");
        stdin.write_all(text.as_bytes()).unwrap();
        stdin.flush().unwrap();
    }

    fn close_stdin(&mut self) {
        self.stdin = None;
    }

    fn signal(&self, signal: Signal) {
        rustix::process::kill_process(pid(self.pid()), signal).expect("signalling abgen-host");
    }

    /// Waits for the route to report that it spins, and returns the one process running the
    /// worker entry after checking it is this abgen-host's child and burning CPU.
    fn spinning_worker(&mut self) -> u32 {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let wait = deadline.saturating_duration_since(Instant::now());
            match self.stderr.recv_timeout(wait) {
                Ok(line) if line.contains(SPINNING) => break,
                Ok(line) => self.seen.push(line),
                Err(_) => panic!("the route never started spinning; stderr: {:#?}", self.seen),
            }
        }
        let workers = worker_processes();
        assert_eq!(workers.len(), 1, "one worker runs the entry: {workers:?}");
        let worker = workers[0];
        assert_eq!(
            parent_of(worker),
            Some(self.pid()),
            "the worker is abgen-host's child"
        );
        assert_busy(worker);
        worker
    }

    /// Waits (bounded) for abgen-host to exit.
    fn exit_status(&mut self) -> ExitStatus {
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("abgen-host did not exit within {PATIENCE:?}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn stdout(&mut self) -> String {
        let mut text = String::new();
        std::io::Read::read_to_string(self.child.stdout.as_mut().unwrap(), &mut text).unwrap();
        text
    }
}

fn pid(raw: u32) -> Pid {
    Pid::from_raw(i32::try_from(raw).unwrap()).unwrap()
}

/// Every process on the machine whose command line runs this artifact's worker entry.
fn worker_processes() -> Vec<u32> {
    let entry = artifact().join("runtime/worker.mjs");
    let entry = entry.to_str().unwrap();
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|cmdline| {
                cmdline
                    .split(|byte| *byte == 0)
                    .any(|argument| argument == entry.as_bytes())
            })
        })
        .collect()
}

/// Fields of `/proc/PID/stat` after the command name (which may hold spaces): state is 0.
fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, after_name) = stat.rsplit_once(')')?;
    Some(after_name.split_whitespace().map(str::to_owned).collect())
}

fn parent_of(pid: u32) -> Option<u32> {
    stat_fields(pid)?.get(1)?.parse().ok()
}

/// User plus system CPU time, in clock ticks.
fn cpu_ticks(pid: u32) -> u64 {
    let fields = stat_fields(pid).expect("the worker is alive");
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}

/// The process gains at least 10 clock ticks (100 ms at the usual 100 Hz) of CPU within 3 s: a
/// worker waiting on its event loop gains none.
fn assert_busy(pid: u32) {
    let before = cpu_ticks(pid);
    let deadline = Instant::now() + Duration::from_secs(3);
    while Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
        if cpu_ticks(pid) >= before + 10 {
            return;
        }
    }
    panic!(
        "worker {pid} is not busy: {} ticks in 3 s",
        cpu_ticks(pid) - before
    );
}

/// How a worker ended after its abgen-host exited.
#[derive(Debug, PartialEq, Eq)]
enum Ended {
    /// abgen-host killed and reaped it before exiting.
    ReapedByHost,
    /// It outlived abgen-host, was adopted by this process and died of SIGKILL.
    KilledWhenOrphaned,
}

/// Waits (bounded) for `worker` to be gone after abgen-host has exited, and says how it went.
fn worker_end(worker: u32) -> Ended {
    let deadline = Instant::now() + GONE_WITHIN;
    loop {
        match rustix::process::waitpid(Some(pid(worker)), WaitOptions::NOHANG) {
            Ok(Some((_, status))) => {
                assert_eq!(
                    status.terminating_signal(),
                    Some(Signal::KILL.as_raw()),
                    "the orphaned worker died of SIGKILL"
                );
                return Ended::KilledWhenOrphaned;
            }
            Err(rustix::io::Errno::CHILD) => {
                assert!(
                    !Path::new(&format!("/proc/{worker}")).exists(),
                    "worker {worker} is neither reaped nor adopted by this test"
                );
                return Ended::ReapedByHost;
            }
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            other => {
                let _ = rustix::process::kill_process(pid(worker), Signal::KILL);
                let _ = rustix::process::waitpid(Some(pid(worker)), WaitOptions::empty());
                panic!(
                    "worker {worker} still ran {GONE_WITHIN:?} after abgen-host exited ({other:?})"
                );
            }
        }
    }
}

/// After `end` stops abgen-host: how it exited, how the worker ended, and that nothing runs the
/// worker entry any more.
fn stop(host: &mut Host, worker: u32, end: impl FnOnce(&mut Host)) -> (ExitStatus, Ended) {
    end(host);
    let status = host.exit_status();
    let ended = worker_end(worker);
    assert_eq!(worker_processes(), Vec::<u32>::new(), "no worker is left");
    (status, ended)
}

fn mcp_spinning(tool: &str) -> (Host, u32) {
    let mut host = Host::start(&["mcp", "--server", "demo", "--workers", "1"]);
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "lifetime-test", "version": "1"}}});
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                      "params": {"name": tool, "arguments": {}}});
    host.write(&format!(
        "{initialize}\n{}\n{call}\n",
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
    ));
    let worker = host.spinning_worker();
    (host, worker)
}

fn hook_spinning(event: &str) -> (Host, u32) {
    let mut host = Host::start(&["hook", "--host", "claude", "--event", event]);
    let payload = std::fs::read_to_string(repo().join(match event {
        "session/start" => "fixtures/hosts/claude/SessionStart.json",
        _ => "fixtures/hosts/claude/UserPromptSubmit.json",
    }))
    .unwrap();
    host.write(&payload);
    host.close_stdin();
    let worker = host.spinning_worker();
    (host, worker)
}

fn render_spinning() -> (Host, u32) {
    let root = artifact().to_str().unwrap().to_owned();
    let mut host = Host::start(&["render", "--artifact", &root, "--route", "tool:demo/spin"]);
    let worker = host.spinning_worker();
    (host, worker)
}

fn cli_spinning() -> (Host, u32) {
    let root = artifact().to_str().unwrap().to_owned();
    let mut host = Host::start(&["cli", "--artifact", &root, "demo", "spin"]);
    let worker = host.spinning_worker();
    (host, worker)
}

fn signalled(signal: Signal) -> impl FnOnce(&mut Host) {
    move |host: &mut Host| host.signal(signal)
}

/// How abgen-host ends on a catchable signal.
#[derive(Clone, Copy)]
enum Ending {
    /// It dies of the signal (hook, render).
    OfTheSignal,
    /// It exits with 128 + the signal's number (an MCP server, the plugin's command line: 130,
    /// 143, 129).
    WithShellCode,
}

/// Each catchable signal ends abgen-host as `ending` says, after it killed and reaped its worker
/// itself.
fn assert_signal_reaps(ending: Ending, start: impl Fn() -> (Host, u32)) {
    for signal in [Signal::TERM, Signal::INT, Signal::HUP] {
        let (mut host, worker) = start();
        let (status, ended) = stop(&mut host, worker, signalled(signal));
        match ending {
            Ending::OfTheSignal => assert_eq!(
                status.signal(),
                Some(signal.as_raw()),
                "{signal:?}: {status:?}"
            ),
            Ending::WithShellCode => assert_eq!(
                status.code(),
                Some(128 + signal.as_raw()),
                "{signal:?}: {status:?}"
            ),
        }
        assert_eq!(ended, Ended::ReapedByHost, "{signal:?}");
    }
}

/// SIGKILL leaves abgen-host no chance to act: the kernel's death signal ends the worker.
fn assert_sigkill_kills(start: impl Fn() -> (Host, u32)) {
    let (mut host, worker) = start();
    let (status, ended) = stop(&mut host, worker, signalled(Signal::KILL));
    assert_eq!(status.signal(), Some(Signal::KILL.as_raw()), "{status:?}");
    assert_eq!(ended, Ended::KilledWhenOrphaned);
}

#[test]
fn mcp_during_a_busy_tool_call_leaves_no_worker_on_a_signal() {
    let _one = exclusive();
    assert_signal_reaps(Ending::WithShellCode, || mcp_spinning("spin"));
    assert_sigkill_kills(|| mcp_spinning("spin"));
}

#[test]
fn mcp_whose_stdin_closes_during_a_busy_tool_call_answers_it_at_its_limit_and_reaps() {
    let _one = exclusive();
    let (mut host, worker) = mcp_spinning("spin_briefly");
    let started = Instant::now();
    let (status, ended) = stop(&mut host, worker, Host::close_stdin);
    assert_eq!(status.code(), Some(0), "{status:?}");
    assert_eq!(ended, Ended::ReapedByHost);
    // The route's own 1.5 s limit plus the server's allowance, not the manifest's 600 s.
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
    let stdout = host.stdout();
    let reply: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(reply["id"], 1, "{stdout}");
    assert_eq!(reply["result"]["isError"], true, "{stdout}");
}

/// The MCP server starts its worker before the client's first message (the session's first
/// call finds Node further along), and a client that leaves without a word leaves no worker.
#[test]
fn mcp_starts_its_worker_before_the_first_message_and_reaps_it_when_stdin_closes() {
    let _one = exclusive();
    let mut host = Host::start(&["mcp", "--server", "demo", "--workers", "1"]);
    let deadline = Instant::now() + PATIENCE;
    let worker = loop {
        let workers = worker_processes();
        if let [worker] = workers[..]
            && parent_of(worker) == Some(host.pid())
        {
            break worker;
        }
        assert!(
            Instant::now() < deadline,
            "no worker started before any message: {workers:?}"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    let (status, ended) = stop(&mut host, worker, Host::close_stdin);
    assert_eq!(status.code(), Some(0), "{status:?}");
    assert_eq!(ended, Ended::ReapedByHost);
    assert_eq!(host.stdout(), "", "nothing was asked, nothing answered");
}

/// Seed 002's bounded shutdown: once stdin closes, a call that would run for ten minutes gets
/// five seconds, then it is cancelled (its worker killed after the abort grace) and the server
/// exits 0 with no answer for it.
#[test]
fn mcp_whose_stdin_closes_during_an_endless_call_exits_within_its_shutdown_bound() {
    let _one = exclusive();
    let (mut host, worker) = mcp_spinning("spin");
    let started = Instant::now();
    let (status, ended) = stop(&mut host, worker, Host::close_stdin);
    let took = started.elapsed();
    assert_eq!(status.code(), Some(0), "{status:?}");
    assert_eq!(ended, Ended::ReapedByHost);
    assert!(took >= Duration::from_secs(5), "{took:?}");
    assert!(took < Duration::from_secs(12), "{took:?}");
    assert!(
        !host.stdout().contains("\"id\":1"),
        "the cancelled call was answered: {}",
        host.stdout()
    );
}

#[test]
fn hook_with_a_busy_route_leaves_no_worker_on_a_signal() {
    let _one = exclusive();
    assert_signal_reaps(Ending::OfTheSignal, || hook_spinning("session/start"));
    assert_sigkill_kills(|| hook_spinning("session/start"));
}

#[test]
fn hook_with_a_busy_route_answers_at_its_deadline_and_reaps() {
    let _one = exclusive();
    let (mut host, worker) = hook_spinning("prompt/submit");
    let (status, ended) = stop(&mut host, worker, |_| {});
    assert_eq!(status.code(), Some(0), "{status:?}");
    assert_eq!(ended, Ended::ReapedByHost);
    assert_eq!(host.stdout(), "", "no answer past the deadline");
}

#[test]
fn render_of_a_busy_route_leaves_no_worker_on_a_signal() {
    let _one = exclusive();
    assert_signal_reaps(Ending::OfTheSignal, render_spinning);
    assert_sigkill_kills(render_spinning);
}

#[test]
fn the_plugin_command_line_during_a_busy_command_exits_130_and_143_and_leaves_no_worker() {
    let _one = exclusive();
    assert_signal_reaps(Ending::WithShellCode, cli_spinning);
    assert_sigkill_kills(cli_spinning);
}
