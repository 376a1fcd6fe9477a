//! `abgen-host mcp`'s protocol behaviour without Node: the server runs in process on the golden
//! curator manifest (`fixtures/manifests/curator.json`), fed newline-delimited messages, and every
//! reply is read back. Rendering over the SDK client lives in `codegen/tests/mcp_curator.rs`.

use std::io::Cursor;
use std::path::{Path, PathBuf};

use abgen_runtime::manifest::read_manifest;
use abgen_runtime::mcp::{McpServer, ServerConfig};
use serde_json::{Value, json};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Serves `lines` and returns every message written, plus every log line.
fn session(lines: &[&str]) -> (Vec<Value>, Vec<String>) {
    let manifest = read_manifest(&repo().join("fixtures/manifests/curator.json")).unwrap();
    let empty = tempfile::tempdir().unwrap();
    let mut server = McpServer::new(ServerConfig {
        artifact: empty.path().to_path_buf(),
        manifest,
        server: "library".into(),
    });
    let mut input = Cursor::new(lines.join("\n").into_bytes());
    let mut output = Vec::new();
    let mut logs = Vec::new();
    server
        .serve(&mut input, &mut output, &mut |line| logs.push(line))
        .unwrap();
    let replies = String::from_utf8(output)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    (replies, logs)
}

fn initialize(client: &str, version: &str) -> String {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {},
        "clientInfo": {"name": client, "version": "1"}}})
    .to_string()
}

const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
const LIST: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;

#[test]
fn initialize_answers_a_known_version_and_the_latest_otherwise() {
    let (replies, _) = session(&[&initialize("x", "2025-06-18"), INITIALIZED]);
    assert_eq!(replies.len(), 1, "the notification gets no reply");
    let result = &replies[0]["result"];
    assert_eq!(result["protocolVersion"], "2025-06-18");
    assert_eq!(result["capabilities"], json!({"tools": {}}));
    assert_eq!(result["serverInfo"]["name"], "curator");

    let (replies, _) = session(&[&initialize("x", "1999-01-01")]);
    assert_eq!(replies[0]["result"]["protocolVersion"], "2025-11-25");
}

#[test]
fn protocol_errors_have_their_json_rpc_codes() {
    let (replies, _) = session(&[
        "{not json",
        r#"{"jsonrpc":"2.0","id":7,"method":"resources/list"}"#,
        r#"{"jsonrpc":"2.0","id":8,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"nope"}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}"#,
    ]);
    assert_eq!(replies.len(), 4, "{replies:#?}");
    assert_eq!(replies[0]["error"]["code"], -32700);
    assert_eq!(replies[0]["id"], Value::Null);
    assert_eq!(replies[1]["error"]["code"], -32601);
    assert_eq!(replies[2], json!({"jsonrpc": "2.0", "id": 8, "result": {}}));
    assert_eq!(replies[3]["error"]["code"], -32602);
    assert!(
        replies[3]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("nope")
    );
}

fn tool<'v>(reply: &'v Value, name: &str) -> Option<&'v Value> {
    reply["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == name)
}

#[test]
fn tools_list_follows_the_client_host() {
    let (generic, _) = session(&[&initialize("inspector", "2025-11-25"), LIST]);
    let (cursor, _) = session(&[&initialize("cursor-vscode", "2025-11-25"), LIST]);
    let search = tool(&generic[1], "search_books").expect("search_books is listed");
    assert_eq!(search["inputSchema"]["type"], "object");
    assert!(search["outputSchema"].is_object());
    assert!(tool(&generic[1], "export_bibliography").is_some());
    assert!(tool(&cursor[1], "export_bibliography").is_none());

    let manifest = read_manifest(&repo().join("fixtures/manifests/curator.json")).unwrap();
    let route = manifest
        .routes
        .iter()
        .find(|route| route.wire_name.as_deref() == Some("search_books"))
        .unwrap();
    let input = route.schemas.input.as_ref().unwrap();
    assert_eq!(
        &tool(&cursor[1], "search_books").unwrap()["inputSchema"],
        &input.profiles["cursor"].json_schema
    );
    assert_eq!(&search["inputSchema"], input.json_schema.as_ref().unwrap());
}

#[test]
fn a_call_without_a_worker_is_a_tool_error() {
    let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"show_shelf","arguments":{"shelf":"reading"}}}"#;
    let (replies, _) = session(&[&initialize("x", "2025-11-25"), call]);
    assert_eq!(replies[1]["id"], 2);
    assert_eq!(replies[1]["result"]["isError"], true, "{:#}", replies[1]);
}
