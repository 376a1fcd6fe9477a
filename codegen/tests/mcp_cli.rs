//! `abgen mcp list|invoke` ask a built artifact's own MCP server over stdio as a host would:
//! the curator is built for Claude with the real `abgen-host`, its tools are listed, one is
//! called, a call the server refuses exits 1, and a missing artifact says to build first.

use std::path::Path;
use std::process::{Command, Output};

mod support;

use support::{build_curator, transcript};

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
