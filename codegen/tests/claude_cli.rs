//! Proves that Claude Code itself accepts the artifact: builds the example plugin for every host
//! (`abgen build --target claude,codex,cursor,portable`, so the other hosts' documents sit beside
//! Claude's) and runs the pinned `claude` (scripts/host-clis, installed by scripts/setup) in an
//! isolated HOME: `plugin validate --strict`, `plugin marketplace add`, `plugin install`, and
//! `plugin details`, which must list every Claude hook event and MCP server the manifest names.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod support;

use support::{abgen_build_curator_for_every_host, build_fixture, repo, transcript};

fn claude_cli() -> PathBuf {
    let path = repo().join("scripts/host-clis/node_modules/.bin/claude");
    assert!(
        path.exists(),
        "the pinned Claude Code CLI is missing: run scripts/host-clis/install (or scripts/setup)"
    );
    path
}

/// Runs `claude <args>` with a private HOME and every optional network use switched off.
fn claude(home: &Path, args: &[&str]) -> Output {
    let output = Command::new(claude_cli())
        .args(args)
        .current_dir(home)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("CLAUDE_CONFIG_DIR", home.join(".claude"))
        // The plugin's MCP servers Claude starts keep their warm socket under the test's HOME,
        // and Claude Code its own session files (`claude-<uid>/`), which go to /tmp otherwise.
        .env("XDG_RUNTIME_DIR", runtime_dir(home))
        .env("CLAUDE_CODE_TMPDIR", runtime_dir(home))
        .env("DISABLE_AUTOUPDATER", "1")
        .env("DISABLE_TELEMETRY", "1")
        .env("DISABLE_ERROR_REPORTING", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .output()
        .expect("claude runs");
    let text = transcript(&output);
    assert!(
        output.status.success(),
        "claude {} failed:\n{text}",
        args.join(" ")
    );
    output
}

/// The runtime directory of the servers Claude starts, inside the test's HOME.
fn runtime_dir(home: &Path) -> PathBuf {
    let runtime = home.join("run");
    std::fs::create_dir_all(&runtime).unwrap();
    runtime
}

#[test]
fn claude_code_validates_installs_and_lists_the_curator_plugin() {
    let temp = tempfile::tempdir().unwrap();
    let home = temp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let artifact = temp.path().join("curator-artifact");
    abgen_build_curator_for_every_host(temp.path(), &artifact);
    let artifact = artifact.to_str().unwrap();

    let validated = transcript(&claude(
        &home,
        &["plugin", "validate", "--strict", artifact],
    ));
    for expected in [
        "Validation passed",
        "hooks: PostToolUse Write|Edit|MultiEdit command",
        "--host claude --event tool/after",
        r#"mcpServers: library stdio ${CLAUDE_PLUGIN_ROOT}/bin/abgen-host ["mcp","--server","library"]"#,
        "bin: abgen-host",
    ] {
        assert!(
            validated.contains(expected),
            "`{expected}` missing from validate:\n{validated}"
        );
    }

    let manifest: abgen_runtime::manifest::Manifest = serde_json::from_str(
        &std::fs::read_to_string(Path::new(artifact).join("abgen.manifest.json")).unwrap(),
    )
    .unwrap();
    let mut natives: Vec<&str> = manifest.hooks["claude"]
        .iter()
        .map(|binding| binding.native_event.as_str())
        .collect();
    natives.sort_unstable();
    natives.dedup();
    let servers: Vec<&str> = manifest
        .servers
        .iter()
        .map(|server| server.id.as_str())
        .collect();

    claude(&home, &["plugin", "marketplace", "add", artifact]);
    claude(&home, &["plugin", "install", "curator@curator-marketplace"]);
    let details = transcript(&claude(
        &home,
        &["plugin", "details", "curator@curator-marketplace"],
    ));
    // The curator's hooks and server, as the manifest of this very build lists them.
    assert_eq!(natives, ["PostToolUse", "SessionStart", "Stop"]);
    assert_eq!(servers, ["library"]);
    for expected in [
        format!("Hooks ({})  {}", natives.len(), natives.join(", ")),
        format!("MCP servers ({})  {}", servers.len(), servers.join(", ")),
    ] {
        assert!(
            details.contains(&expected),
            "`{expected}` missing from plugin details:\n{details}"
        );
    }
}

/// Claude Code connects to the installed plugin's MCP server the way it does at startup (the
/// health check of `claude mcp list`), over the server's real stdio transport.
#[test]
fn claude_code_connects_to_the_installed_curator_server() {
    let temp = tempfile::tempdir().unwrap();
    let home = temp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let artifact = temp.path().join("curator-artifact");
    abgen_build_curator_for_every_host(temp.path(), &artifact);
    let artifact = artifact.to_str().unwrap();
    let (line, listed) = installed_server_line(&home, artifact, "curator", "library");
    assert!(line.contains("Connected"), "{listed}");
}

/// Installs the plugin `name` from its own marketplace at `artifact` and runs `claude mcp list`
/// (which starts every server and checks its health): the line of `server`, and the whole list.
fn installed_server_line(
    home: &Path,
    artifact: &str,
    name: &str,
    server: &str,
) -> (String, String) {
    claude(home, &["plugin", "marketplace", "add", artifact]);
    claude(
        home,
        &["plugin", "install", &format!("{name}@{name}-marketplace")],
    );
    let listed = transcript(&claude(home, &["mcp", "list"]));
    let prefix = format!("plugin:{name}:{server}:");
    let line = listed
        .lines()
        .find(|line| line.starts_with(&prefix))
        .unwrap_or_else(|| panic!("`{server}` is not listed:\n{listed}"))
        .to_owned();
    (line, listed)
}

/// Config-declared servers (a command with path tokens and env, a Streamable HTTP server with
/// headers) as Claude Code reads them: `validate --strict` accepts the document and lists both.
#[test]
fn claude_code_validates_config_declared_servers() {
    let temp = tempfile::tempdir().unwrap();
    let home = temp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let artifact = build_fixture(temp.path(), "valid-declared-servers");
    let validated = transcript(&claude(
        &home,
        &["plugin", "validate", "--strict", artifact.to_str().unwrap()],
    ));
    for expected in [
        "Validation passed",
        r#"docs stdio ${CLAUDE_PLUGIN_ROOT}/bin/docs ["--stdio"]"#,
        "remote http https://docs.example/mcp",
    ] {
        assert!(
            validated.contains(expected),
            "`{expected}` missing from validate:\n{validated}"
        );
    }
}

/// A handwritten entry on `@modelcontextprotocol/sdk` (`src/mcp/notes.ts`), bundled under the
/// lifecycle shell, is started by Claude Code from the installed plugin and answers its health
/// check: `claude mcp list` shows it "Connected".
#[test]
fn claude_code_connects_to_a_handwritten_entry() {
    let temp = tempfile::tempdir().unwrap();
    let home = temp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let artifact = build_fixture(temp.path(), "valid-handwritten-entry");
    let artifact = artifact.to_str().unwrap();
    let validated = transcript(&claude(
        &home,
        &["plugin", "validate", "--strict", artifact],
    ));
    assert!(validated.contains("Validation passed"), "{validated}");
    let (line, listed) = installed_server_line(&home, artifact, "notes", "notes");
    assert!(line.contains("mcp/notes.mjs"), "{listed}");
    assert!(line.contains("Connected"), "{listed}");
}
