//! `hook-bench`: the hook round trip, as a host runs it, against Node's floor, in one run.
//!
//! Contenders, interleaved round by round (the order rotates):
//! - `abgen`: spawn `abgen-host hook --host claude --event stop`, write Claude's Stop payload,
//!   read the native JSON; a warm runtime served from this process answers a small document;
//! - `node -e 0`: Node starting and doing nothing;
//! - `node hook`: `node bench/hook/minimal-hook.mjs`, a minimal stdin → JSON hook.
//!
//! Every round checks each contender's output, so a fast wrong answer never counts. Prints a
//! Markdown report (medians and minimums, the ratio to `node -e 0`, the binary's size).
//!
//! Usage: `hook-bench --abgen-host target/release/abgen-host [--rounds 101]`.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use abgen_runtime::document::{Document, Node, RenderEvent, RenderEventKind};
use abgen_runtime::warm::{RenderSource, SocketPath, WarmRequest, WarmServer};
use serde_json::Value;

const EXPECTED: &str = r#"{"decision":"block","reason":"Shelve the new books first (Stop)."}"#;

/// Answers every request with one deny: the small document of the benchmark.
struct SmallDocument;

impl RenderSource for SmallDocument {
    fn render(&self, _: &WarmRequest, _: Instant, emit: &mut dyn FnMut(&RenderEvent) -> bool) {
        let document = Document::new(
            Node::Result {
                children: vec![Node::Deny {
                    reason: "Shelve the new books first (Stop).".into(),
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

struct Options {
    abgen_host: PathBuf,
    rounds: usize,
}

fn options() -> Result<Options, String> {
    let mut abgen_host = None;
    let mut rounds = 101;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--abgen-host" => abgen_host = Some(PathBuf::from(value()?)),
            "--rounds" => rounds = value()?.parse().map_err(|_| "--rounds takes a number")?,
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(Options {
        abgen_host: abgen_host.ok_or("--abgen-host PATH is required")?,
        rounds,
    })
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// An artifact holding the curator's manifest; returns its digest.
fn artifact(root: &Path) -> Result<String, String> {
    let text = std::fs::read_to_string(repo().join("fixtures/manifests/curator.json"))
        .map_err(|error| error.to_string())?;
    let manifest: Value = serde_json::from_str(&text).map_err(|error| error.to_string())?;
    std::fs::write(root.join("abgen.manifest.json"), text).map_err(|error| error.to_string())?;
    Ok(manifest["digest"].as_str().unwrap_or_default().to_owned())
}

/// One contender: a command, its stdin, and what its stdout must be.
struct Contender {
    name: &'static str,
    command: Command,
    stdin: Vec<u8>,
    expected: Option<&'static str>,
    times: Vec<Duration>,
}

impl Contender {
    fn run(&mut self) -> Result<(), String> {
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
        let stdout = String::from_utf8_lossy(&output.stdout);
        if !output.status.success() || self.expected.is_some_and(|e| stdout.trim_end() != e) {
            return Err(format!(
                "{} answered {:?} (stderr {:?})",
                self.name,
                stdout,
                String::from_utf8_lossy(&output.stderr)
            ));
        }
        Ok(())
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
    let work = tempfile::tempdir().map_err(|error| error.to_string())?;
    let root = work.path().join("artifact");
    let runtime = work.path().join("runtime");
    std::fs::create_dir_all(&root).map_err(|error| error.to_string())?;
    std::fs::create_dir_all(&runtime).map_err(|error| error.to_string())?;
    let digest = artifact(&root)?;
    let path = SocketPath::in_directory(&runtime.join("abgen"), &root, &digest)
        .map_err(|error| error.to_string())?;
    let _server = WarmServer::bind(path, &digest, Arc::new(SmallDocument))
        .map_err(|error| error.to_string())?;
    let payload = std::fs::read(repo().join("fixtures/hosts/claude/Stop.json"))
        .map_err(|error| error.to_string())?;

    let mut abgen = Command::new(&options.abgen_host);
    abgen
        .args(["hook", "--host", "claude", "--event", "stop"])
        .env("ABGEN_ARTIFACT", &root)
        .env("XDG_RUNTIME_DIR", &runtime);
    let mut node_empty = Command::new("node");
    node_empty.args(["-e", "0"]);
    let mut node_hook = Command::new("node");
    node_hook.arg(repo().join("bench/hook/minimal-hook.mjs"));
    let mut contenders = [
        Contender {
            name: "abgen",
            command: abgen,
            stdin: payload.clone(),
            expected: Some(EXPECTED),
            times: Vec::new(),
        },
        Contender {
            name: "node -e 0",
            command: node_empty,
            stdin: Vec::new(),
            expected: None,
            times: Vec::new(),
        },
        Contender {
            name: "node hook",
            command: node_hook,
            stdin: payload,
            expected: Some(EXPECTED),
            times: Vec::new(),
        },
    ];
    // One warm-up round checks every contender and fills the page cache.
    for contender in &mut contenders {
        contender.run()?;
        contender.times.clear();
    }
    for round in 0..options.rounds {
        for offset in 0..contenders.len() {
            contenders[(round + offset) % contenders.len()].run()?;
        }
    }
    let node = contenders[1].median();
    let mut report =
        "| contender | median | min | `node -e 0` ÷ contender (median) |\n|---|---|---|---|\n"
            .to_owned();
    for contender in &contenders {
        report.push_str(&format!(
            "| {} | {} | {} | {:.1}× |\n",
            contender.name,
            ms(contender.median()),
            ms(contender.min()),
            node.as_secs_f64() / contender.median().as_secs_f64()
        ));
    }
    let size = std::fs::metadata(&options.abgen_host)
        .map(|metadata| metadata.len())
        .unwrap_or(0);
    report.push_str(&format!(
        "\n{} rounds; `abgen-host` binary: {} bytes ({:.1} MiB).\n",
        options.rounds,
        size,
        size as f64 / (1024.0 * 1024.0)
    ));
    Ok(report)
}
