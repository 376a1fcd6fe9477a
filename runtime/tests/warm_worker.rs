//! The warm runtime on a real render worker (React Flight through the test artifact's bundled
//! worker): `abgen-host hook` gets its answer from the warm socket, not from a standalone worker
//! (nothing on stderr), the first delivery starts the worker and later ones reuse it.

#[path = "hook_fixture/support.rs"]
mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use abgen_runtime::document::DocumentLimits;
use abgen_runtime::kernel::{Kernel, KernelConfig};
use abgen_runtime::manifest::REACT_VERSION;
use abgen_runtime::warm::{SocketPath, WarmServer};
use abgen_runtime::worker::{WORKER_PROTOCOL, WorkerConfig, WorkerIdentity, locate_node};
use serde_json::{Value, json};
use support::{abgen_host, build_artifact, repo, transcript};

#[expect(
    clippy::print_stderr,
    reason = "reports the measured times; shown with --nocapture"
)]
fn report(line: &str) {
    eprintln!("{line}");
}

#[test]
fn hooks_render_on_the_warm_worker() {
    let artifact = build_artifact("warm-worker-artifact");
    let runtime = tempfile::tempdir().unwrap();
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(artifact.join("abgen.manifest.json")).unwrap())
            .unwrap();
    let digest = manifest["digest"].as_str().unwrap();
    let source = Kernel::start(KernelConfig::new(
        WorkerConfig {
            node: locate_node().unwrap(),
            entry: artifact.join("runtime/worker.mjs"),
            expected: WorkerIdentity {
                protocol: WORKER_PROTOCOL,
                react: REACT_VERSION.to_owned(),
                artifact: digest.to_owned(),
            },
            hello_timeout: Duration::from_secs(20),
            server: None,
        },
        DocumentLimits::default(),
    ));
    let path = SocketPath::in_directory(&runtime.path().join("abgen"), &artifact, digest).unwrap();
    let _server = WarmServer::bind(path, digest, Arc::new(source)).unwrap();

    let fixture: Value = serde_json::from_slice(
        &std::fs::read(repo().join("fixtures/hosts/claude/PreToolUse.json")).unwrap(),
    )
    .unwrap();
    let mut payload = fixture.clone();
    payload["tool_input"] = json!({"command": "rm -rf build/"});
    let mut times = Vec::new();
    for round in 0..3 {
        let started = Instant::now();
        let output = abgen_host(
            &["hook", "--host", "claude", "--event", "tool/before"],
            &[
                ("ABGEN_ARTIFACT", artifact.as_path()),
                ("XDG_RUNTIME_DIR", runtime.path()),
            ],
            payload.to_string().as_bytes(),
        );
        times.push(started.elapsed());
        let text = transcript(&output, &artifact);
        assert!(
            text.contains(r#""permissionDecision":"deny""#),
            "round {round}: {text}"
        );
        assert!(
            text.ends_with("----- stderr -----\n"),
            "round {round}: {text}"
        );
    }
    report(&format!(
        "warm tool/before: first (starts the worker) {:?}, then {:?} and {:?}",
        times[0], times[1], times[2]
    ));
    // A warm render does not pay for Node's start again.
    assert!(times[2] < times[0], "{times:?}");
}
