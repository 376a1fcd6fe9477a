//! `abgen mcp list|invoke`: a minimal MCP client over stdio that starts a built artifact's own
//! `bin/abgen-host mcp --server ID` (as a host would), initializes, sends one request and closes
//! the server's input, which ends it. Entry: [`ask_server`].
//!
//! Invariant: the exchange is bounded: every read waits at most [`ANSWER_TIMEOUT`], and the
//! server is killed if it has not exited [`EXIT_GRACE`] after its input is closed.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

/// How long a server may take to answer one message.
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(60);

/// How long a server may take to exit once its input is closed.
const EXIT_GRACE: Duration = Duration::from_secs(10);

/// Why a server could not be asked.
#[derive(Debug, thiserror::Error)]
pub enum McpClientError {
    #[error("cannot start {path}: {source}; build the artifact first (`abgen build`)")]
    Start {
        path: String,
        source: std::io::Error,
    },
    #[error("the server `{server}` ended without answering{}", if .stderr.is_empty() { String::new() } else { format!(":\n{}", .stderr) })]
    Ended { server: String, stderr: String },
    #[error("the server `{server}` did not answer within {} s", ANSWER_TIMEOUT.as_secs())]
    Timeout { server: String },
    #[error("the server `{server}` answered {method} with an error: {message}")]
    Error {
        server: String,
        method: String,
        message: String,
    },
    #[error("{0}")]
    Usage(String),
}

/// The client name a host's MCP client reports (the first of its matrix prefixes), so the
/// server answers as it answers that host.
fn client_name(target: Option<&str>) -> Result<String, McpClientError> {
    let Some(target) = target else {
        return Ok("abgen-mcp".to_owned());
    };
    crate::matrix::host(target)
        .and_then(|host| host.mcp_client_prefixes.first().cloned())
        .ok_or_else(|| {
            McpClientError::Usage(format!(
                "`{target}` is no host with an MCP client (choose claude, codex or cursor)"
            ))
        })
}

/// Starts `<artifact>/bin/abgen-host mcp --server <server>`, initializes as `target`'s client,
/// sends `method` with `params` and returns the result.
pub fn ask_server(
    artifact: &Path,
    server: &str,
    target: Option<&str>,
    method: &str,
    params: Value,
) -> Result<Value, McpClientError> {
    let name = client_name(target)?;
    let host = artifact.join(crate::emit::HOST_BINARY_PATH);
    let mut child = Command::new(&host)
        .args(["mcp", "--server", server, "--artifact"])
        .arg(artifact)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| McpClientError::Start {
            path: host.display().to_string(),
            source,
        })?;
    let mut input = child.stdin.take().expect("stdin is piped");
    let output = child.stdout.take().expect("stdout is piped");
    let mut errors = child.stderr.take().expect("stderr is piped");
    let stderr = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut errors, &mut text);
        text
    });
    let (lines, answers) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(output).lines().map_while(Result::ok) {
            if lines.send(line).is_err() {
                break;
            }
        }
    });
    let mut send = |message: Value| {
        let _ = writeln!(input, "{message}");
        let _ = input.flush();
    };
    let await_answer = |id: u64| -> Result<Value, McpClientError> {
        loop {
            let line = answers
                .recv_timeout(ANSWER_TIMEOUT)
                .map_err(|error| match error {
                    mpsc::RecvTimeoutError::Timeout => McpClientError::Timeout {
                        server: server.to_owned(),
                    },
                    mpsc::RecvTimeoutError::Disconnected => McpClientError::Ended {
                        server: server.to_owned(),
                        stderr: String::new(),
                    },
                })?;
            let Ok(message) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            if message["id"] == json!(id) {
                return Ok(message);
            }
        }
    };
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": name, "version": env!("CARGO_PKG_VERSION")},
        }}),
    );
    let answered = await_answer(1).and_then(|initialized| {
        if let Some(error) = initialized.get("error") {
            return Err(McpClientError::Error {
                server: server.to_owned(),
                method: "initialize".to_owned(),
                message: error["message"].as_str().unwrap_or("").to_owned(),
            });
        }
        send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        send(json!({"jsonrpc": "2.0", "id": 2, "method": method, "params": params}));
        await_answer(2)
    });
    // Closing its input ends a stdio server (seed 002's lifecycle); one that lingers is killed.
    drop(input);
    let waited = std::time::Instant::now();
    while matches!(child.try_wait(), Ok(None)) && waited.elapsed() < EXIT_GRACE {
        std::thread::sleep(Duration::from_millis(20));
    }
    if matches!(child.try_wait(), Ok(None)) {
        let _ = child.kill();
    }
    let _ = child.wait();
    let stderr = stderr.join().unwrap_or_default();
    let answer = answered.map_err(|error| match error {
        McpClientError::Ended { server, .. } => McpClientError::Ended {
            server,
            stderr: stderr.trim_end().to_owned(),
        },
        other => other,
    })?;
    match answer.get("error") {
        Some(error) => Err(McpClientError::Error {
            server: server.to_owned(),
            method: method.to_owned(),
            message: error["message"].as_str().unwrap_or("").to_owned(),
        }),
        None => Ok(answer["result"].clone()),
    }
}
