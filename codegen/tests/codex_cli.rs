//! Proves that Codex itself accepts the artifact: builds the example plugin for every host
//! (`abgen build --target claude,codex,cursor,portable`) and runs the pinned `codex`
//! (scripts/host-clis, installed by scripts/setup) with `CODEX_HOME` and `HOME` in a temporary
//! directory: `plugin marketplace add <artifact>`, `plugin add curator@curator-marketplace`, and
//! `plugin list`, which must show the plugin "installed, enabled", and `mcp list`, which must show
//! its MCP server started from the installed copy. Also checks that the installed
//! copy keeps Codex's own hook and MCP documents, and that their commands name `--host codex`.

use std::path::{Path, PathBuf};
use std::process::Command;

mod support;

use support::{abgen_build_curator_for_every_host, repo, transcript};

fn codex_cli() -> PathBuf {
    let path = repo().join("scripts/host-clis/node_modules/.bin/codex");
    assert!(
        path.exists(),
        "the pinned Codex CLI is missing: run scripts/host-clis/install (or scripts/setup)"
    );
    path
}

/// Runs `codex <args>` with a private CODEX_HOME and HOME, offline.
fn codex(home: &Path, args: &[&str]) -> String {
    let output = Command::new(codex_cli())
        .args(args)
        .current_dir(home)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("CODEX_HOME", home.join(".codex"))
        .output()
        .expect("codex runs");
    let text = transcript(&output);
    assert!(
        output.status.success(),
        "codex {} failed:\n{text}",
        args.join(" ")
    );
    text
}

#[test]
fn codex_adds_installs_and_lists_the_curator_plugin() {
    let temp = tempfile::tempdir().unwrap();
    let home = temp.path().join("home");
    std::fs::create_dir_all(home.join(".codex")).unwrap();
    let artifact = temp.path().join("curator-artifact");
    abgen_build_curator_for_every_host(temp.path(), &artifact);
    let artifact_text = artifact.to_str().unwrap();

    let added = codex(&home, &["plugin", "marketplace", "add", artifact_text]);
    assert!(
        added.contains("Added marketplace `curator-marketplace`"),
        "{added}"
    );
    let installed = codex(&home, &["plugin", "add", "curator@curator-marketplace"]);
    assert!(
        installed.contains("Added plugin `curator` from marketplace `curator-marketplace`"),
        "{installed}"
    );
    let listed = codex(&home, &["plugin", "list"]);
    let line = listed
        .lines()
        .find(|line| line.starts_with("curator@curator-marketplace"))
        .unwrap_or_else(|| panic!("the plugin is not listed:\n{listed}"));
    assert!(line.contains("installed, enabled"), "{listed}");
    assert!(line.contains("0.1.0"), "{listed}");

    // The MCP server comes from the manifest's pointer, started in the installed copy.
    let servers = codex(&home, &["mcp", "list"]);
    let library = servers
        .lines()
        .find(|line| line.starts_with("library "))
        .unwrap_or_else(|| panic!("the MCP server is not listed:\n{servers}"));
    for expected in [
        "./bin/abgen-host",
        "mcp --server library",
        "curator/0.1.0",
        "enabled",
    ] {
        assert!(
            library.contains(expected),
            "`{expected}` missing:\n{servers}"
        );
    }

    // Codex installs a copy; it must carry Codex's own documents, pointed at by its manifest.
    let copy = home.join(".codex/plugins/cache/curator-marketplace/curator/0.1.0");
    let read = |path: &str| -> serde_json::Value {
        let text = std::fs::read_to_string(copy.join(path))
            .unwrap_or_else(|error| panic!("{path} in the installed copy: {error}"));
        serde_json::from_str(&text).unwrap()
    };
    let manifest = read(".codex-plugin/plugin.json");
    assert_eq!(manifest["hooks"], "./.codex-plugin/hooks.json");
    assert_eq!(manifest["mcpServers"], "./.codex-plugin/mcp.json");
    let hooks = read(".codex-plugin/hooks.json");
    let commands: Vec<&str> = hooks["hooks"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|groups| groups.as_array().unwrap())
        .flat_map(|group| group["hooks"].as_array().unwrap())
        .map(|handler| handler["command"].as_str().unwrap())
        .collect();
    assert_eq!(commands.len(), 3, "{hooks}");
    assert!(
        commands
            .iter()
            .all(|command| command
                .starts_with("\"${PLUGIN_ROOT}/bin/abgen-host\" hook --host codex ")),
        "{commands:?}"
    );
    assert_eq!(
        read(".codex-plugin/mcp.json")["mcpServers"]["library"]["cwd"],
        "./"
    );
}

/// Config-declared servers as Codex reads them after install: a command (the root as `./`
/// against a plugin-root cwd) and a Streamable HTTP server.
#[test]
fn codex_lists_config_declared_servers() {
    let temp = tempfile::tempdir().unwrap();
    let home = temp.path().join("home");
    std::fs::create_dir_all(home.join(".codex")).unwrap();
    let artifact = support::build_fixture(temp.path(), "valid-declared-servers");
    codex(
        &home,
        &["plugin", "marketplace", "add", artifact.to_str().unwrap()],
    );
    codex(&home, &["plugin", "add", "notes@notes-marketplace"]);
    let servers = codex(&home, &["mcp", "list"]);
    let line = |name: &str| {
        servers
            .lines()
            .find(|line| line.starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("`{name}` is not listed:\n{servers}"))
            .to_owned()
    };
    let docs = line("docs");
    assert!(docs.contains("./bin/docs"), "{servers}");
    assert!(docs.contains("--stdio"), "{servers}");
    let remote = line("remote");
    assert!(remote.contains("https://docs.example/mcp"), "{servers}");
    // Codex reads the headers of a Streamable HTTP server from `http_headers`.
    let got = codex(&home, &["mcp", "get", "remote", "--json"]);
    let json_start = got.find('{').unwrap_or_else(|| panic!("no JSON: {got}"));
    let remote: serde_json::Value = first_json(&got[json_start..]);
    assert_eq!(remote["transport"]["type"], "streamable_http", "{got}");
    assert_eq!(
        remote["transport"]["http_headers"],
        serde_json::json!({ "X-Team": "docs" }),
        "{got}"
    );
    let got = codex(&home, &["mcp", "get", "docs", "--json"]);
    let json_start = got.find('{').unwrap_or_else(|| panic!("no JSON: {got}"));
    let docs: serde_json::Value = first_json(&got[json_start..]);
    assert_eq!(
        docs["transport"]["env"]["AGENT_BUNDLE_PLUGIN_ROOT"], "./",
        "{got}"
    );
    assert_eq!(
        docs["transport"]["env"]["DOCS_URL"], "https://docs.example",
        "{got}"
    );
}

/// A handwritten entry as Codex reads it after install: `node ./mcp/notes.mjs` from the
/// installed copy.
#[test]
fn codex_lists_a_handwritten_entry() {
    let temp = tempfile::tempdir().unwrap();
    let home = temp.path().join("home");
    std::fs::create_dir_all(home.join(".codex")).unwrap();
    let artifact = support::build_fixture(temp.path(), "valid-handwritten-entry");
    codex(
        &home,
        &["plugin", "marketplace", "add", artifact.to_str().unwrap()],
    );
    codex(&home, &["plugin", "add", "notes@notes-marketplace"]);
    let servers = codex(&home, &["mcp", "list"]);
    let notes = servers
        .lines()
        .find(|line| line.starts_with("notes "))
        .unwrap_or_else(|| panic!("the handwritten server is not listed:\n{servers}"));
    assert!(notes.contains("node"), "{servers}");
    assert!(notes.contains("./mcp/notes.mjs"), "{servers}");
}

/// The first JSON value of `text` (the transcript goes on with stderr after it).
fn first_json(text: &str) -> serde_json::Value {
    serde_json::Deserializer::from_str(text)
        .into_iter::<serde_json::Value>()
        .next()
        .and_then(Result::ok)
        .unwrap_or_else(|| panic!("no JSON value: {text}"))
}
