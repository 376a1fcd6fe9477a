use std::path::{Path, PathBuf};

use serde_json::json;

use super::*;

/// An artifact folder holding `documents` (host MCP document path → JSON).
fn artifact(documents: &[(&str, Value)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, document) in documents {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, document.to_string()).unwrap();
    }
    dir
}

fn claude_document() -> Value {
    json!({"mcpServers": {
        "desk": {
            "type": "stdio",
            "command": "${CLAUDE_PLUGIN_ROOT}/bin/abgen-host",
            "args": ["mcp", "--server", "desk"],
            "env": {"AGENT_BUNDLE_PLUGIN_ROOT": "${CLAUDE_PLUGIN_ROOT}", "API": "${API_URL:-https://api.example}", "TOKEN": "${TOKEN}"},
        },
        "docs": {"type": "http", "url": "https://docs.example/mcp"},
    }})
}

fn codex_document() -> Value {
    json!({"mcpServers": {
        "desk": {
            "type": "stdio",
            "command": "./bin/abgen-host",
            "args": ["mcp", "--server", "desk"],
            "cwd": "./",
            "env": {"AGENT_BUNDLE_PLUGIN_ROOT": "./", "TOKEN": "${TOKEN}"},
        },
    }})
}

fn unset(_: &str) -> Option<String> {
    None
}

fn token_set(name: &str) -> Option<String> {
    (name == "TOKEN").then(|| "s3cret".to_owned())
}

fn root(dir: &tempfile::TempDir) -> PathBuf {
    dir.path().canonicalize().unwrap()
}

#[test]
fn expands_a_claude_entry_as_claude_code_does() {
    let dir = artifact(&[(".mcp.json", claude_document())]);
    let launch = resolve_launch(dir.path(), "desk", None, &token_set).unwrap();
    let root = root(&dir);
    assert_eq!(launch.host, "claude");
    assert_eq!(launch.program, root.join("bin/abgen-host"));
    assert_eq!(launch.args, ["mcp", "--server", "desk"]);
    assert_eq!(
        launch.cwd, None,
        "Claude Code starts a server in its own directory"
    );
    assert_eq!(
        launch.env["AGENT_BUNDLE_PLUGIN_ROOT"],
        root.to_string_lossy()
    );
    assert_eq!(launch.env["API"], "https://api.example");
    assert_eq!(launch.env["TOKEN"], "s3cret");
}

#[test]
fn refuses_an_unset_variable_a_host_would_refuse() {
    let dir = artifact(&[(".mcp.json", claude_document())]);
    let error = resolve_launch(dir.path(), "desk", None, &unset).unwrap_err();
    assert!(matches!(error, McpRunError::Usage(_)), "{error:?}");
    assert_eq!(
        error.to_string(),
        "`env.TOKEN` of the claude entry refers to ${TOKEN}, which is not set; set it, as claude would need it set"
    );
}

#[test]
fn resolves_codex_paths_against_its_plugin_root_cwd_and_expands_nothing_else() {
    let dir = artifact(&[(".codex-plugin/mcp.json", codex_document())]);
    let launch = resolve_launch(dir.path(), "desk", Some("codex"), &token_set).unwrap();
    let root = root(&dir);
    assert_eq!(launch.program, root.join("bin/abgen-host"));
    assert_eq!(launch.cwd.as_deref(), Some(root.as_path()));
    assert_eq!(
        launch.env["AGENT_BUNDLE_PLUGIN_ROOT"],
        root.to_string_lossy()
    );
    // Codex interpolates no token in MCP documents, so neither does its launch.
    assert_eq!(launch.env["TOKEN"], "${TOKEN}");
}

#[test]
fn needs_a_target_when_several_hosts_declare_the_server() {
    let dir = artifact(&[
        (".mcp.json", claude_document()),
        (".codex-plugin/mcp.json", codex_document()),
    ]);
    let error = resolve_launch(dir.path(), "desk", None, &token_set).unwrap_err();
    assert_eq!(
        error.to_string(),
        "`desk` is declared for claude, codex; choose one with --target"
    );
    let chosen = resolve_launch(dir.path(), "desk", Some("codex"), &token_set).unwrap();
    assert_eq!(chosen.host, "codex");
}

#[test]
fn names_what_there_is_when_the_server_or_the_host_is_missing() {
    let dir = artifact(&[(".codex-plugin/mcp.json", codex_document())]);
    let missing = resolve_launch(dir.path(), "nope", None, &unset).unwrap_err();
    assert_eq!(
        missing.to_string(),
        "no MCP document in the artifact declares the server `nope`; it declares: desk"
    );
    let host = resolve_launch(dir.path(), "desk", Some("claude"), &unset).unwrap_err();
    assert_eq!(
        host.to_string(),
        "the artifact has no claude MCP document; it holds: codex"
    );
    let named = resolve_launch(dir.path(), "nope", Some("codex"), &unset).unwrap_err();
    assert_eq!(
        named.to_string(),
        "the codex MCP document (.codex-plugin/mcp.json) declares no server `nope`; it declares: desk"
    );
}

#[test]
fn a_remote_server_has_no_process_to_run() {
    let dir = artifact(&[(".mcp.json", claude_document())]);
    let error = resolve_launch(dir.path(), "docs", None, &unset).unwrap_err();
    assert_eq!(
        error.to_string(),
        "`docs` is a remote server at https://docs.example/mcp; there is no process to run, a client connects to it"
    );
}

#[test]
fn a_missing_artifact_says_to_build_it() {
    let error =
        resolve_launch(Path::new("/nonexistent/artifact"), "desk", None, &unset).unwrap_err();
    assert!(matches!(error, McpRunError::Failed(_)));
    assert!(
        error
            .to_string()
            .ends_with("build it first (`abgen build`)"),
        "{error}"
    );
}

#[test]
fn names_the_operator_files_in_order() {
    let project = tempfile::tempdir().unwrap();
    let files: Vec<String> = serde_json::from_str(
        &operator_env_files(&EnvFiles::Project(project.path().to_owned())).unwrap(),
    )
    .unwrap();
    let root = std::path::absolute(project.path()).unwrap();
    assert_eq!(
        files,
        [
            root.join(".env").to_string_lossy(),
            root.join(".env.local").to_string_lossy()
        ]
    );
    assert_eq!(operator_env_files(&EnvFiles::None).unwrap(), "[]");
    let absent = project.path().join("absent.env");
    let error = operator_env_files(&EnvFiles::Named(vec![absent.clone()])).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!("--env-file {}: no such file", absent.display())
    );
}
