//! What the integration tests that run a built `examples/curator` share: the repository root, the
//! `abgen-host` binary cargo builds for the artifact, and the build itself.

#![allow(
    dead_code,
    reason = "each test binary uses the part of this module it needs"
)]

pub mod host_turn;

use std::path::{Path, PathBuf};
use std::process::Command;

use abgen::emit::{BuildOptions, build_project};
use serde_json::Value;

/// The repository root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap()
}

/// Builds the runtime binary the artifact ships and returns its path, as cargo reports it.
pub fn host_binary() -> PathBuf {
    let output = Command::new(option_env!("CARGO").unwrap_or("cargo"))
        .args([
            "build",
            "--quiet",
            "-p",
            "abgen-runtime",
            "--bin",
            "abgen-host",
        ])
        .args(["--message-format", "json"])
        .current_dir(repo())
        .output()
        .expect("running cargo build");
    assert!(
        output.status.success(),
        "building abgen-host failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|message| message["target"]["name"] == "abgen-host")
        .find_map(|message| message["executable"].as_str().map(PathBuf::from))
        .expect("cargo names the abgen-host executable")
}

/// Copies the project at `from` to `to`, leaving out what builds and installs write into it
/// (`node_modules`, `artifact`, `.agent-bundle`), so a test builds exactly the committed sources.
pub fn copy_project(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            if !["node_modules", "artifact", ".agent-bundle"]
                .iter()
                .any(|skipped| entry.file_name() == *skipped)
            {
                copy_project(&entry.path(), &target);
            }
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// A copy of `examples/curator` in `temp/curator`: a build writes `.agent-bundle/` into its
/// project, and tests never write into the repository.
pub fn curator_copy(temp: &Path) -> PathBuf {
    let project = temp.join("curator");
    copy_project(&repo().join("examples/curator"), &project);
    project
}

/// `fixtures/projects/<name>` (a copy in `temp/project`) built for its config's targets into
/// `temp/artifact` with the real `abgen-host`; returns the artifact.
/// Runs the Node driver `script` (a path in the repository: a Chromium host, an SDK client) with
/// `args` and a private runtime directory, asserts that it succeeded, and returns the JSON
/// summary it printed.
pub fn node_summary(script: &str, args: &[&dyn AsRef<std::ffi::OsStr>]) -> Value {
    let runtime = tempfile::tempdir().unwrap();
    let output = Command::new("node")
        .arg(repo().join(script))
        .args(args.iter().map(|arg| arg.as_ref()))
        .current_dir(repo())
        .env("XDG_RUNTIME_DIR", runtime.path())
        .output()
        .expect("running node");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{script} failed:\n{stderr}");
    serde_json::from_slice(&output.stdout).unwrap_or_else(|error| panic!("{error}: {stderr}"))
}

pub fn build_fixture(temp: &Path, name: &str) -> PathBuf {
    build_fixture_with(temp, name, abgen::apps::AppProfile::Production)
}

/// [`build_fixture`] with the App documents in `profile` (`abgen dev` builds development ones).
pub fn build_fixture_with(temp: &Path, name: &str, profile: abgen::apps::AppProfile) -> PathBuf {
    let project = temp.join("project");
    copy_project(&repo().join("fixtures/projects").join(name), &project);
    let artifact = temp.join("artifact");
    abgen::emit::build_project_with(
        &BuildOptions {
            root: project,
            targets: None,
            out: Some(artifact.clone()),
            host_binary: Some(host_binary()),
            platforms: None,
            node_modules: None,
            worker: Default::default(),
        },
        profile,
    )
    .unwrap_or_else(|failure| panic!("{failure}: {failure:?}"));
    artifact
}

/// The curator (a copy, [`curator_copy`]) built for `targets` into `temp/artifact` with the real
/// `abgen-host`.
pub fn build_curator(temp: &Path, targets: &[&str]) -> PathBuf {
    let project = curator_copy(temp);
    let artifact = temp.join("artifact");
    build_project(&BuildOptions {
        root: project,
        targets: Some(targets.iter().map(|target| (*target).to_owned()).collect()),
        out: Some(artifact.clone()),
        host_binary: Some(host_binary()),
        platforms: None,
        node_modules: None,
        worker: Default::default(),
    })
    .unwrap_or_else(|failure| panic!("{failure}: {failure:?}"));
    artifact
}

/// stdout then stderr of a finished command, as one text.
pub fn transcript(output: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// `abgen build` of the curator for every host into `artifact`, exactly as a user runs it, for
/// the proofs that hand the result to a host's own CLI. The runtime is the built one when there
/// is one, else a stand-in: those CLIs list `bin/` but never run it.
pub fn abgen_build_curator_for_every_host(temp: &Path, artifact: &Path) {
    let mut host = repo().join("target/debug/abgen-host");
    if !host.is_file() {
        host = temp.join("abgen-host");
        std::fs::write(&host, "#!/bin/sh\nexit 2\n").unwrap();
    }
    let project = curator_copy(temp);
    let built = Command::new(env!("CARGO_BIN_EXE_abgen"))
        .args([
            "build",
            "--target",
            "claude,codex,cursor,portable",
            "--root",
        ])
        .arg(&project)
        .arg("--out")
        .arg(artifact)
        .env("ABGEN_HOST", host)
        .output()
        .unwrap();
    assert!(
        built.status.success(),
        "abgen build failed:\n{}",
        transcript(&built)
    );
    assert!(
        transcript(&built).starts_with("built "),
        "{}",
        transcript(&built)
    );
}

/// Runs `abgen args…` without colour and formats what a user sees: exit code, stdout, stderr.
pub fn abgen_transcript(args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_abgen"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("abgen runs");
    format!(
        "exit_code: {}\n----- stdout -----\n{}----- stderr -----\n{}",
        output
            .status
            .code()
            .map_or("signal".to_owned(), |code| code.to_string()),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    )
}

/// Starts `abgen-host mcp --http 127.0.0.1:0` for `server` of the built `artifact`, its warm
/// socket under `runtime` and `token` (if any) as its bearer token; the URL it printed, and the
/// process (the caller ends it). Its stderr is drained on a thread that ends with the process.
pub fn serve_mcp_http(
    artifact: &Path,
    server: &str,
    runtime: &Path,
    token: Option<&str>,
) -> (String, std::process::Child) {
    use std::io::{BufRead as _, BufReader};
    use std::process::Stdio;

    let mut command = Command::new(artifact.join("bin/abgen-host"));
    command
        .args([
            "mcp",
            "--server",
            server,
            "--http",
            "127.0.0.1:0",
            "--artifact",
        ])
        .arg(artifact)
        .env("XDG_RUNTIME_DIR", runtime)
        .env_remove("ABGEN_MCP_HTTP_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    if let Some(token) = token {
        command.env("ABGEN_MCP_HTTP_TOKEN", token);
    }
    let mut child = command.spawn().expect("abgen-host starts");
    let mut stderr = BufReader::new(child.stderr.take().expect("piped")).lines();
    let url = loop {
        let line = stderr
            .next()
            .expect("the server says where it listens")
            .expect("stderr is text");
        if let Some((_, url)) = line.split_once("serving Streamable HTTP at ") {
            break url.to_owned();
        }
    };
    std::thread::spawn(move || stderr.map_while(Result::ok).for_each(drop));
    (url, child)
}

/// Installs into `modules` (a project's `node_modules`) the repository's React and a package
/// `shelf-widgets`, which Node loads as it is, with a React of its own inside: two copies of
/// React for a project that imports `reactVersion` from it.
pub fn install_two_reacts(modules: &Path) {
    copy_project(&repo().join("node_modules/react"), &modules.join("react"));
    let other = modules.join("shelf-widgets");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(
        other.join("package.json"),
        r#"{"name":"shelf-widgets","version":"1.0.0","main":"index.js"}"#,
    )
    .unwrap();
    std::fs::write(
        other.join("index.js"),
        "const React = require('react');\nexports.reactVersion = React.version;\n",
    )
    .unwrap();
    copy_project(
        &repo().join("node_modules/react"),
        &other.join("node_modules/react"),
    );
}

/// Adds to a copy of the curator a `'use client'` component, `src/lib/star-button.tsx`, and a
/// helper `src/lib/widgets.ts` that re-exports it (so a route importing the helper has the
/// client module two imports away).
pub fn add_client_widget(project: &Path) {
    std::fs::write(
        project.join("src/lib/star-button.tsx"),
        "// A browser widget, marked for the client.\n'use client';\n\nexport function StarButton() {\n  return null;\n}\n",
    )
    .unwrap();
    std::fs::write(
        project.join("src/lib/widgets.ts"),
        "export { StarButton } from './star-button';\n",
    )
    .unwrap();
}
