//! `abgen-host mcp`'s protocol behaviour without Node: the server runs in process on the golden
//! curator manifest (`fixtures/manifests/curator.json`), fed newline-delimited messages, and every
//! reply is read back. Rendering over the SDK client lives in `codegen/tests/mcp_curator.rs`.

use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use abgen_runtime::kernel::SharedKernel;
use abgen_runtime::manifest::read_manifest;
use abgen_runtime::mcp::{DEFAULT_MAX_MESSAGE_BYTES, McpServer, ServerConfig};
use serde_json::{Value, json};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Serves `lines` and returns every message written, plus every log line.
fn session(lines: &[&str]) -> (Vec<Value>, Vec<String>) {
    session_of(lines.join("\n").as_bytes(), DEFAULT_MAX_MESSAGE_BYTES)
}

/// Serves the raw `input` with a message limit of `max_message_bytes`.
fn session_of(input: &[u8], max_message_bytes: usize) -> (Vec<Value>, Vec<String>) {
    serve(
        Cursor::new(input.to_vec()),
        max_message_bytes,
        abgen_runtime::mcp::HEARTBEAT,
    )
}

/// Serves `input` on a server of the curator's manifest with no render worker.
fn serve(
    input: impl std::io::BufRead + Send + 'static,
    max_message_bytes: usize,
    heartbeat: std::time::Duration,
) -> (Vec<Value>, Vec<String>) {
    let manifest = read_manifest(&repo().join("fixtures/manifests/curator.json")).unwrap();
    serve_manifest(manifest, input, max_message_bytes, heartbeat)
}

/// Serves `input` on a server of `manifest` (its server `library`) with no render worker.
fn serve_manifest(
    manifest: abgen_runtime::manifest::Manifest,
    input: impl std::io::BufRead + Send + 'static,
    max_message_bytes: usize,
    heartbeat: std::time::Duration,
) -> (Vec<Value>, Vec<String>) {
    let empty = tempfile::tempdir().unwrap();
    let logs = Arc::new(Mutex::new(Vec::new()));
    let kernel = SharedKernel::for_artifact(
        empty.path().to_path_buf(),
        manifest.digest.clone(),
        "library".to_owned(),
        manifest.limits.render.max_bytes,
        1,
        abgen_runtime::mcp::START_ALLOWANCE,
    );
    let server = McpServer::new(
        ServerConfig {
            artifact: empty.path().to_path_buf(),
            manifest,
            server: "library".into(),
            max_message_bytes,
            heartbeat,
        },
        Arc::new(kernel),
        Arc::new({
            let logs = Arc::clone(&logs);
            move |line| logs.lock().unwrap().push(line)
        }),
    );
    let output = SharedOutput::default();
    server.serve(input, output.clone()).unwrap();
    let replies = String::from_utf8(output.0.lock().unwrap().clone())
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let logs = logs.lock().unwrap().clone();
    (replies, logs)
}

/// An output the test reads back once the server has returned.
#[derive(Clone, Default)]
struct SharedOutput(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for SharedOutput {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().write(bytes)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Input that holds `text`, then stays open for `open` before it ends, as a client that is
/// connected but quiet.
struct QuietClient {
    text: Cursor<Vec<u8>>,
    open: std::time::Duration,
}

impl std::io::Read for QuietClient {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        let read = self.text.read(buffer)?;
        if read == 0 && !self.open.is_zero() {
            std::thread::sleep(std::mem::take(&mut self.open));
        }
        Ok(read)
    }
}

#[test]
fn a_quiet_session_says_on_stderr_that_it_is_alive_every_heartbeat() {
    use std::time::Duration;
    let input = std::io::BufReader::new(QuietClient {
        text: Cursor::new(initialize("abgen-check", "2025-11-25").into_bytes()),
        open: Duration::from_millis(450),
    });
    let (replies, logs) = serve(input, DEFAULT_MAX_MESSAGE_BYTES, Duration::from_millis(100));
    assert_eq!(replies.len(), 1, "{replies:?}");
    let alive: Vec<&String> = logs.iter().filter(|line| line.contains("alive")).collect();
    assert!((2..=6).contains(&alive.len()), "{logs:?}");
    assert_eq!(
        alive[0],
        "mcp library: alive; 0 calls in flight, 0 answered"
    );
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
    // The curator has tools, a resource, an App and a prompt.
    assert_eq!(
        result["capabilities"],
        json!({"tools": {}, "resources": {}, "prompts": {}, "completions": {}, "logging": {}})
    );
    assert_eq!(result["serverInfo"]["name"], "curator");

    let (replies, _) = session(&[&initialize("x", "1999-01-01")]);
    assert_eq!(replies[0]["result"]["protocolVersion"], "2025-11-25");
}

#[test]
fn protocol_errors_have_their_json_rpc_codes() {
    let (replies, _) = session(&[
        "{not json",
        &initialize("x", "2025-11-25"),
        r#"{"jsonrpc":"2.0","id":7,"method":"no/such/method"}"#,
        r#"{"jsonrpc":"2.0","id":8,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"nope"}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}"#,
    ]);
    assert_eq!(replies.len(), 5, "{replies:#?}");
    assert_eq!(replies[0]["error"]["code"], -32700);
    assert_eq!(replies[0]["id"], Value::Null);
    // Requests are served concurrently: the replies after `initialize` come in any order.
    let reply = |id: u64| {
        replies
            .iter()
            .find(|reply| reply["id"] == id)
            .unwrap_or_else(|| panic!("no reply to {id}: {replies:#?}"))
    };
    assert_eq!(reply(7)["error"]["code"], -32601);
    assert_eq!(reply(8), &json!({"jsonrpc": "2.0", "id": 8, "result": {}}));
    assert_eq!(reply(9)["error"]["code"], -32602);
    assert!(
        reply(9)["error"]["message"]
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
        &input.profiles["cursor"].json_schema.to_value()
    );
    assert_eq!(
        &search["inputSchema"],
        input.json_schema.as_deref().unwrap()
    );
    // A host whose profile gives the canonical form back has none in the manifest, and is
    // served the canonical form.
    assert!(!input.profiles.contains_key("claude"));
    let (claude, _) = session(&[&initialize("claude-code", "2025-11-25"), LIST]);
    assert_eq!(
        &tool(&claude[1], "search_books").unwrap()["inputSchema"],
        input.json_schema.as_deref().unwrap()
    );
}

#[test]
fn a_call_without_a_worker_is_a_tool_error() {
    let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"show_shelf","arguments":{"shelf":"reading"}}}"#;
    let (replies, _) = session(&[&initialize("x", "2025-11-25"), call]);
    assert_eq!(replies[1]["id"], 2);
    assert_eq!(replies[1]["result"]["isError"], true, "{:#}", replies[1]);
}

const PING: &str = r#"{"jsonrpc":"2.0","id":8,"method":"ping"}"#;

#[test]
fn a_line_that_is_not_utf8_is_a_parse_error_and_the_next_request_is_answered() {
    let mut input = b"\xff\n".to_vec();
    input.extend_from_slice(PING.as_bytes());
    let (replies, _) = session_of(&input, 1024);
    assert_eq!(replies.len(), 2, "{replies:#?}");
    assert_eq!(replies[0]["error"]["code"], -32700);
    assert_eq!(replies[0]["id"], Value::Null);
    assert!(
        replies[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not UTF-8"),
        "{:#}",
        replies[0]
    );
    assert_eq!(replies[1], json!({"jsonrpc": "2.0", "id": 8, "result": {}}));
}

#[test]
fn a_line_over_the_limit_is_a_parse_error_and_the_next_request_is_answered() {
    let limit = PING.len();
    let mut input = format!("{PING}\n").into_bytes();
    input.extend_from_slice(format!("{PING} \n").as_bytes());
    input.extend_from_slice(PING.as_bytes());
    let (replies, _) = session_of(&input, limit);
    assert_eq!(replies.len(), 3, "{replies:#?}");
    // The transport answers the parse error itself, so it may come before the first pong.
    let (errors, pongs): (Vec<&Value>, Vec<&Value>) = replies
        .iter()
        .partition(|reply| reply.get("error").is_some());
    assert_eq!(
        pongs,
        [&json!({"jsonrpc": "2.0", "id": 8, "result": {}}); 2],
        "a message of exactly the limit is read, and so is the next one"
    );
    assert_eq!(errors[0]["error"]["code"], -32700);
    assert_eq!(errors[0]["id"], Value::Null);
    assert!(
        errors[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains(&format!("longer than {limit} bytes")),
        "{:#}",
        errors[0]
    );
}

/// The real binary on a pipe: a 100 MB line, written in 1 MiB pieces, is answered with a parse
/// error while the server's peak memory stays far below the line's size; the next request is
/// answered. The same through `--max-message-bytes` and its environment variable.
#[test]
fn a_100_mb_line_is_dropped_as_it_is_read_and_the_server_keeps_serving() {
    use std::io::{BufRead as _, BufReader, Write as _};
    use std::process::{Command, Stdio};

    let artifact = tempfile::tempdir().unwrap();
    std::fs::copy(
        repo().join("fixtures/manifests/curator.json"),
        artifact.path().join("abgen.manifest.json"),
    )
    .unwrap();
    let cases: [(&[&str], Option<&str>, usize, u64); 3] = [
        (&[], None, 100 * 1024 * 1024, 8 * 1024 * 1024),
        (
            &["--max-message-bytes", "1000"],
            None,
            100 * 1024 * 1024,
            1000,
        ),
        (&[], Some("1000"), 2000, 1000),
    ];
    for (flags, env, line_bytes, limit) in cases {
        let mut command = Command::new(env!("CARGO_BIN_EXE_abgen-host"));
        command
            .args(["mcp", "--server", "library", "--artifact"])
            .arg(artifact.path())
            .args(flags)
            .env_remove("ABGEN_MCP_MAX_MESSAGE_BYTES")
            // Its warm socket and lock stay in the test's own directory.
            .env("XDG_RUNTIME_DIR", artifact.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        if let Some(env) = env {
            command.env("ABGEN_MCP_MAX_MESSAGE_BYTES", env);
        }
        let mut child = command.spawn().unwrap();
        let pid = child.id();
        let mut stdin = child.stdin.take().unwrap();
        let writer = std::thread::spawn(move || {
            let piece = vec![b'x'; 1024 * 1024];
            let mut left = line_bytes;
            stdin.write_all(b"\"").unwrap();
            while left > 0 {
                let now = left.min(piece.len());
                stdin.write_all(&piece[..now]).unwrap();
                left -= now;
            }
            stdin.write_all(b"\"\n").unwrap();
            stdin.write_all(format!("{PING}\n").as_bytes()).unwrap();
            stdin
        });
        let mut replies = BufReader::new(child.stdout.take().unwrap()).lines();
        let error: Value = serde_json::from_str(&replies.next().unwrap().unwrap()).unwrap();
        assert_eq!(error["error"]["code"], -32700, "{error:#}");
        assert_eq!(error["id"], Value::Null);
        assert!(
            error["error"]["message"]
                .as_str()
                .unwrap()
                .contains(&format!("longer than {limit} bytes")),
            "{error:#}"
        );
        let pong: Value = serde_json::from_str(&replies.next().unwrap().unwrap()).unwrap();
        assert_eq!(pong, json!({"jsonrpc": "2.0", "id": 8, "result": {}}));
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
        let peak_kib: u64 = status
            .lines()
            .find_map(|line| line.strip_prefix("VmHWM:"))
            .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmHWM in /proc/PID/status");
        // The limit plus the binary's own few MiB; a line read whole would be 100 MiB.
        assert!(
            peak_kib * 1024 < limit + 32 * 1024 * 1024,
            "peak memory {peak_kib} KiB for a {line_bytes}-byte line with a {limit}-byte limit"
        );
        drop(writer.join().unwrap());
        assert!(child.wait().unwrap().success());
    }
}

/// The `_meta` a 2026-07-28 client sends with every request in place of `initialize`.
fn inline_meta(client: &str) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": client, "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

#[test]
fn server_discover_is_answered_and_the_2026_lifecycle_needs_no_initialize() {
    let discover = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover",
        "params": {"_meta": inline_meta("claude-code")}});
    let list = |id: u64, client: &str| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/list",
            "params": {"_meta": inline_meta(client)}})
        .to_string()
    };
    let (replies, _) = session(&[
        &discover.to_string(),
        &list(2, "inspector"),
        &list(3, "cursor-vscode"),
    ]);
    let reply = |id: u64| {
        replies
            .iter()
            .find(|reply| reply["id"] == id)
            .unwrap_or_else(|| panic!("no reply to {id}: {replies:#?}"))
    };
    let discovered = &reply(1)["result"];
    assert!(
        discovered["supportedVersions"]
            .as_array()
            .is_some_and(|versions| versions.contains(&json!("2026-07-28"))
                && versions.contains(&json!("2025-11-25"))),
        "{discovered:#}"
    );
    assert_eq!(
        discovered["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "curator"
    );
    assert!(discovered["capabilities"]["tools"].is_object());
    // Each request names its client, so each is listed for its own host.
    assert!(tool(reply(2), "export_bibliography").is_some());
    assert!(tool(reply(3), "export_bibliography").is_none());
}

#[test]
fn a_request_before_initialize_without_inline_metadata_is_refused_and_serving_goes_on() {
    let (replies, _) = session(&[
        LIST,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        &initialize("x", "2025-11-25"),
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/list"}"#,
    ]);
    let reply = |id: u64| replies.iter().find(|reply| reply["id"] == id).unwrap();
    assert_eq!(reply(1)["error"]["code"], -32602, "{replies:#?}");
    assert_eq!(reply(0)["result"]["protocolVersion"], "2025-11-25");
    assert!(tool(reply(5), "search_books").is_some(), "{replies:#?}");
}

/// The curator's manifest with `copies` more of each of its tool, prompt and resource routes
/// (each with a name and URI of its own), so every list is longer than a page.
fn crowded_manifest(copies: usize) -> abgen_runtime::manifest::Manifest {
    let mut manifest: Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("fixtures/manifests/curator.json")).unwrap(),
    )
    .unwrap();
    let routes = manifest["routes"].as_array().unwrap().clone();
    let pick = |id: &str| {
        routes
            .iter()
            .find(|route| route["id"] == id)
            .unwrap()
            .clone()
    };
    let mut added = Vec::new();
    for n in 0..copies {
        for (id, name) in [
            ("tool:library/search_books", format!("search_{n:03}")),
            ("prompt:library/review_request", format!("review_{n:03}")),
            ("resource:library/shelf", format!("shelf_{n:03}")),
            ("resource:library/shelf", format!("shelf_{n:03}_by_name")),
        ] {
            let mut route = pick(id);
            let kind = route["kind"].as_str().unwrap().to_owned();
            route["id"] = json!(format!("{kind}:library/{name}"));
            route["name"] = json!(name);
            route["wireName"] = json!(name);
            if kind == "resource" {
                // Half of the copies are templates, so resources/templates/list pages too.
                route["config"]["uri"] = if name.ends_with("_by_name") {
                    json!(format!("curator://{name}/{{shelf}}"))
                } else {
                    json!(format!("curator://{name}"))
                };
            }
            added.push(route);
        }
    }
    manifest["routes"].as_array_mut().unwrap().extend(added);
    let path = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(path.path(), manifest.to_string()).unwrap();
    read_manifest(path.path()).unwrap()
}

/// Pages through `method` from the first page: every item's `key`, and the requests it took.
fn all_pages(
    manifest: &abgen_runtime::manifest::Manifest,
    method: &str,
    items: &str,
    key: &str,
) -> (Vec<String>, usize) {
    let mut names = Vec::new();
    let mut cursor: Option<String> = None;
    for pages in 1..=20 {
        let params = cursor
            .as_ref()
            .map_or_else(|| json!({}), |cursor| json!({"cursor": cursor}));
        let request =
            json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string();
        let (replies, _) = serve_manifest(
            manifest.clone(),
            Cursor::new(
                [initialize("x", "2025-11-25"), request]
                    .join("\n")
                    .into_bytes(),
            ),
            DEFAULT_MAX_MESSAGE_BYTES,
            abgen_runtime::mcp::HEARTBEAT,
        );
        let result = &replies[1]["result"];
        let page = result[items]
            .as_array()
            .unwrap_or_else(|| panic!("{:#}", replies[1]));
        assert!(
            page.len() <= abgen_runtime::mcp::PAGE_SIZE,
            "{method}: a page of {}",
            page.len()
        );
        names.extend(
            page.iter()
                .map(|item| item[key].as_str().unwrap().to_owned()),
        );
        match result["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => return (names, pages),
        }
    }
    panic!("{method} never ended");
}

#[test]
fn every_list_pages_with_an_opaque_cursor() {
    let manifest = crowded_manifest(130);
    for (method, items, key, at_least) in [
        ("tools/list", "tools", "name", 135),
        ("prompts/list", "prompts", "name", 131),
        ("resources/list", "resources", "uri", 131),
        (
            "resources/templates/list",
            "resourceTemplates",
            "uriTemplate",
            130,
        ),
    ] {
        let (names, pages) = all_pages(&manifest, method, items, key);
        assert!(names.len() >= at_least, "{method}: {} items", names.len());
        assert_eq!(
            pages,
            names.len().div_ceil(abgen_runtime::mcp::PAGE_SIZE),
            "{method}"
        );
        let unique: std::collections::HashSet<_> = names.iter().collect();
        assert_eq!(unique.len(), names.len(), "{method}: an item on two pages");
    }
}

#[test]
fn an_invalid_cursor_is_invalid_params() {
    let manifest = crowded_manifest(130);
    // A cursor of tools/list handed to prompts/list, one past the end, and one that is not ours.
    let (tools, _) = serve_manifest(
        manifest.clone(),
        Cursor::new(
            [initialize("x", "2025-11-25"), LIST.to_owned()]
                .join("\n")
                .into_bytes(),
        ),
        DEFAULT_MAX_MESSAGE_BYTES,
        abgen_runtime::mcp::HEARTBEAT,
    );
    let tools_cursor = tools[1]["result"]["nextCursor"]
        .as_str()
        .unwrap()
        .to_owned();
    for (method, cursor) in [
        ("prompts/list", tools_cursor.as_str()),
        ("tools/list", "dG9vbHMvbGlzdDo5OTk5"),
        ("tools/list", "not-a-cursor"),
        ("resources/list", ""),
    ] {
        let request =
            json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": {"cursor": cursor}})
                .to_string();
        let (replies, _) = serve_manifest(
            manifest.clone(),
            Cursor::new(
                [initialize("x", "2025-11-25"), request]
                    .join("\n")
                    .into_bytes(),
            ),
            DEFAULT_MAX_MESSAGE_BYTES,
            abgen_runtime::mcp::HEARTBEAT,
        );
        assert_eq!(
            replies[1]["error"]["code"], -32602,
            "{method} {cursor}: {:#}",
            replies[1]
        );
        assert!(
            replies[1]["error"]["message"]
                .as_str()
                .unwrap()
                .contains("nextCursor"),
            "{:#}",
            replies[1]
        );
    }
    // The curator's own lists fit one page: no cursor at all.
    let (replies, _) = session(&[&initialize("x", "2025-11-25"), LIST]);
    assert!(
        replies[1]["result"].get("nextCursor").is_none(),
        "{:#}",
        replies[1]
    );
}

/// The curator's manifest with `search_books` open to tasks and `shelve_book` requiring one
/// (`tasks`), or with no tool that opted in (no `tasks`).
fn tasked_manifest(tasks: bool) -> abgen_runtime::manifest::Manifest {
    let mut manifest: Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("fixtures/manifests/curator.json")).unwrap(),
    )
    .unwrap();
    for route in manifest["routes"].as_array_mut().unwrap() {
        route["config"].as_object_mut().unwrap().remove("execution");
        let support = match route["id"].as_str().unwrap() {
            "tool:library/search_books" if tasks => "optional",
            "tool:library/shelve_book" if tasks => "required",
            _ => continue,
        };
        route["config"]["execution"] = json!({"taskSupport": support});
    }
    let path = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(path.path(), manifest.to_string()).unwrap();
    read_manifest(path.path()).unwrap()
}

fn tasked_session(lines: &[&str]) -> Vec<Value> {
    tasks_session(true, lines)
}

fn tasks_session(tasks: bool, lines: &[&str]) -> Vec<Value> {
    serve_manifest(
        tasked_manifest(tasks),
        Cursor::new(lines.join("\n").into_bytes()),
        DEFAULT_MAX_MESSAGE_BYTES,
        abgen_runtime::mcp::HEARTBEAT,
    )
    .0
}

fn reply(replies: &[Value], id: u64) -> &Value {
    replies
        .iter()
        .find(|reply| reply["id"] == id && reply.get("method").is_none())
        .unwrap_or_else(|| panic!("no reply to {id}: {replies:#?}"))
}

fn task_call(id: u64, tool: &str, meta: Option<Value>) -> String {
    let mut params = json!({"name": tool, "arguments": {"query": "x"}, "task": {"ttl": 1000}});
    if let Some(meta) = meta {
        params["_meta"] = meta;
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}).to_string()
}

#[test]
fn tasks_are_advertised_only_when_a_tool_opts_in_and_only_at_2025_11_25() {
    let replies = tasked_session(&[&initialize("x", "2025-11-25"), INITIALIZED, LIST]);
    assert_eq!(
        reply(&replies, 0)["result"]["capabilities"]["tasks"],
        json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}})
    );
    let listed = reply(&replies, 1);
    assert_eq!(
        tool(listed, "search_books").unwrap()["execution"],
        json!({"taskSupport": "optional"})
    );
    assert_eq!(
        tool(listed, "shelve_book").unwrap()["execution"],
        json!({"taskSupport": "required"})
    );
    assert!(
        tool(listed, "export_bibliography")
            .unwrap()
            .get("execution")
            .is_none()
    );

    // An earlier revision has no tasks: no capability, no execution.
    let replies = tasked_session(&[&initialize("x", "2025-06-18"), INITIALIZED, LIST]);
    assert!(
        reply(&replies, 0)["result"]["capabilities"]
            .get("tasks")
            .is_none()
    );
    assert!(
        tool(reply(&replies, 1), "search_books")
            .unwrap()
            .get("execution")
            .is_none()
    );

    // A server none of whose tools opted in advertises none, and answers a task-augmented call
    // as an ordinary one.
    let replies = tasks_session(
        false,
        &[
            &initialize("x", "2025-11-25"),
            INITIALIZED,
            &task_call(2, "search_books", None),
        ],
    );
    assert!(
        reply(&replies, 0)["result"]["capabilities"]
            .get("tasks")
            .is_none()
    );
    let answered = &reply(&replies, 2)["result"];
    assert!(
        answered.get("task").is_none() && answered["content"].is_array(),
        "{answered:#}"
    );
}

#[test]
fn task_calls_of_the_wrong_kind_and_unknown_ids_have_their_codes() {
    let get = |id: u64, method: &str, task: &str| {
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": {"taskId": task}})
            .to_string()
    };
    let ordinary_required = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "shelve_book", "arguments": {}}})
    .to_string();
    let replies = tasked_session(&[
        &initialize("x", "2025-11-25"),
        INITIALIZED,
        &task_call(2, "export_bibliography", None),
        &ordinary_required,
        &get(4, "tasks/get", "unknown"),
        &get(5, "tasks/result", "unknown"),
        &get(6, "tasks/cancel", "unknown"),
        &task_call(7, "search_books", Some(json!({"progressToken": "p"}))),
        r#"{"jsonrpc":"2.0","id":8,"method":"tasks/list","params":{"cursor":"bogus"}}"#,
    ]);
    assert_eq!(reply(&replies, 2)["error"]["code"], -32601, "{replies:#?}");
    assert_eq!(reply(&replies, 3)["error"]["code"], -32601, "{replies:#?}");
    for id in [4, 5, 6, 8] {
        assert_eq!(reply(&replies, id)["error"]["code"], -32602, "{replies:#?}");
    }
    let created = &reply(&replies, 7)["result"]["task"];
    assert_eq!(created["status"], "working", "{replies:#?}");
    assert_eq!(created["ttl"], 1000);
}

#[test]
fn a_2026_07_28_session_keeps_the_ordinary_contract() {
    let request = |id: u64, method: &str, params: Value| {
        let mut params = params;
        params["_meta"] = inline_meta("x");
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
    };
    let replies = tasked_session(&[
        &request(1, "server/discover", json!({})),
        &request(2, "tools/list", json!({})),
        &request(
            3,
            "tools/call",
            json!({"name": "search_books", "arguments": {"query": "x"}, "task": {}}),
        ),
        &request(
            4,
            "tools/call",
            json!({"name": "shelve_book", "arguments": {}}),
        ),
        &request(5, "tasks/get", json!({"taskId": "anything"})),
    ]);
    assert!(
        reply(&replies, 1)["result"]["capabilities"]
            .get("tasks")
            .is_none(),
        "{replies:#?}"
    );
    assert!(
        tool(reply(&replies, 2), "search_books")
            .unwrap()
            .get("execution")
            .is_none()
    );
    // The task-augmented call is an ordinary one, and so is the `required` tool's.
    for id in [3, 4] {
        let answered = &reply(&replies, id)["result"];
        assert!(
            answered.get("task").is_none() && answered["content"].is_array(),
            "{replies:#?}"
        );
    }
    assert_eq!(reply(&replies, 5)["error"]["code"], -32601, "{replies:#?}");
}
