//! `abgen build --platform LIST`: the curator built for this machine's platform and for a second
//! one whose npm platform package the test creates above the project (with a stand-in
//! executable, as no other platform's binary can run here), then run only through its
//! `bin/abgen-host` launcher, as hosts run it: an MCP `tools/list` and a `tool/after` hook, each
//! finding the artifact from the binary's own path; a symlinked and a relative launcher; an
//! artifact without this machine's platform, whose launcher names it; and every `--platform`
//! the build refuses, with nothing written.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

mod support;

use support::{curator_copy, host_binary, repo, transcript};

/// The platform abgen runs on here (the only one whose binaries run on this machine).
const THIS_PLATFORM: &str = "linux-x64-gnu";
/// A second platform, served by the stand-in package [`fake_platform_package`] creates.
const OTHER_PLATFORM: &str = "linux-arm64-musl";

/// `@abgen/<OTHER_PLATFORM>` in `dir/node_modules`, of abgen's version, whose `abgen-host`
/// prints who it is: were the launcher to pick it on this machine, the test would see.
fn fake_platform_package(dir: &Path) -> PathBuf {
    let package = dir.join("node_modules/@abgen").join(OTHER_PLATFORM);
    std::fs::create_dir_all(package.join("bin")).unwrap();
    std::fs::write(
        package.join("package.json"),
        json!({"name": format!("@abgen/{OTHER_PLATFORM}"), "version": env!("CARGO_PKG_VERSION")})
            .to_string(),
    )
    .unwrap();
    let binary = package.join("bin/abgen-host");
    std::fs::write(
        &binary,
        format!("#!/bin/sh\necho \"the {OTHER_PLATFORM} stand-in ran\"\n"),
    )
    .unwrap();
    std::fs::set_permissions(&binary, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    binary
}

/// `abgen build --target claude --platform <platforms>` of `project` into `out`, with the
/// running platform's `abgen-host` named by `ABGEN_HOST` as for a plain build.
fn build(project: &Path, out: &Path, platforms: &str, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_abgen"))
        .args([
            "build",
            "--target",
            "claude",
            "--platform",
            platforms,
            "--root",
        ])
        .arg(project)
        .arg("--out")
        .arg(out)
        .args(extra)
        .env("ABGEN_HOST", host_binary())
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

/// `bin/abgen-host args…` started as a host starts it: no `--artifact`, no `ABGEN_ARTIFACT`, a
/// private runtime directory, every stream piped.
fn spawn_launcher(launcher: &Path, args: &[&str], runtime: &Path) -> std::process::Child {
    Command::new(launcher)
        .args(args)
        .env_remove("ABGEN_ARTIFACT")
        .env_remove("CLAUDE_PROJECT_DIR")
        .env("XDG_RUNTIME_DIR", runtime)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// [`spawn_launcher`] with `stdin` written and closed; its output.
fn launch(launcher: &Path, args: &[&str], stdin: &[u8], runtime: &Path) -> Output {
    let mut child = spawn_launcher(launcher, args, runtime);
    if let Err(error) = child.stdin.take().unwrap().write_all(stdin) {
        // A launcher that refuses at once may exit before it reads its input.
        assert_eq!(error.kind(), std::io::ErrorKind::BrokenPipe, "{error}");
    }
    child.wait_with_output().unwrap()
}

/// `initialize` then `tools/list` over `bin/abgen-host mcp --server library`; the tools' names.
fn list_tools(launcher: &Path, runtime: &Path) -> Vec<String> {
    let mut child = spawn_launcher(launcher, &["mcp", "--server", "library"], runtime);
    let mut input = child.stdin.take().unwrap();
    for message in [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "claude-code", "version": "2.0.0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}),
    ] {
        writeln!(input, "{message}").unwrap();
    }
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    // Bounded: the server answers two requests, then the input closes and it exits.
    let listed = (0..16)
        .map_while(|_| lines.next()?.ok())
        .filter_map(|line| serde_json::from_str::<Value>(&line).ok())
        .find(|message| message["id"] == 2)
        .expect("tools/list is answered");
    drop(input);
    let status = child.wait().unwrap();
    assert!(status.success(), "abgen-host mcp exited with {status}");
    listed["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{listed}"))
        .iter()
        .filter_map(|tool| tool["name"].as_str().map(str::to_owned))
        .collect()
}

/// The Claude PostToolUse fixture as a `Write` of a reading note in `workspace`.
fn reading_note_write(workspace: &Path) -> Vec<u8> {
    let text =
        std::fs::read_to_string(repo().join("fixtures/hosts/claude/PostToolUse.json")).unwrap();
    let mut payload: Value = serde_json::from_str(&text).unwrap();
    let note = workspace.join("notes/earthsea.md");
    payload["cwd"] = json!(workspace);
    payload["tool_input"] = json!({"file_path": note, "content": "# A Wizard of Earthsea\n"});
    payload["tool_response"] = json!({"filePath": note, "success": true});
    payload.to_string().into_bytes()
}

#[test]
fn a_two_platform_artifact_serves_mcp_and_hooks_through_its_launcher() {
    let temp = tempfile::tempdir().unwrap();
    let temp = temp.path().canonicalize().unwrap();
    let fake = fake_platform_package(&temp);
    let project = curator_copy(&temp);
    let artifact = temp.join("artifact");
    let platforms = format!("{OTHER_PLATFORM},{THIS_PLATFORM}");
    let built = build(&project, &artifact, &platforms, &[]);
    assert!(built.status.success(), "{}", transcript(&built));

    // Each binary at bin/<platform>/, the launcher at bin/abgen-host, each in the manifest with
    // its bytes' sha256 and executable.
    let this = std::fs::read(artifact.join(format!("bin/{THIS_PLATFORM}/abgen-host"))).unwrap();
    assert_eq!(this, std::fs::read(host_binary()).unwrap());
    let other = std::fs::read(artifact.join(format!("bin/{OTHER_PLATFORM}/abgen-host"))).unwrap();
    assert_eq!(other, std::fs::read(&fake).unwrap());
    let launcher = artifact.join("bin/abgen-host");
    let script = std::fs::read_to_string(&launcher).unwrap();
    assert!(script.starts_with("#!/bin/sh\n"), "{script}");
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(artifact.join("abgen.manifest.json")).unwrap())
            .unwrap();
    for path in [
        "bin/abgen-host".to_owned(),
        format!("bin/{THIS_PLATFORM}/abgen-host"),
        format!("bin/{OTHER_PLATFORM}/abgen-host"),
    ] {
        let entry = manifest["files"]
            .as_array()
            .unwrap()
            .iter()
            .find(|entry| entry["path"] == path.as_str())
            .unwrap_or_else(|| panic!("the manifest lists no {path}"));
        let bytes = std::fs::read(artifact.join(&path)).unwrap();
        assert_eq!(entry["sha256"], abgen::emit::sha256_hex(&bytes), "{path}");
        assert_eq!(entry["mode"], 0o755, "{path}");
    }
    let install = std::fs::read_to_string(artifact.join("INSTALL.md")).unwrap();
    assert!(
        install.contains(&format!(
            "- {OTHER_PLATFORM}: `bin/{OTHER_PLATFORM}/abgen-host` (untested"
        )) && install.contains(&format!(
            "- {THIS_PLATFORM}: `bin/{THIS_PLATFORM}/abgen-host`\n"
        )),
        "{install}"
    );
    insta::assert_snapshot!("install_two_platforms", install);

    // The committed artifact verifies against the sources, and a changed platform binary does not.
    let checked = build(&project, &artifact, &platforms, &["--check"]);
    assert!(checked.status.success(), "{}", transcript(&checked));
    std::fs::write(
        artifact.join(format!("bin/{OTHER_PLATFORM}/abgen-host")),
        "#!/bin/sh\n",
    )
    .unwrap();
    let stale = build(&project, &artifact, &platforms, &["--check"]);
    assert_eq!(stale.status.code(), Some(1), "{}", transcript(&stale));
    assert!(
        transcript(&stale).contains(&format!("bin/{OTHER_PLATFORM}/abgen-host")),
        "{}",
        transcript(&stale)
    );

    // An MCP session as Claude Code starts one: the launcher picks this machine's binary, which
    // finds its artifact two folders up.
    let runtime = tempfile::tempdir().unwrap();
    let tools = list_tools(&launcher, runtime.path());
    assert!(tools.iter().any(|tool| tool == "search_books"), "{tools:?}");

    // The curator's `tool/after` hook on a Write of a note: rendered standalone (no warm runtime
    // in the private runtime directory) within its deadline.
    let answered = launch(
        &launcher,
        &["hook", "--host", "claude", "--event", "tool/after"],
        &reading_note_write(&temp.join("workspace")),
        runtime.path(),
    );
    let stderr = String::from_utf8_lossy(&answered.stderr);
    assert_eq!(answered.status.code(), Some(0), "{stderr}");
    let answer: Value = serde_json::from_slice(&answered.stdout)
        .unwrap_or_else(|error| panic!("{error}: {stderr}"));
    assert_eq!(
        answer["hookSpecificOutput"]["hookEventName"], "PostToolUse",
        "{answer}"
    );
    assert!(
        answer["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .is_some_and(|context| context.contains("earthsea")),
        "{answer}"
    );

    // Through a symlink on PATH, and relative to the plugin root as Codex runs it.
    let elsewhere = temp.join("on-path");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&launcher, elsewhere.join("abgen-host")).unwrap();
    let version = format!("abgen-host {}\n", env!("CARGO_PKG_VERSION"));
    let linked = launch(
        &elsewhere.join("abgen-host"),
        &["--version"],
        b"",
        runtime.path(),
    );
    assert_eq!(
        String::from_utf8_lossy(&linked.stdout),
        version,
        "{}",
        transcript(&linked)
    );
    let relative = Command::new("./bin/abgen-host")
        .arg("--version")
        .current_dir(&artifact)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&relative.stdout),
        version,
        "{}",
        transcript(&relative)
    );
}

#[test]
fn an_artifact_without_this_platform_names_it_and_the_rebuild_that_adds_it() {
    let temp = tempfile::tempdir().unwrap();
    let temp = temp.path().canonicalize().unwrap();
    fake_platform_package(&temp);
    let project = curator_copy(&temp);
    let artifact = temp.join("artifact");
    let built = build(&project, &artifact, OTHER_PLATFORM, &[]);
    assert!(built.status.success(), "{}", transcript(&built));
    assert!(!artifact.join(format!("bin/{THIS_PLATFORM}")).exists());

    let runtime = tempfile::tempdir().unwrap();
    let refused = launch(
        &artifact.join("bin/abgen-host"),
        &["hook", "--host", "claude", "--event", "tool/after"],
        b"{}",
        runtime.path(),
    );
    assert_eq!(refused.status.code(), Some(1), "{}", transcript(&refused));
    assert_eq!(String::from_utf8_lossy(&refused.stdout), "");
    assert_eq!(
        String::from_utf8_lossy(&refused.stderr),
        format!(
            "abgen-host: this plugin has no runtime for this machine's platform, {THIS_PLATFORM} (bin/ holds {OTHER_PLATFORM}); rebuild it with `abgen build --platform {OTHER_PLATFORM},{THIS_PLATFORM}`\n"
        )
    );
}

#[test]
fn platforms_the_build_cannot_ship_are_diagnostics_and_nothing_is_written() {
    let temp = tempfile::tempdir().unwrap();
    let temp = temp.path().canonicalize().unwrap();
    let project = curator_copy(&temp);
    let artifact = temp.join("artifact");
    for (platforms, code, says) in [
        (
            "linux-x64-gnu,linux-x86-gnu",
            "AB5367",
            "`linux-x86-gnu`, which is not a platform abgen builds for",
        ),
        (
            "win32-x64-msvc",
            "AB5368",
            "an artifact cannot run on Windows yet",
        ),
        (
            "darwin-arm64",
            "AB5370",
            "npm install --save-dev --force @abgen/darwin-arm64@",
        ),
    ] {
        let refused = build(&project, &artifact, platforms, &[]);
        let text = transcript(&refused);
        assert_eq!(refused.status.code(), Some(1), "{text}");
        assert!(text.contains(code) && text.contains(says), "{text}");
        assert!(!artifact.exists(), "{platforms}: {text}");
    }
}
