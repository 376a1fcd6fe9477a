//! `hook-bench`: the hook round trip on the real path, as a host runs it, in one run.
//!
//! Contenders, interleaved round by round (the order rotates):
//! - `warm`: spawn `abgen-host hook --host claude --event session/start` with Claude's
//!   SessionStart payload and read the native JSON; the warm runtime hosted by a running
//!   `abgen-host mcp --server library` of the built curator answers it, rendering the curator's
//!   `session/start` through React on the MCP session's own kernel;
//! - `node -e 0`: Node starting and doing nothing;
//! - `standalone`: the same hook with no runtime up, so it takes the route's `standalone`
//!   fallback: Node started for the delivery, the same render, the same answer.
//!
//! Every round checks each hook's answer (the warm one must equal the standalone one, byte for
//! byte, and say nothing on stderr), so a fast wrong answer never counts. Then the idle MCP
//! process and its workers are measured: CPU over an idle window and resident memory. Prints a
//! Markdown report.
//!
//! Usage: `hook-bench --abgen target/release/abgen --abgen-host target/release/abgen-host
//! [--rounds 101] [--idle-seconds 10]`.

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use abgen_runtime::warm::SocketPath;
use serde_json::{Value, json};

struct Options {
    abgen: PathBuf,
    abgen_host: PathBuf,
    rounds: usize,
    idle: Duration,
}

fn options() -> Result<Options, String> {
    let mut abgen = None;
    let mut abgen_host = None;
    let mut rounds = 101;
    let mut idle = Duration::from_secs(10);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--abgen" => abgen = Some(PathBuf::from(value()?)),
            "--abgen-host" => abgen_host = Some(PathBuf::from(value()?)),
            "--rounds" => rounds = value()?.parse().map_err(|_| "--rounds takes a number")?,
            "--idle-seconds" => {
                idle = Duration::from_secs(
                    value()?
                        .parse()
                        .map_err(|_| "--idle-seconds takes a number")?,
                );
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(Options {
        abgen: abgen.ok_or("--abgen PATH is required")?,
        abgen_host: abgen_host.ok_or("--abgen-host PATH is required")?,
        rounds,
        idle,
    })
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn text(error: impl std::fmt::Display) -> String {
    error.to_string()
}

/// Builds the curator for Claude into `out` with the real `abgen-host`; returns its digest.
fn build_curator(options: &Options, out: &Path) -> Result<String, String> {
    let output = Command::new(&options.abgen)
        .args(["build", "--root"])
        .arg(repo().join("examples/curator"))
        .arg("--out")
        .arg(out)
        .args(["--target", "claude"])
        .env("ABGEN_HOST", &options.abgen_host)
        .output()
        .map_err(text)?;
    if !output.status.success() {
        return Err(format!(
            "abgen build failed: {}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(out.join("abgen.manifest.json")).map_err(text)?)
            .map_err(text)?;
    Ok(manifest["digest"].as_str().unwrap_or_default().to_owned())
}

/// A running `abgen-host mcp`, initialized as Claude Code initializes it, its stdin held open.
struct McpServer {
    child: Child,
}

impl McpServer {
    fn start(options: &Options, artifact: &Path, runtime: &Path) -> Result<Self, String> {
        let mut child = Command::new(&options.abgen_host)
            .args(["mcp", "--server", "library"])
            .env("ABGEN_ARTIFACT", artifact)
            .env("XDG_RUNTIME_DIR", runtime)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(text)?;
        let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "claude-code", "version": "2.1.332"}}});
        let stdin = child.stdin.as_mut().ok_or("no stdin")?;
        writeln!(stdin, "{initialize}").map_err(text)?;
        stdin.flush().map_err(text)?;
        let mut reply = String::new();
        BufReader::new(child.stdout.as_mut().ok_or("no stdout")?)
            .read_line(&mut reply)
            .map_err(text)?;
        if !reply.contains("\"result\"") {
            return Err(format!("initialize answered {reply:?}"));
        }
        Ok(Self { child })
    }
}

impl Drop for McpServer {
    fn drop(&mut self) {
        // Closing stdin ends the session; the server removes its socket and ends its workers.
        drop(self.child.stdin.take());
        let _ = self.child.wait();
    }
}

/// One contender: a command, its stdin, and what its output must be.
struct Contender {
    name: &'static str,
    command: Command,
    stdin: Vec<u8>,
    /// The stdout it must print (`None`: anything); set from the first standalone answer.
    expected: Option<String>,
    /// Whether it must say nothing on stderr (the warm path says nothing).
    quiet: bool,
    times: Vec<Duration>,
}

impl Contender {
    fn run(&mut self) -> Result<String, String> {
        let started = Instant::now();
        let mut child = self
            .command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|error| format!("{}: {error}", self.name))?;
        if let Some(mut stdin) = child.stdin.take() {
            stdin
                .write_all(&self.stdin)
                .map_err(|error| format!("{}: {error}", self.name))?;
        }
        let output = child
            .wait_with_output()
            .map_err(|error| format!("{}: {error}", self.name))?;
        self.times.push(started.elapsed());
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&output.stderr);
        if !output.status.success()
            || self.expected.as_ref().is_some_and(|e| &stdout != e)
            || (self.quiet && !stderr.is_empty())
        {
            return Err(format!(
                "{} answered {stdout:?} (stderr {stderr:?})",
                self.name
            ));
        }
        Ok(stdout)
    }

    fn median(&self) -> Duration {
        let mut times = self.times.clone();
        times.sort();
        times[times.len() / 2]
    }

    fn min(&self) -> Duration {
        self.times.iter().copied().min().unwrap_or_default()
    }
}

fn ms(time: Duration) -> String {
    format!("{:.2} ms", time.as_secs_f64() * 1000.0)
}

/// `pid` and every process below it.
fn process_tree(pid: u32) -> Vec<u32> {
    let mut tree = vec![pid];
    let mut index = 0;
    while index < tree.len() {
        let tasks = std::fs::read_dir(format!("/proc/{}/task", tree[index]));
        for task in tasks.into_iter().flatten().flatten() {
            let children =
                std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
            tree.extend(
                children
                    .split_whitespace()
                    .filter_map(|child| child.parse::<u32>().ok()),
            );
        }
        index += 1;
    }
    tree
}

/// CPU time (user + system, clock ticks) and resident memory (KiB) of `pids`.
fn usage(pids: &[u32]) -> (u64, u64) {
    let mut ticks = 0;
    let mut rss = 0;
    for pid in pids {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        // Fields after the command name (which may hold spaces) start at the last ')'.
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .map_or("", |(_, rest)| rest)
            .split_whitespace()
            .collect();
        let field = |n: usize| {
            fields
                .get(n)
                .and_then(|f| f.parse::<u64>().ok())
                .unwrap_or(0)
        };
        ticks += field(11) + field(12);
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        rss += status
            .lines()
            .find_map(|line| line.strip_prefix("VmRSS:"))
            .and_then(|value| value.split_whitespace().next())
            .and_then(|kib| kib.parse::<u64>().ok())
            .unwrap_or(0);
    }
    (ticks, rss)
}

fn main() -> std::process::ExitCode {
    match run() {
        Ok(report) => {
            let _ = std::io::stdout().write_all(report.as_bytes());
            std::process::ExitCode::SUCCESS
        }
        Err(error) => {
            let _ = writeln!(std::io::stderr(), "hook-bench: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run() -> Result<String, String> {
    let options = options()?;
    let work = tempfile::tempdir().map_err(text)?;
    let artifact = work.path().join("artifact");
    let runtime = work.path().join("runtime");
    let no_runtime = work.path().join("no-runtime");
    std::fs::create_dir_all(&runtime).map_err(text)?;
    let digest = build_curator(&options, &artifact)?;
    let socket = SocketPath::in_directory(&runtime.join("abgen"), &artifact, &digest)
        .map_err(text)?
        .socket;
    let server = McpServer::start(&options, &artifact, &runtime)?;
    let until = Instant::now() + Duration::from_secs(30);
    while !socket.exists() {
        if Instant::now() > until {
            return Err("the MCP server never opened its hook socket".into());
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let payload =
        std::fs::read(repo().join("fixtures/hosts/claude/SessionStart.json")).map_err(text)?;

    let hook = |runtime: &Path, fallback: &str| {
        let mut command = Command::new(&options.abgen_host);
        command
            .args(["hook", "--host", "claude", "--event", "session/start"])
            .args(["--fallback", fallback])
            .env("ABGEN_ARTIFACT", &artifact)
            .env("XDG_RUNTIME_DIR", runtime)
            .env_remove("CLAUDE_PROJECT_DIR");
        command
    };
    let mut node_empty = Command::new("node");
    node_empty.args(["-e", "0"]);
    let mut contenders = [
        Contender {
            name: "warm",
            command: hook(&runtime, "none"),
            stdin: payload.clone(),
            expected: None,
            quiet: true,
            times: Vec::new(),
        },
        Contender {
            name: "node -e 0",
            command: node_empty,
            stdin: Vec::new(),
            expected: None,
            quiet: false,
            times: Vec::new(),
        },
        Contender {
            name: "standalone",
            command: hook(&no_runtime, "standalone"),
            stdin: payload,
            expected: None,
            quiet: false,
            times: Vec::new(),
        },
    ];
    // The warm-up: the standalone answer is the reference both hooks must print every round.
    let reference = contenders[2].run()?;
    if !reference.contains("additionalContext") {
        return Err(format!("the standalone render answered {reference:?}"));
    }
    for contender in &mut contenders {
        if contender.name != "node -e 0" {
            contender.expected = Some(reference.clone());
        }
        contender.run()?;
        contender.times.clear();
    }
    for round in 0..options.rounds {
        for offset in 0..contenders.len() {
            contenders[(round + offset) % contenders.len()].run()?;
        }
    }

    // The MCP process idle: its own threads and its workers, after the hooks stopped.
    std::thread::sleep(Duration::from_secs(2));
    let tree = process_tree(server.child.id());
    let (before, rss_before) = usage(&tree);
    std::thread::sleep(options.idle);
    let (after, rss_after) = usage(&tree);
    let alive = tree
        .iter()
        .filter(|pid| Path::new(&format!("/proc/{pid}")).exists())
        .count();
    let ticks_per_second = 100.0; // USER_HZ on Linux
    let idle_cpu = after.saturating_sub(before) as f64 / ticks_per_second;
    drop(server);

    let warm = contenders[0].median();
    let mut report =
        "| contender | median | min | contender ÷ warm (median) |\n|---|---|---|---|\n".to_owned();
    for contender in &contenders {
        report.push_str(&format!(
            "| {} | {} | {} | {:.1}× |\n",
            contender.name,
            ms(contender.median()),
            ms(contender.min()),
            contender.median().as_secs_f64() / warm.as_secs_f64()
        ));
    }
    report.push_str(&format!(
        "\n{} rounds. Idle `abgen-host mcp` from 2 s after the last hook, for {} s: {:.2} s of CPU \
         in all; resident {:.1} MiB at the start (the server and {} render workers), {:.1} MiB at \
         the end ({} process(es) left: a worker beyond the first stops after 60 s idle).\n",
        options.rounds,
        options.idle.as_secs(),
        idle_cpu,
        rss_before as f64 / 1024.0,
        tree.len() - 1,
        rss_after as f64 / 1024.0,
        alive
    ));
    Ok(report)
}
