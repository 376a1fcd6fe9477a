//! The operator environment layer of a built handwritten entry (`mcp/<id>.mjs`): the operator's
//! `.env` and `.env.local` in the plugin root are applied before the server module evaluates,
//! with the documented precedence (a value the host set wins, then `.env.local`, then `.env`,
//! then the declared `env` default the host passed through), read from an expanded
//! `AGENT_BUNDLE_PLUGIN_ROOT` when the host sets one; and the project's own `.env` never enters
//! the artifact.

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use abgen::emit::{BuildOptions, build_project};
use serde_json::{Value, json};

mod support;

const CONFIG: &str = "export default {
  plugin: { name: 'notes' },
  targets: ['claude'],
  mcp: { servers: { notes: { env: { DEFAULTED: 'manifest', HOST_SET: 'manifest' } } } },
};
";

/// Logs what its top level sees (console output goes to stderr under the shell).
const ENTRY: &str = "const seen = {};
for (const key of ['DEFAULTED', 'HOST_SET', 'FROM_FILE', 'LOCAL', 'SECRET']) seen[key] = process.env[key] ?? null;
console.log('seen ' + JSON.stringify(seen));
export default () => ({ connect: async () => {} });
";

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Runs the built entry with `env` and no input; returns what its top level saw.
fn seen(entry: &Path, env: &[(&str, &str)]) -> Value {
    let mut command = Command::new("node");
    command
        .arg(entry)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (key, value) in env {
        command.env(key, value);
    }
    let child = command.spawn().expect("node runs");
    let pid = child.id();
    let (done, finished) = mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || {
        if finished.recv_timeout(Duration::from_secs(20)).is_err() {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
        }
    });
    let output = child.wait_with_output().unwrap();
    let _ = done.send(());
    let _ = watchdog.join();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(output.stdout.is_empty(), "stdout carries frames only");
    let line = stderr
        .lines()
        .find_map(|line| line.strip_prefix("seen "))
        .unwrap_or_else(|| panic!("the module did not run: {stderr}"));
    serde_json::from_str(line).unwrap()
}

#[test]
fn the_operator_layer_applies_before_the_module_with_the_documented_precedence() {
    let temp = tempfile::tempdir().unwrap();
    let project = temp.path().join("project");
    write(&project, "agent-bundle.config.ts", CONFIG);
    write(&project, "src/mcp/notes.ts", ENTRY);
    // The project's own `.env` is the developer's: abgen never ships it.
    write(&project, ".env", "SECRET=do-not-ship\n");
    let artifact = temp.path().join("artifact");
    let built = build_project(&BuildOptions {
        root: project,
        targets: None,
        out: Some(artifact.clone()),
        host_binary: Some(support::host_binary()),
        node_modules: None,
    })
    .unwrap_or_else(|failure| panic!("{failure}: {failure:?}"));
    for (path, file) in built.emitted.artifact.files.files() {
        let text = String::from_utf8_lossy(&file.contents);
        assert!(
            !text.contains("do-not-ship"),
            "{path} carries the project's .env"
        );
    }
    assert!(!artifact.join(".env").exists());

    // The operator of the installed plugin writes the layer into its root.
    write(
        &artifact,
        ".env",
        "DEFAULTED=file\nHOST_SET=file\nFROM_FILE=file\nLOCAL=file\n",
    );
    write(&artifact, ".env.local", "LOCAL=local\n");
    let entry = artifact.join("mcp/notes.mjs");
    // The host passes the declared default through for DEFAULTED and sets HOST_SET itself.
    let host = [("DEFAULTED", "manifest"), ("HOST_SET", "operator")];
    assert_eq!(
        seen(&entry, &host),
        json!({
            "DEFAULTED": "file",
            "HOST_SET": "operator",
            "FROM_FILE": "file",
            "LOCAL": "local",
            "SECRET": null
        })
    );

    // An expanded anchor names where the files are; an unexpanded one is ignored.
    let elsewhere = temp.path().join("installed");
    write(&elsewhere, ".env", "FROM_FILE=anchored\n");
    let anchored = seen(
        &entry,
        &[("AGENT_BUNDLE_PLUGIN_ROOT", elsewhere.to_str().unwrap())],
    );
    assert_eq!(anchored["FROM_FILE"], json!("anchored"));
    assert_eq!(anchored["LOCAL"], json!(null));
    let literal = seen(
        &entry,
        &[("AGENT_BUNDLE_PLUGIN_ROOT", "${CLAUDE_PLUGIN_ROOT}")],
    );
    assert_eq!(literal["FROM_FILE"], json!("file"));
}
