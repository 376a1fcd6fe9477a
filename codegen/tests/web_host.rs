//! `abgen-host web`, the plugin's own browser host for its MCP Apps, on a built curator run as
//! installed (its own `bin/abgen-host`, the artifact's folder as working directory, INSTALL.md
//! naming the command): `runtime/tests/web_host/app-in-host.mjs` drives it in real headless Chromium (playwright-core,
//! Debian's Chromium from `scripts/browser/install`, or `ABGEN_CHROMIUM`) with the official
//! ext-apps `App` client as the App: the MCP server's read of the App's document, handshake and
//! host context, the opening notifications, a foreign frame's and a foreign window's messages
//! ignored, consent denied then allowed with a tool call round trip to the real server, and
//! SIGTERM ending the host (143), its workers and the App. Its JSON summary is snapshotted.

mod support;

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;
use support::{build_curator, build_fixture, host_binary, node_summary};

fn web(artifact: &Path, args: &[&str], runtime: &Path) -> Output {
    Command::new(host_binary())
        .arg("web")
        .args(args)
        .arg("--artifact")
        .arg(artifact)
        .env("XDG_RUNTIME_DIR", runtime)
        .output()
        .expect("running abgen-host web")
}

#[test]
fn the_official_app_client_runs_inside_the_host_in_chromium() {
    let temp = tempfile::tempdir().unwrap();
    let temp = temp.path().canonicalize().unwrap();
    let artifact = build_curator(&temp, &["claude"]);
    let summary = node_summary("runtime/tests/web_host/app-in-host.mjs", &[&artifact]);
    insta::assert_json_snapshot!("web_host_summary", summary);
}

/// `runtime/tests/apps/in-web-host.mjs`: the cases `apps_browser.rs` runs behind ext-apps'
/// AppBridge (`runtime/tests/apps/client-cases.mjs`, one script for both hosts), with our client
/// in the built `valid-app-probe`'s App behind `abgen-host web` run as installed.
#[test]
fn our_app_client_works_inside_our_host_in_chromium() {
    let temp = tempfile::tempdir().unwrap();
    let temp = temp.path().canonicalize().unwrap();
    let artifact = build_fixture(&temp, "valid-app-probe");
    let scratch = temp.join("scratch");
    std::fs::create_dir_all(&scratch).unwrap();
    let summary = node_summary("runtime/tests/apps/in-web-host.mjs", &[&artifact, &scratch]);
    // The script asserts every case; these are the outcomes a reader checks first.
    assert_eq!(summary["handshake"]["echo"]["length"], 5, "{summary}");
    assert_eq!(summary["abort"], "aborted", "{summary}");
    assert_eq!(summary["timeout"]["code"], "timeout", "{summary}");
    assert_eq!(summary["serverSawCancelled"], 2, "{summary}");
    assert_eq!(summary["foreignFrame"], "ignored", "{summary}");
    assert_eq!(summary["foreignOrigin"], "timeout", "{summary}");
    assert_eq!(summary["rebind"]["old"], "connection-rebound", "{summary}");
    assert_eq!(summary["rebind"]["disposed"], "disposed", "{summary}");
    assert_eq!(summary["afterTeardown"], "disposed", "{summary}");
}

/// `runtime/tests/apps/curator-in-web-host.mjs`: the curator's shelf viewer (on createAppClient)
/// behind `abgen-host web`, the steps `apps_browser.rs` takes behind ext-apps' AppBridge.
#[test]
fn the_curator_shelf_viewer_renders_and_calls_inside_our_host_in_chromium() {
    let temp = tempfile::tempdir().unwrap();
    let temp = temp.path().canonicalize().unwrap();
    let artifact = build_curator(&temp, &["claude"]);
    let screenshot = temp.join("shelf-viewer.png");
    let summary = node_summary(
        "runtime/tests/apps/curator-in-web-host.mjs",
        &[&artifact, &screenshot],
    );
    assert_eq!(summary["opening"]["heading"], "reading (2)", "{summary}");
    assert_eq!(summary["called"]["heading"], "finished (5)", "{summary}");
    let png = std::fs::read(&screenshot).unwrap();
    assert!(png.starts_with(b"\x89PNG") && png.len() > 1000);
}

/// `bin/<plugin> web`, seed 002's name for the host, from the installed artifact (through a link
/// on PATH as a host puts it there, from outside the repository): listed in `--help`, it reaches
/// `abgen-host web`, which says what it would open and then serves it until SIGTERM.
#[test]
fn the_plugin_bin_web_command_reaches_the_host() {
    let temp = tempfile::tempdir().unwrap();
    let temp = temp.path().canonicalize().unwrap();
    let artifact = build_curator(&temp, &["claude"]);
    let on_path = temp.join("path");
    std::fs::create_dir_all(&on_path).unwrap();
    std::os::unix::fs::symlink(artifact.join("bin/curator"), on_path.join("curator")).unwrap();
    let runtime = tempfile::tempdir().unwrap();
    let curator = |args: &[&str]| {
        let mut command = Command::new(on_path.join("curator"));
        command
            .args(args)
            .current_dir(&temp)
            .env("XDG_RUNTIME_DIR", runtime.path())
            .env_remove("ABGEN_ARTIFACT");
        command
    };
    let help = curator(&["--help"]).output().unwrap();
    let help_text = String::from_utf8_lossy(&help.stdout);
    assert!(help.status.success(), "{help_text}");
    assert!(
        help_text
            .lines()
            .any(|line| line.trim_start().starts_with("web ") && line.contains("MCP Apps")),
        "{help_text}"
    );

    let unknown = curator(&["web", "library/nope"]).output().unwrap();
    assert_eq!(unknown.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&unknown.stderr),
        "abgen-host: web: no App `library/nope`; this artifact's Apps: library/shelf_viewer\n"
    );

    let mut served = curator(&["web", "--json", "--no-open"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(served.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    let address: Value =
        serde_json::from_str(&line).unwrap_or_else(|error| panic!("{error}: {line}"));
    assert_eq!(address["app"], "library/shelf_viewer", "{address}");
    assert_eq!(address["tool"], "show_shelf", "{address}");
    // SIGTERM ends it as it ends `abgen-host web` itself.
    let pid = i32::try_from(served.id()).unwrap();
    assert!(
        Command::new("kill")
            .arg("-TERM")
            .arg(pid.to_string())
            .status()
            .unwrap()
            .success()
    );
    assert_eq!(served.wait().unwrap().code(), Some(143));
}

#[test]
fn wrong_selections_are_usage_errors_and_a_missing_document_a_failure() {
    let temp = tempfile::tempdir().unwrap();
    let temp = temp.path().canonicalize().unwrap();
    let artifact = build_curator(&temp, &["claude"]);
    let runtime = tempfile::tempdir().unwrap();
    let stderr = |output: &Output| String::from_utf8_lossy(&output.stderr).into_owned();

    let unknown = web(&artifact, &["library/nope"], runtime.path());
    assert_eq!(unknown.status.code(), Some(2), "{}", stderr(&unknown));
    assert_eq!(
        stderr(&unknown),
        "abgen-host: web: no App `library/nope`; this artifact's Apps: library/shelf_viewer\n"
    );

    let tool = web(&artifact, &["--tool", "nothing"], runtime.path());
    assert_eq!(tool.status.code(), Some(2), "{}", stderr(&tool));
    assert!(
        stderr(&tool)
            .starts_with("abgen-host: web: no tool `nothing` on the server `library`; its tools: "),
        "{}",
        stderr(&tool)
    );

    let input = web(&artifact, &["--input", "[1]"], runtime.path());
    assert_eq!(input.status.code(), Some(2), "{}", stderr(&input));
    assert_eq!(
        stderr(&input),
        "abgen-host: web: --input must be a JSON object\n"
    );

    let elsewhere = web(&temp.join("no-artifact"), &[], runtime.path());
    assert_eq!(elsewhere.status.code(), Some(1), "{}", stderr(&elsewhere));

    // Without the App's compiled document the host says so and exits before it serves anything.
    std::fs::remove_file(artifact.join("mcp-apps/shelf_viewer.html")).unwrap();
    let undocumented = web(&artifact, &[], runtime.path());
    assert_eq!(
        undocumented.status.code(),
        Some(1),
        "{}",
        stderr(&undocumented)
    );
    assert!(undocumented.stdout.is_empty());
    assert!(
        stderr(&undocumented).contains("cannot read the App library/shelf_viewer at ui://curator/shelf-viewer: the App `app:library/shelf_viewer` at ui://curator/shelf-viewer has no readable compiled document"),
        "{}",
        stderr(&undocumented)
    );

    // A document over the 2 MiB bound App hosts accept is refused before anything is served.
    std::fs::create_dir_all(artifact.join("mcp-apps")).unwrap();
    let oversized = format!(
        "<!doctype html><html lang=\"en\"><body>{}</body></html>",
        "x".repeat(2 * 1024 * 1024)
    );
    std::fs::write(artifact.join("mcp-apps/shelf_viewer.html"), oversized).unwrap();
    let too_large = web(&artifact, &[], runtime.path());
    assert_eq!(too_large.status.code(), Some(1), "{}", stderr(&too_large));
    assert!(too_large.stdout.is_empty());
    assert!(
        stderr(&too_large).contains("over the 2097152-byte bound App hosts accept"),
        "{}",
        stderr(&too_large)
    );
}
