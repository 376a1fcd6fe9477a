//! `abgen dev` and `abgen build --watch` as a user runs them: a copy of a fixture project is
//! built, then edited while the loop runs. An edit gives a new artifact; a broken route prints
//! its diagnostic once and keeps the last good artifact; the fix rebuilds; a rebuild redoes
//! only the bundles the change reaches (seen through a Node wrapper that logs each bundling
//! request, also those it hands the served bundler on its stdin); the loop ends on the end of
//! its standard input and on SIGTERM, and however it ends, its served bundler ends too. Every
//! wait is bounded.

mod support;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use support::{copy_project, repo};

/// How long any one build may take here (esbuild of a small project, on a loaded machine).
const BUILD_BOUND: Duration = Duration::from_secs(60);
/// How long the loop may take to end once told to.
const EXIT_BOUND: Duration = Duration::from_secs(5);

const TOOL: &str = "src/mcp/status/tools/show-status.ts";
const VIEW: &str = "src/mcp/status/apps/StatusPanel.tsx";

/// One line of the running command's output.
#[derive(Debug)]
enum Line {
    Out(String),
    Err(String),
}

struct Dev {
    temp: tempfile::TempDir,
    project: PathBuf,
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Line>,
    /// Every line seen so far, for failure messages.
    seen: Vec<String>,
}

impl Dev {
    /// Copies `valid-app-seed-layout` and starts `abgen <args> --root <copy> --out <temp>/out`.
    fn start(args: &[&str]) -> Self {
        let temp = tempfile::tempdir().unwrap();
        let project = temp.path().join("project");
        copy_project(
            &repo().join("fixtures/projects/valid-app-seed-layout"),
            &project,
        );
        let host = temp.path().join("abgen-host");
        std::fs::write(&host, "#!/bin/sh\n# a stand-in runtime\n").unwrap();
        // Node, through a wrapper that logs the request of every bundling script it runs: the
        // last argument of a one-shot run, every line a served run reads.
        let node = temp.path().join("node");
        let real_node = which_node();
        let log = temp.path().join("node.log");
        std::fs::write(
            &node,
            format!(
                "#!/bin/sh\nfor last; do :; done\n\
                 if [ \"$last\" = '{{\"serve\":true}}' ]; then\n  tee -a '{log}' | '{node}' \"$@\"\n  exit\nfi\n\
                 printf '%s\\n' \"$last\" >> '{log}'\nexec '{node}' \"$@\"\n",
                log = log.display(),
                node = real_node.display()
            ),
        )
        .unwrap();
        make_executable(&node);
        let mut child = Command::new(env!("CARGO_BIN_EXE_abgen"))
            .args(args)
            .arg("--root")
            .arg(&project)
            .arg("--out")
            .arg(temp.path().join("out"))
            .env("ABGEN_HOST", &host)
            .env("ABGEN_NODE", &node)
            .env("NO_COLOR", "1")
            .env_remove("ABGEN_WORKER_BUNDLE")
            .env_remove("ABGEN_FAILPOINT")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("abgen starts");
        let (sender, lines) = channel();
        let stdout = child.stdout.take().unwrap();
        let stderr = child.stderr.take().unwrap();
        let out_sender = sender.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = out_sender.send(Line::Out(line));
            }
        });
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = sender.send(Line::Err(line));
            }
        });
        let stdin = child.stdin.take();
        Self {
            temp,
            project,
            child,
            stdin,
            lines,
            seen: Vec::new(),
        }
    }

    fn out(&self) -> PathBuf {
        self.temp.path().join("out")
    }

    fn manifest(&self) -> String {
        std::fs::read_to_string(self.out().join("abgen.manifest.json")).unwrap()
    }

    fn write(&self, path: &str, text: &str) {
        std::fs::write(self.project.join(path), text).unwrap();
    }

    fn edit(&self, path: &str, from: &str, to: &str) {
        let text = std::fs::read_to_string(self.project.join(path)).unwrap();
        assert!(text.contains(from), "{path} holds {from:?}");
        self.write(path, &text.replace(from, to));
    }

    /// The bundling requests Node was given so far, and forgets them.
    fn take_node_log(&self) -> Vec<String> {
        let path = self.temp.path().join("node.log");
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        // Emptied, not removed: the served run's `tee` keeps the file open.
        if path.exists() {
            std::fs::write(&path, "").unwrap();
        }
        text.lines().map(str::to_owned).collect()
    }

    /// Waits for the next line `wanted` accepts, returning every line before it.
    fn wait_for(&mut self, what: &str, wanted: impl Fn(&Line) -> bool) -> Vec<String> {
        let deadline = Instant::now() + BUILD_BOUND;
        let mut before = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let text = match &line {
                        Line::Out(text) => format!("out: {text}"),
                        Line::Err(text) => format!("err: {text}"),
                    };
                    self.seen.push(text.clone());
                    if wanted(&line) {
                        return before;
                    }
                    before.push(text);
                }
                Err(_) => panic!("no {what} within {BUILD_BOUND:?}; output: {:#?}", self.seen),
            }
        }
    }

    fn wait_built(&mut self) -> Vec<String> {
        self.wait_for(
            "build",
            |line| matches!(line, Line::Out(text) if text.starts_with("built ")),
        )
    }

    fn wait_failed(&mut self) -> Vec<String> {
        self.wait_for(
            "failed build",
            |line| matches!(line, Line::Err(text) if text.starts_with("build failed")),
        )
    }

    /// Waits for the process to end, at most [`EXIT_BOUND`].
    fn wait_exit(&mut self) -> std::process::ExitStatus {
        let deadline = Instant::now() + EXIT_BOUND;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            if Instant::now() >= deadline {
                let _ = self.child.kill();
                panic!(
                    "abgen did not exit within {EXIT_BOUND:?}; output: {:#?}",
                    self.seen
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Dev {
    /// The process group of the served bundler `abgen dev` started: its child that leads a
    /// group of its own.
    fn served_group(&self) -> Option<u32> {
        let abgen = self.child.id();
        processes()
            .into_iter()
            .find_map(|(pid, parent, group)| (parent == abgen && group == pid).then_some(pid))
    }
}

/// Every process as (pid, parent pid, process group), from `/proc`.
fn processes() -> Vec<(u32, u32, u32)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // `pid (comm) state ppid pgrp …`; the command name may hold anything but the last `)`.
        let Some((head, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let pid = head
            .split_whitespace()
            .next()
            .and_then(|pid| pid.parse().ok());
        if let (Some(pid), Some(state), Some(parent), Some(group)) =
            (pid, fields.first(), fields.get(1), fields.get(2))
            && *state != "Z"
            && let (Ok(parent), Ok(group)) = (parent.parse(), group.parse())
        {
            found.push((pid, parent, group));
        }
    }
    found
}

/// Waits, at most [`EXIT_BOUND`], until no live process is in `group`.
fn wait_group_gone(group: u32, how: &str) {
    let deadline = Instant::now() + EXIT_BOUND;
    while processes()
        .iter()
        .any(|(_, _, in_group)| *in_group == group)
    {
        assert!(
            Instant::now() < deadline,
            "the served bundler outlived abgen ended by {how}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

impl Drop for Dev {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn which_node() -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join("node"))
        .find(|node| node.is_file())
        .expect("node on PATH")
}

fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn is_worker(request: &str) -> bool {
    request.contains("\"kind\":\"worker\"")
}

fn is_app(request: &str) -> bool {
    request.contains("\"mount\":")
}

#[test]
fn dev_rebuilds_on_edit_keeps_the_last_good_artifact_and_stops_at_the_end_of_stdin() {
    let mut dev = Dev::start(&["dev"]);
    dev.wait_built();
    assert!(dev.manifest().contains("Show the status of every service."));
    let first = dev.take_node_log();
    assert!(first.iter().any(|r| is_worker(r)) && first.iter().any(|r| is_app(r)));

    // An edit of the tool: a new artifact, from a new worker bundle and the App kept as it was.
    dev.edit(
        TOOL,
        "Show the status of every service.",
        "Show each service status.",
    );
    dev.wait_built();
    assert!(dev.manifest().contains("Show each service status."));
    let rebuilt = dev.take_node_log();
    assert_eq!(
        rebuilt.iter().filter(|r| is_worker(r)).count(),
        1,
        "{rebuilt:#?}"
    );
    assert!(
        !rebuilt.iter().any(|r| is_app(r)),
        "the App is not recompiled: {rebuilt:#?}"
    );

    // A broken tool: its diagnostic, once; the artifact stays the last good one.
    let good = dev.manifest();
    dev.write(
        TOOL,
        "export default defineTool({\n  description: 'Broken\n",
    );
    let before = dev.wait_failed();
    assert!(
        before.iter().any(|line| line.contains("error[AB5300]"))
            && before
                .iter()
                .any(|line| line.contains(&format!("{TOOL}:2:16"))),
        "the diagnostic names the code and the file: {before:#?}"
    );
    assert!(dev.out().join("abgen.manifest.json").is_file());
    assert_eq!(dev.manifest(), good, "the last good artifact is kept");
    // The same break again: the build fails again, and the unchanged diagnostic is not repeated.
    dev.write(
        TOOL,
        "export default defineTool({\n  description: 'Broken\n\n",
    );
    let before = dev.wait_failed();
    assert!(
        !before.iter().any(|line| line.contains("AB5300")),
        "an unchanged diagnostic is not printed again: {before:#?}"
    );
    assert_eq!(dev.manifest(), good);

    // The fix: rebuilt, and the diagnostics cleared.
    dev.write(
        TOOL,
        &std::fs::read_to_string(
            repo()
                .join("fixtures/projects/valid-app-seed-layout")
                .join(TOOL),
        )
        .unwrap()
        .replace("Show the status of every service.", "Fixed status."),
    );
    let before = dev.wait_built();
    // Written to stderr before the build line is written to stdout; read from two pipes, the
    // two may arrive in either order, and the build's App lines follow its build line.
    if !before.iter().any(|line| line == "err: no diagnostics") {
        let between = dev.wait_for(
            "the cleared diagnostics",
            |line| matches!(line, Line::Err(text) if text == "no diagnostics"),
        );
        assert!(
            between.iter().all(|line| line.starts_with("out: MCP App ")),
            "{before:#?} {between:#?}"
        );
    }
    assert!(dev.manifest().contains("Fixed status."));

    // An edit of the App's view recompiles the App alone; `abgen dev` keeps it readable.
    dev.take_node_log();
    dev.edit(VIEW, "All services ready.", "Every service is ready.");
    dev.wait_built();
    let html = std::fs::read_to_string(dev.out().join("mcp-apps/status.html")).unwrap();
    assert!(html.contains("Every service is ready."));
    assert!(
        html.contains("function StatusPanel()"),
        "a development document"
    );
    let rebuilt = dev.take_node_log();
    assert_eq!(
        rebuilt.iter().filter(|r| is_app(r)).count(),
        1,
        "{rebuilt:#?}"
    );
    assert!(!rebuilt.iter().any(|r| is_worker(r)), "{rebuilt:#?}");

    drop(dev.stdin.take());
    let status = dev.wait_exit();
    assert!(status.success(), "{status:?}");
}

#[test]
fn build_watch_ships_production_documents_and_stops_on_sigterm() {
    let mut dev = Dev::start(&["build", "--watch"]);
    dev.wait_built();
    let html = std::fs::read_to_string(dev.out().join("mcp-apps/status.html")).unwrap();
    assert!(
        !html.contains("function StatusPanel()"),
        "a minified document"
    );
    dev.edit(TOOL, "Show the status of every service.", "Watched.");
    dev.wait_built();
    assert!(dev.manifest().contains("Watched."));
    let pid = rustix::process::Pid::from_child(&dev.child);
    rustix::process::kill_process(pid, rustix::process::Signal::TERM).unwrap();
    let status = dev.wait_exit();
    assert!(status.success(), "{status:?}");
}

#[test]
fn the_served_bundler_ends_with_abgen_dev_however_it_ends() {
    use rustix::process::{Pid, Signal, kill_process};
    for how in ["the end of stdin", "SIGTERM", "SIGKILL"] {
        let mut dev = Dev::start(&["dev"]);
        dev.wait_built();
        let group = dev.served_group().expect("abgen dev runs a served bundler");
        let pid = Pid::from_child(&dev.child);
        match how {
            "the end of stdin" => drop(dev.stdin.take()),
            "SIGTERM" => kill_process(pid, Signal::TERM).unwrap(),
            _ => kill_process(pid, Signal::KILL).unwrap(),
        }
        let status = dev.wait_exit();
        assert_eq!(status.success(), how != "SIGKILL", "{how}: {status:?}");
        wait_group_gone(group, how);
    }
}
