//! Builds the test artifacts of `hook_render.rs`, `render_cli.rs`, `warm_worker.rs` and
//! `hook_failure.rs`: one of this folder's entries bundled into `runtime/worker.mjs` (with the
//! repository's esbuild and React), beside a hand-written manifest whose digest the entry names.
//! Needs the npm workspace installed (`npm ci`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::json;

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Writes the artifact into a fresh folder named `name` under cargo's test scratch directory.
pub fn build_artifact(name: &str) -> PathBuf {
    build_artifact_from(name, "entry.tsx", &manifest())
}

/// Writes an artifact of this folder's worker entry `entry` and `manifest` into a fresh folder
/// named `name` under cargo's test scratch directory.
pub fn build_artifact_from(name: &str, entry: &str, manifest: &serde_json::Value) -> PathBuf {
    let source =
        std::fs::read_to_string(repo().join("runtime/tests/hook_fixture").join(entry)).unwrap();
    build_artifact_of(name, &source, manifest)
}

/// Writes an artifact of the worker entry `source` (resolved from this folder) and `manifest`
/// into a fresh folder named `name` under cargo's test scratch directory.
pub fn build_artifact_of(name: &str, source: &str, manifest: &serde_json::Value) -> PathBuf {
    let root = repo();
    assert!(
        root.join("node_modules/react-server-dom-webpack").is_dir(),
        "node_modules is missing: run `npm ci` at the repository root before `cargo test`"
    );
    let artifact = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&artifact);
    std::fs::create_dir_all(artifact.join("runtime")).unwrap();
    let bundle = format!(
        "import {{ bundleFlightEntry }} from {:?}; \
         await bundleFlightEntry({{ contents: process.argv[1], resolveDir: process.argv[2], outfile: process.argv[3] }});",
        root.join("packages/runtime/scripts/bundle.mjs")
            .display()
            .to_string()
    );
    let status = Command::new("node")
        .args(["--input-type=module", "-e", &bundle, source])
        .arg(root.join("runtime/tests/hook_fixture"))
        .arg(artifact.join("runtime/worker.mjs"))
        .status()
        .expect("running the bundler (is Node on PATH?)");
    assert!(status.success(), "bundling the test worker failed");
    std::fs::write(artifact.join("abgen.manifest.json"), manifest.to_string()).unwrap();
    artifact
}

fn binding(
    event: &str,
    native: &str,
    decoder: &str,
    encoder: &str,
    deadline_ms: u64,
) -> serde_json::Value {
    json!({
        "nativeEvent": native, "routes": [format!("event:{event}")], "event": event,
        "deadlineMs": deadline_ms, "timeoutSec": deadline_ms.div_ceil(1000) + 1,
        "decoder": decoder, "encoder": encoder, "fallback": "standalone"
    })
}

pub fn event_route(event: &str, config: serde_json::Value) -> serde_json::Value {
    json!({
        "id": format!("event:{event}"), "kind": "event", "event": event,
        "source": format!("src/events/{event}.tsx"), "config": config, "schemas": {}
    })
}

/// The manifest of the test artifacts (digest `hook-test-digest`).
pub fn manifest() -> serde_json::Value {
    json!({
        "manifestVersion": abgen_runtime::manifest::MANIFEST_VERSION,
        "application": {"name": "hook-test", "version": "0.0.0"},
        "digest": "hook-test-digest",
        "react": "19.3.1",
        "workerProtocol": abgen_runtime::worker::WORKER_PROTOCOL,
        "routes": [
            event_route("prompt/submit", json!({})),
            event_route("session/start", json!({})),
            event_route("stop", json!({})),
            event_route("tool/before", json!({"tools": ["shell"]})),
            {"id": "resource:demo/notes", "kind": "resource", "source": "src/mcp/demo/resources/notes.tsx",
             "server": "demo", "wireName": "notes", "config": {"uri": "demo://notes"}, "schemas": {}},
            {"id": "tool:demo/echo", "kind": "tool", "source": "src/mcp/demo/tools/echo.tsx",
             "server": "demo", "wireName": "echo", "config": {"description": "Echoes a text."},
             "schemas": {"input": {"source": "runtime"}}}
        ],
        "servers": [{"id": "demo", "mode": "generated", "routes": ["resource:demo/notes", "tool:demo/echo"]}],
        "cli": {"bin": "hook-test", "commands": []},
        "hooks": {"claude": [
            binding("prompt/submit", "UserPromptSubmit", "claude.prompt", "claude.prompt", 1000),
            binding("session/start", "SessionStart", "claude.session", "claude.context", 10_000),
            binding("stop", "Stop", "claude.stop", "claude.stop", 10_000),
            binding("tool/before", "PreToolUse", "claude.tool", "claude.pre-tool", 10_000)
        ]},
        "limits": {"render": {"maxElapsedMs": 20_000, "maxBytes": 8_388_608}, "hookInputMaxBytes": 1_048_576},
        "files": []
    })
}

/// Runs the built `abgen-host` with `args`, `stdin` on its standard input, with no warm runtime
/// (its runtime directory does not exist, unless `env` names one), so hooks take their fallbacks.
pub fn abgen_host(args: &[&str], env: &[(&str, &Path)], stdin: &[u8]) -> Output {
    use std::io::Write as _;
    let mut child = Command::new(env!("CARGO_BIN_EXE_abgen-host"))
        .args(args)
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("CURSOR_PROJECT_DIR")
        .env("XDG_RUNTIME_DIR", "/nonexistent/abgen-tests")
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let bytes = stdin.to_vec();
    // A hook that refuses an oversized payload answers before the host has written it all: a
    // broken pipe here is its answer, not a failure.
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&bytes);
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    output
}

/// Exit code, stdout and stderr together, as a user reads them; `[ARTIFACT]` for the folder.
pub fn transcript(output: &Output, artifact: &Path) -> String {
    let clean = |bytes: &[u8]| {
        String::from_utf8_lossy(bytes).replace(&artifact.display().to_string(), "[ARTIFACT]")
    };
    format!(
        "exit code: {}\n----- stdout -----\n{}----- stderr -----\n{}",
        output
            .status
            .code()
            .map_or("signal".into(), |code| code.to_string()),
        clean(&output.stdout),
        clean(&output.stderr)
    )
}
