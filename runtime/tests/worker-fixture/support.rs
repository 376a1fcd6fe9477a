//! The fixture worker (`runtime/tests/worker-fixture/entry.tsx`) bundled with the project's
//! esbuild, shared by the tests that render through a real Node worker. Needs the npm workspace
//! installed (`npm ci` at the repository root) and Node 20+.

use std::path::{Path, PathBuf};
use std::time::Duration;

use abgen_runtime::worker::{WORKER_PROTOCOL, WorkerConfig, WorkerIdentity, locate_node};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Bundles the fixture worker into `directory` and returns its config, expecting `artifact` in
/// its hello.
pub fn bundled_worker(directory: &Path, artifact: &str) -> WorkerConfig {
    let root = repo_root();
    assert!(
        root.join("node_modules/react-server-dom-webpack").is_dir()
            && root.join("node_modules/esbuild").is_dir(),
        "node_modules is missing: run `npm ci` at the repository root before `cargo test`"
    );
    let node = locate_node().expect("Node 20 or newer is needed for this test");
    let entry = directory.join("worker.mjs");
    let status = std::process::Command::new(&node.path)
        .arg(root.join("packages/runtime/scripts/bundle-worker.mjs"))
        .arg(root.join("runtime/tests/worker-fixture/entry.tsx"))
        .arg(&entry)
        .status()
        .expect("running the bundle script");
    assert!(status.success(), "bundling the test worker failed");
    WorkerConfig {
        node,
        entry,
        expected: WorkerIdentity {
            protocol: WORKER_PROTOCOL,
            react: "19.3.1".into(),
            artifact: artifact.into(),
        },
        hello_timeout: Duration::from_secs(20),
        server: None,
    }
}

/// What `abortable.tsx` wrote to `marker` once its render was aborted: its two lines, sorted, or
/// fewer if `within` passed first. The abort handlers run as the signal fires; the child's exit
/// takes a moment more to arrive.
pub fn aborted_route_report(marker: &Path, within: Duration) -> Vec<String> {
    let started = std::time::Instant::now();
    loop {
        let text = std::fs::read_to_string(marker).unwrap_or_default();
        if text.lines().count() >= 2 || started.elapsed() > within {
            let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
            lines.sort_unstable();
            return lines;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// [`aborted_route_report`] when the abort reached both the route's child and its fetch.
pub const ABORTED_ROUTE_REPORT: [&str; 2] = [
    "child exited by SIGTERM",
    "fetch ended: the render was aborted",
];
