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
    }
}
