//! `abgen mcp list|invoke` ask a built artifact's own MCP server over stdio as a host would:
//! the curator is built for Claude with the real `abgen-host`, its tools are listed, one is
//! called, a call the server refuses exits 1, and a missing artifact says to build first.
//! `abgen mcp run` becomes a built server as its host starts it, with the project's `.env` set,
//! and exits with the server's code.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

mod support;

use support::{build_curator, build_fixture, transcript};

fn abgen_mcp(args: &[&str], artifact: &Path, runtime: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_abgen"))
        .arg("mcp")
        .args(args)
        .arg("--artifact")
        .arg(artifact)
        .env("XDG_RUNTIME_DIR", runtime)
        .output()
        .unwrap()
}

#[test]
fn lists_and_invokes_the_curator_tools() {
    let temp = tempfile::tempdir().unwrap();
    let temp = temp.path().canonicalize().unwrap();
    let artifact = build_curator(&temp, &["claude"]);
    let runtime = tempfile::tempdir().unwrap();

    let listed = abgen_mcp(&["list", "--server", "library"], &artifact, runtime.path());
    let text = transcript(&listed);
    assert!(listed.status.success(), "{text}");
    assert!(
        text.contains("search_books  Search the library catalog"),
        "{text}"
    );
    assert!(text.contains("tool(s) from library"), "{text}");

    let json = abgen_mcp(
        &[
            "list", "--server", "library", "--target", "claude", "--json",
        ],
        &artifact,
        runtime.path(),
    );
    assert!(json.status.success(), "{}", transcript(&json));
    let tools: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert!(
        tools["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|tool| tool["name"] == "search_books" && tool["inputSchema"].is_object()),
        "{tools}"
    );

    let called = abgen_mcp(
        &[
            "invoke",
            "--server",
            "library",
            "--tool",
            "search_books",
            "--input",
            r#"{"query":"le guin"}"#,
        ],
        &artifact,
        runtime.path(),
    );
    let text = transcript(&called);
    assert!(called.status.success(), "{text}");
    assert!(
        text.contains("Le Guin") && text.contains("Invoked search_books on library"),
        "{text}"
    );

    let refused = abgen_mcp(
        &[
            "invoke",
            "--server",
            "library",
            "--tool",
            "search_books",
            "--input",
            "{}",
        ],
        &artifact,
        runtime.path(),
    );
    let text = transcript(&refused);
    assert_eq!(refused.status.code(), Some(1), "{text}");
    assert!(text.contains("Failed search_books on library"), "{text}");

    let not_json = abgen_mcp(
        &[
            "invoke",
            "--server",
            "library",
            "--tool",
            "search_books",
            "--input",
            "[1]",
        ],
        &artifact,
        runtime.path(),
    );
    assert_eq!(not_json.status.code(), Some(2), "{}", transcript(&not_json));

    let unknown = abgen_mcp(
        &["list", "--server", "library", "--target", "portable"],
        &artifact,
        runtime.path(),
    );
    assert_eq!(unknown.status.code(), Some(1));
    assert!(transcript(&unknown).contains("no host with an MCP client"));
}

#[test]
fn a_missing_artifact_says_to_build_first() {
    let temp = tempfile::tempdir().unwrap();
    let missing = abgen_mcp(
        &["list", "--server", "library"],
        &temp.path().join("artifact"),
        temp.path(),
    );
    assert_eq!(missing.status.code(), Some(1));
    assert!(transcript(&missing).contains("build the artifact first"));
}

/// `abgen mcp run --artifact ARTIFACT --server desk --target TARGET ARGS` with the client's lines
/// on stdin: what its one `tools/call` (id 2) answered, its exit code, and its stderr. The
/// exchange and the exit are bounded.
fn run_and_call(
    artifact: &Path,
    target: &str,
    args: &[&dyn AsRef<std::ffi::OsStr>],
    runtime: &Path,
) -> (serde_json::Value, Option<i32>, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_abgen"));
    command
        .args(["mcp", "run", "--artifact"])
        .arg(artifact)
        .args(["--server", "desk", "--target", target]);
    for arg in args {
        command.arg(arg);
    }
    let mut child = command
        .env("XDG_RUNTIME_DIR", runtime)
        .env_remove("GREETING")
        .env_remove("DESK_SECRET")
        .env_remove("AGENT_BUNDLE_PLUGIN_ROOT")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for line in [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"claude-code","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"environment","arguments":{}}}"#,
    ] {
        writeln!(stdin, "{line}").unwrap();
    }
    let (lines, answers) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = lines.send(line);
        }
    });
    let mut answer = serde_json::Value::Null;
    let started = Instant::now();
    while let Ok(line) = answers.recv_timeout(Duration::from_secs(60)) {
        let message: serde_json::Value = serde_json::from_str(&line).unwrap();
        if message["id"] == 2 {
            answer = message;
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no answer to the call"
        );
    }
    // A closed input ends a stdio server.
    drop(stdin);
    let waited = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if waited.elapsed() > Duration::from_secs(20) {
            child.kill().unwrap();
            panic!("the server did not exit after its input closed");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    (answer, status.code(), stderr)
}

#[test]
fn runs_a_built_server_with_the_projects_env_set() {
    let temp = tempfile::tempdir().unwrap();
    let temp = temp.path().canonicalize().unwrap();
    let artifact = build_fixture(&temp, "valid-mcp-run");
    let runtime = tempfile::tempdir().unwrap();
    let project = temp.join("project");
    std::fs::write(
        project.join(".env"),
        "GREETING=hello from .env\nDESK_SECRET=from .env\n",
    )
    .unwrap();
    std::fs::write(project.join(".env.local"), "DESK_SECRET=from .env.local\n").unwrap();

    // The project's files, over the config's declared default; the variable naming them is gone
    // before the route runs; the plugin root is the artifact.
    let (answer, code, stderr) =
        run_and_call(&artifact, "codex", &[&"--root", &project], runtime.path());
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        answer["result"]["structuredContent"],
        serde_json::json!({
            "greeting": "hello from .env",
            "secret": "from .env.local",
            "filesVariable": null,
            "pluginRoot": artifact.to_string_lossy(),
        }),
        "{answer}\n{stderr}"
    );

    // No files: the declared default; a plugin root of the caller's choosing.
    let elsewhere = temp.join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    let (answer, code, stderr) = run_and_call(
        &artifact,
        "claude",
        &[&"--no-env", &"--plugin-root", &elsewhere],
        runtime.path(),
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        answer["result"]["structuredContent"]["greeting"], "hello from the config",
        "{answer}"
    );
    assert_eq!(
        answer["result"]["structuredContent"]["secret"],
        serde_json::Value::Null
    );
    assert_eq!(
        answer["result"]["structuredContent"]["pluginRoot"],
        elsewhere.to_string_lossy().as_ref()
    );

    // Named files instead of the project's.
    let named = temp.join("ci.env");
    std::fs::write(&named, "DESK_SECRET=from ci.env\n").unwrap();
    let (answer, code, stderr) = run_and_call(
        &artifact,
        "cursor",
        &[&"--root", &project, &"--env-file", &named],
        runtime.path(),
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        answer["result"]["structuredContent"]["secret"], "from ci.env",
        "{answer}"
    );
    assert_eq!(
        answer["result"]["structuredContent"]["greeting"],
        "hello from the config"
    );
}

#[test]
fn mcp_run_forwards_the_exit_code_and_says_what_it_cannot_run() {
    let temp = tempfile::tempdir().unwrap();
    let temp = temp.path().canonicalize().unwrap();
    let artifact = build_fixture(&temp, "valid-mcp-run");
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_abgen"))
            .args(["mcp", "run", "--artifact"])
            .arg(&artifact)
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };

    let ambiguous = run(&["--server", "desk"]);
    assert_eq!(ambiguous.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&ambiguous.stderr),
        "error: `desk` is declared for claude, codex, cursor; choose one with --target\n"
    );
    assert!(ambiguous.stdout.is_empty());
    let unknown = run(&["--server", "nope", "--target", "claude"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&unknown.stderr)
            .contains("declares no server `nope`; it declares: desk"),
        "{}",
        transcript(&unknown)
    );
    let absent = run(&[
        "--server",
        "desk",
        "--target",
        "claude",
        "--env-file",
        "absent.env",
    ]);
    assert_eq!(absent.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&absent.stderr),
        "error: --env-file absent.env: no such file\n"
    );

    // The server's own exit code is the command's (here a server program that fails at once).
    let host = artifact.join("bin/abgen-host");
    std::fs::remove_file(&host).unwrap();
    std::fs::write(&host, "#!/bin/sh\necho \"started with $*\" >&2\nexit 7\n").unwrap();
    std::fs::set_permissions(&host, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let failed = run(&["--server", "desk", "--target", "claude"]);
    assert_eq!(failed.status.code(), Some(7), "{}", transcript(&failed));
    assert_eq!(
        String::from_utf8_lossy(&failed.stderr),
        "started with mcp --server desk\n"
    );
}
