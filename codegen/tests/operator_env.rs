//! The operator environment layer of a built artifact: the operator's `.env` and `.env.local` in
//! the plugin root are applied by a handwritten entry (`mcp/<id>.mjs`) before its server module
//! evaluates, and by the render worker (generated servers, hooks) before any route module does,
//! with the documented precedence (a value the host set wins, then `.env.local`, then `.env`,
//! then the declared `env` default, whether the host passed it through or nobody did: the worker
//! of a generated server knows that server's defaults from its entry, where the build writes the
//! manifest's `servers` env), read from an expanded
//! `AGENT_BUNDLE_PLUGIN_ROOT` when the host sets one; and the project's own `.env` never enters
//! the artifact.

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use abgen::emit::{BuildOptions, BuildReturn, build_project};
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

/// Builds `project` into `artifact` for its configured targets.
fn build(project: std::path::PathBuf, artifact: &Path) -> BuildReturn {
    build_project(&BuildOptions {
        root: project,
        targets: None,
        out: Some(artifact.to_owned()),
        host_binary: Some(support::host_binary()),
        platforms: None,
        node_modules: None,
        worker: Default::default(),
    })
    .unwrap_or_else(|failure| panic!("{failure}: {failure:?}"))
}

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
    let built = build(project, &artifact);
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

const TOOL: &str = "import { Agent } from '@agent-bundle/runtime';
import { defineTool } from 'agent-bundle/routes';
import { z } from 'zod';

// Read at the module's top level: the worker applies the operator layer before importing it.
const greeting = process.env.GREETING ?? 'unset';

export default defineTool(
  { description: 'Greet.', inputSchema: z.object({}), resultSchema: z.undefined() },
  async () => <Agent.Markdown>{`greeting=${greeting}`}</Agent.Markdown>,
);
";

/// Renders the tool through `abgen-host render` from outside the project; returns stdout.
fn render(artifact: &Path, env: &[(&str, &str)]) -> String {
    let mut command = Command::new(artifact.join("bin/abgen-host"));
    command
        .args(["render", "--artifact"])
        .arg(artifact)
        .args([
            "--route",
            "tool:hello/greet",
            "--input",
            "{}",
            "--format",
            "markdown",
        ])
        .current_dir(artifact)
        .env_remove("NODE_PATH")
        .env_remove("GREETING")
        .env_remove("AGENT_BUNDLE_PLUGIN_ROOT");
    for (key, value) in env {
        command.env(key, value);
    }
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn route_workers_apply_the_operator_layer_before_route_modules_evaluate() {
    let temp = tempfile::tempdir().unwrap();
    let project = temp.path().join("project");
    write(
        &project,
        "agent-bundle.config.ts",
        "export default { plugin: { name: 'hello' }, targets: ['claude'] };\n",
    );
    write(&project, "src/mcp/hello/tools/greet.tsx", TOOL);
    let artifact = temp.path().join("artifact");
    build(project, &artifact);
    assert!(render(&artifact, &[]).contains("greeting=unset"));
    write(&artifact, ".env", "GREETING=from-file\n");
    assert!(render(&artifact, &[]).contains("greeting=from-file"));
    // A value the host's environment sets wins over the file.
    assert!(render(&artifact, &[("GREETING", "from-host")]).contains("greeting=from-host"));
}

/// The `notes` server's tool, reading at its module's top level the variable its server declares.
const DECLARED_TOOL: &str = "import { Agent } from '@agent-bundle/runtime';
import { defineTool } from 'agent-bundle/routes';
import { z } from 'zod';

const greeting = process.env.GREETING ?? 'unset';

export default defineTool(
  {
    description: 'Greet.',
    inputSchema: z.object({}),
    resultSchema: z.undefined(),
    annotations: { readOnlyHint: true },
  },
  async () => <Agent.Markdown>{`greeting=${greeting}`}</Agent.Markdown>,
);
";

/// Runs `program args` in a clean environment plus `env`, bounded; returns stdout.
fn run_clean(program: &Path, args: &[&str], env: &[(&str, &str)]) -> String {
    let mut command = Command::new(program);
    command
        .args(args)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .stdin(Stdio::null());
    for (key, value) in env {
        command.env(key, value);
    }
    let output = support::host_turn::run_bounded(&mut command, Duration::from_secs(60));
    assert!(output.status.success(), "{command:?}: {output:?}");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A generated server's declared `env`: the host passes its defaults to `abgen-host mcp`, and a
/// variable still holding its default yields to the operator's `.env`, while one the host set to
/// anything else is kept; where no host passed the defaults (the plugin's own command line) they
/// apply under the files.
#[test]
fn a_generated_servers_declared_defaults_yield_to_the_operator_files() {
    let temp = tempfile::tempdir().unwrap();
    let project = temp.path().join("project");
    write(
        &project,
        "agent-bundle.config.ts",
        "export default {
  plugin: { name: 'hello' },
  targets: ['claude'],
  mcp: { servers: { hello: { env: { GREETING: 'declared' } } } },
  routes: { mcpCommands: true },
};
",
    );
    write(&project, "src/mcp/hello/tools/greet.tsx", DECLARED_TOOL);
    let artifact = temp.path().join("artifact");
    build(project, &artifact);
    let mcp_call = |env: &[(&str, &str)]| {
        let artifact = artifact.to_str().unwrap();
        run_clean(
            Path::new(env!("CARGO_BIN_EXE_abgen")),
            &[
                "mcp",
                "invoke",
                "--artifact",
                artifact,
                "--server",
                "hello",
                "--tool",
                "greet",
            ],
            env,
        )
    };
    let command =
        |env: &[(&str, &str)]| run_clean(&artifact.join("bin/hello"), &["hello", "greet"], env);

    // No operator file: what the host passed, or the declaration where nobody passed it.
    assert!(mcp_call(&[("GREETING", "declared")]).contains("greeting=declared"));
    assert!(command(&[]).contains("greeting=declared"));
    write(&artifact, ".env", "GREETING=from-file\n");
    // The default the host passed through yields to the file; so does the unpassed one.
    assert!(mcp_call(&[("GREETING", "declared")]).contains("greeting=from-file"));
    assert!(command(&[]).contains("greeting=from-file"));
    // A value the host set otherwise wins over the file.
    assert!(mcp_call(&[("GREETING", "from-host")]).contains("greeting=from-host"));
    assert!(command(&[("GREETING", "from-host")]).contains("greeting=from-host"));
}
