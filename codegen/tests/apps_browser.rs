//! `agent-bundle/app` in real headless Chromium (playwright-core, Debian's Chromium from
//! `scripts/browser/install`, or `ABGEN_CHROMIUM`) against the official MCP Apps host bridge
//! (ext-apps 2.x `AppBridge`), wired to the built `fixtures/projects/valid-app-probe`'s real MCP
//! server: `runtime/tests/apps/browser.mjs` asserts the handshake, a typed call round trip,
//! the opening notifications, timeout and abort (the server's route sees the cancellation), a
//! foreign frame and a foreign origin ignored, rebind, dispose, host features and teardown.
//! Also: the emitted App document carries no zod, Node built-in, or compiler code.

mod support;

use std::process::Command;

use abgen::apps::AppProfile;
use serde_json::Value;
use support::{build_fixture, build_fixture_with, node_summary, repo};

#[test]
fn the_app_client_works_in_chromium_against_the_ext_apps_host_bridge() {
    let temp = tempfile::tempdir().unwrap();
    let temp = temp.path().canonicalize().unwrap();
    let artifact = build_fixture(&temp, "valid-app-probe");
    probe_passes_in_chromium(&temp, &artifact);
}

#[test]
fn a_development_document_is_readable_and_works_in_chromium_as_the_production_one() {
    let temp = tempfile::tempdir().unwrap();
    let temp = temp.path().canonicalize().unwrap();
    let production = build_fixture(&temp.join("production"), "valid-app-probe");
    let artifact = build_fixture_with(
        &temp.join("dev"),
        "valid-app-probe",
        AppProfile::Development,
    );
    let readable = std::fs::read_to_string(artifact.join("mcp-apps/probe.html")).unwrap();
    let minified = std::fs::read_to_string(production.join("mcp-apps/probe.html")).unwrap();
    // Unminified, with the modules' own names and one marker per module; no source map.
    assert!(
        2 * readable.len() > 3 * minified.len(),
        "{} against {}",
        readable.len(),
        minified.len()
    );
    assert!(
        readable.contains("function createAppClient("),
        "real identifiers"
    );
    assert!(!minified.contains("function createAppClient("));
    assert!(
        readable.contains("\n// src/mcp/desk/apps/probe.ts\n"),
        "a module marker"
    );
    assert!(readable.contains("packages/agent-bundle/src/app/client.ts\n"));
    assert!(!readable.contains("sourceMappingURL"));
    probe_passes_in_chromium(&temp, &artifact);
}

#[test]
fn the_app_document_carries_no_zod_node_or_compiler_code() {
    let temp = tempfile::tempdir().unwrap();
    let artifact = build_fixture(temp.path(), "valid-app-probe");
    let html = std::fs::read_to_string(artifact.join("mcp-apps/probe.html")).unwrap();
    // The client is inside (its protocol version and route-id key), and nothing else is.
    assert!(html.contains("2026-01-26") && html.contains("agent-bundle/routeId"));
    for marker in [
        "zod",
        "Zod",
        "node:",
        "require(",
        "process.env",
        "esbuild",
        "oxc",
        "react-server",
        "startWorker",
        "defineTool",
        "@modelcontextprotocol",
    ] {
        assert!(
            !html.contains(marker),
            "the App document contains `{marker}`"
        );
    }
    // The document is small: the framework's client and the App's own code.
    assert!(html.len() < 16 * 1024, "{} bytes", html.len());
}

#[test]
fn an_app_that_only_connects_is_under_a_tenth_of_the_same_on_ext_apps() {
    let output = Command::new("node")
        .arg(repo().join("bench/apps/size.mjs"))
        .arg("--json")
        .current_dir(repo())
        .output()
        .expect("running node");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "size.mjs failed:\n{stderr}");
    let sizes: Value = serde_json::from_slice(&output.stdout).unwrap();
    for key in ["bytes", "gzipBytes"] {
        let ratio = sizes["ratio"][key].as_f64().unwrap();
        assert!(
            ratio <= 0.1,
            "{key}: ours is {ratio} of ext-apps' ({sizes})"
        );
    }
}

#[test]
fn the_curator_shelf_viewer_renders_and_calls_in_chromium_behind_the_ext_apps_host_bridge() {
    let temp = tempfile::tempdir().unwrap();
    let temp = temp.path().canonicalize().unwrap();
    let artifact = support::build_curator(&temp, &["claude"]);
    let screenshot = temp.join("shelf-viewer.png");
    let summary = node_summary("runtime/tests/apps/curator.mjs", &[&artifact, &screenshot]);
    assert_eq!(summary["opening"]["heading"], "reading (2)", "{summary}");
    assert_eq!(summary["called"]["heading"], "finished (5)", "{summary}");
    let png = std::fs::read(&screenshot).unwrap();
    assert!(png.starts_with(b"\x89PNG") && png.len() > 1000);
}

/// Runs `runtime/tests/apps/browser.mjs` on the probe App of `artifact` in Chromium (scratch
/// files under `temp`). The script asserts every case; these are the outcomes a reader checks
/// first.
fn probe_passes_in_chromium(temp: &std::path::Path, artifact: &std::path::Path) {
    let scratch = temp.join("scratch");
    std::fs::create_dir_all(&scratch).unwrap();
    let summary = node_summary("runtime/tests/apps/browser.mjs", &[&artifact, &scratch]);
    assert_eq!(summary["abort"], "aborted", "{summary}");
    assert_eq!(summary["timeout"]["code"], "timeout", "{summary}");
    assert_eq!(summary["serverSawCancelled"], 2, "{summary}");
    assert_eq!(summary["rebind"]["old"], "connection-rebound", "{summary}");
    assert_eq!(summary["afterTeardown"], "disposed", "{summary}");
}
