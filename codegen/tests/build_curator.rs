//! Builds the example plugin (`examples/curator`) for its config's targets (Claude, Codex and
//! Cursor) and compares its manifest with the
//! golden `fixtures/manifests/curator.json`, digests and file hashes redacted (the bundled worker
//! and the runtime binary change with every runtime change; their presence and modes do not).
//! Set `ABGEN_BLESS=1` to rewrite the golden after reviewing the difference.

use std::path::{Path, PathBuf};

use abgen::emit::{BuildOptions, build_project};
use serde_json::Value;

mod support;

use support::repo;

/// A stand-in runtime binary: these tests look at the artifact, not at the runtime.
pub fn stub_host(dir: &Path) -> PathBuf {
    let path = dir.join("abgen-host");
    std::fs::write(&path, "#!/bin/sh\necho 'abgen-host stand-in' >&2\nexit 2\n").unwrap();
    path
}

fn redacted(mut manifest: Value) -> Value {
    manifest["digest"] = Value::from("<sha256>");
    for file in manifest["files"].as_array_mut().unwrap() {
        file["sha256"] = Value::from("<sha256>");
    }
    manifest
}

#[test]
fn curator_manifest_matches_the_golden() {
    let temp = tempfile::tempdir().unwrap();
    let out = temp.path().join("artifact");
    let built = build_project(&BuildOptions {
        root: support::curator_copy(temp.path()),
        targets: None,
        out: Some(out.clone()),
        host_binary: Some(stub_host(temp.path())),
        platforms: None,
        node_modules: None,
        worker: Default::default(),
    })
    .unwrap_or_else(|failure| panic!("{failure}: {failure:?}"));
    let hosts: Vec<&str> = built
        .emitted
        .artifact
        .manifest
        .hooks
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(hosts, ["claude", "codex", "cursor"]);
    let fresh = std::fs::read_to_string(out.join("abgen.manifest.json")).unwrap();
    assert_worker_says_hello(&out, &built.emitted.artifact.manifest.digest);
    assert_eq!(fresh, built.emitted.artifact.manifest_text.to_string());
    let golden_path = repo().join("fixtures/manifests/curator.json");
    if std::env::var_os("ABGEN_BLESS").is_some() {
        std::fs::create_dir_all(golden_path.parent().unwrap()).unwrap();
        std::fs::write(&golden_path, &fresh).unwrap();
    }
    let golden =
        std::fs::read_to_string(&golden_path).expect("fixtures/manifests/curator.json exists");
    let parse = |text: &str| redacted(serde_json::from_str(text).unwrap());
    assert_eq!(
        serde_json::to_string_pretty(&parse(&fresh)).unwrap(),
        serde_json::to_string_pretty(&parse(&golden)).unwrap(),
        "the curator manifest changed; review it and rerun with ABGEN_BLESS=1"
    );
}

/// Starts the bundled worker as the runtime will (`node --conditions=react-server`, frames on
/// fds 3 and 4) and reads its first frame: the bundle loads, and it names this artifact.
fn assert_worker_says_hello(artifact: &Path, digest: &str) {
    const DRIVER: &str = r#"
        import { spawn } from 'node:child_process';
        const worker = spawn(process.execPath, ['--conditions=react-server', process.argv.at(-1)], {
          stdio: ['ignore', 'inherit', 'inherit', 'pipe', 'pipe'],
        });
        let buffered = Buffer.alloc(0);
        const timer = setTimeout(() => { console.error('no hello within 10 s'); process.exit(1); }, 10000);
        worker.stdio[4].on('data', (chunk) => {
          buffered = Buffer.concat([buffered, chunk]);
          if (buffered.length < 4) return;
          const length = buffered.readUInt32LE(0);
          if (buffered.length < 4 + length) return;
          clearTimeout(timer);
          // A frame body is a 4-byte header length, the JSON header, then the payload.
          const headerLength = buffered.readUInt32LE(4);
          process.stdout.write(buffered.subarray(8, 8 + headerLength));
          worker.stdio[3].end();
          worker.kill();
        });
    "#;
    let output = std::process::Command::new("node")
        .args(["--input-type=module", "--eval", DRIVER, "--"])
        .arg(artifact.join("runtime/worker.mjs"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the worker did not start: {stderr}"
    );
    let frame = String::from_utf8_lossy(&output.stdout);
    let hello: Value =
        serde_json::from_str(&frame).unwrap_or_else(|_| panic!("not a hello frame: {frame}"));
    assert_eq!(hello["type"], "hello", "{hello}");
    assert_eq!(
        hello["protocol"],
        abgen_runtime::worker::WORKER_PROTOCOL,
        "{hello}"
    );
    assert_eq!(hello["react"], "19.3.1", "{hello}");
    assert_eq!(hello["artifact"], digest, "{hello}");
}
