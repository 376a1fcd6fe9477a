//! The host's own MCP client: one session with the plugin's MCP server, run in this process on
//! the same [`McpServer`] and kernel path as `abgen-host mcp`, spoken to over a pair of pipes in
//! the stdio line format.
//!
//! Who starts and ends what: [`McpSession::start`] starts the server's thread (which starts the
//! kernel and its Node workers at `initialize`) and a reader thread for its replies. Dropping the
//! session closes the server's input, so the server drains and returns and both threads end; on
//! SIGINT or SIGTERM the process's exit handler ends the workers before the process exits.

use std::collections::HashMap;
use std::io::{self, BufRead, BufReader, PipeWriter, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

use serde_json::{Value, json};
use tokio::sync::oneshot;

use crate::kernel::SharedKernel;
use crate::mcp::{Log, McpServer, ServerConfig};

/// What the server answered a request: its `result`, or its JSON-RPC `error` object as is.
pub type Reply = Result<Value, Value>;

type Pending = Arc<Mutex<HashMap<u64, oneshot::Sender<Reply>>>>;

/// One live MCP session with the plugin's server.
pub struct McpSession {
    writer: Arc<Mutex<Option<PipeWriter>>>,
    pending: Pending,
    next_id: AtomicU64,
    threads: Vec<JoinHandle<()>>,
}

impl McpSession {
    /// Starts `config`'s server on `kernel` in this process and connects to it (no handshake
    /// yet: [`McpSession::initialize`]).
    pub fn start(config: ServerConfig, kernel: Arc<SharedKernel>, log: Log) -> io::Result<Self> {
        let (server_input, to_server) = io::pipe()?;
        let (from_server, server_output) = io::pipe()?;
        let server = McpServer::new(config, kernel, Arc::clone(&log));
        let server_thread = std::thread::Builder::new()
            .name("abgen-web-mcp".into())
            .spawn(move || {
                if let Err(error) = server.serve(BufReader::new(server_input), server_output) {
                    log(format!("web: the MCP server stopped: {error}"));
                }
            })?;
        let writer = Arc::new(Mutex::new(Some(to_server)));
        let pending: Pending = Arc::default();
        let reader_thread = {
            let writer = Arc::clone(&writer);
            let pending = Arc::clone(&pending);
            std::thread::Builder::new()
                .name("abgen-web-replies".into())
                .spawn(move || read_replies(BufReader::new(from_server), &writer, &pending))?
        };
        Ok(Self {
            writer,
            pending,
            next_id: AtomicU64::new(1),
            threads: vec![server_thread, reader_thread],
        })
    }

    /// The MCP handshake: `initialize` as a client that renders MCP Apps, then `initialized`.
    pub async fn initialize(&self) -> Result<Value, String> {
        let result = self
            .request(
                "initialize",
                json!({
                    "protocolVersion": "2025-11-25",
                    "capabilities": {"extensions": {"io.modelcontextprotocol/ui": {
                        "mimeTypes": ["text/html;profile=mcp-app"]
                    }}},
                    "clientInfo": {"name": "abgen-host-web", "version": env!("CARGO_PKG_VERSION")},
                }),
                None,
            )
            .await
            .map_err(|error| describe(&error))?;
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .map_err(|error| format!("cannot write to the MCP server: {error}"))?;
        Ok(result)
    }

    /// Sends `method` and waits for its reply. When `cancel` fires first, the server is sent
    /// `notifications/cancelled` for the request and the reply is an error saying so.
    pub async fn request(
        &self,
        method: &str,
        params: Value,
        cancel: Option<oneshot::Receiver<()>>,
    ) -> Reply {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (sender, receiver) = oneshot::channel();
        self.pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id, sender);
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        if let Err(error) = self.send(&message) {
            self.forget(id);
            return Err(rpc_error(
                -32603,
                &format!("cannot write to the MCP server: {error}"),
            ));
        }
        let cancelled = async {
            match cancel {
                Some(cancel) => {
                    // A dropped sender is no cancel: wait for the reply instead.
                    if cancel.await.is_err() {
                        std::future::pending::<()>().await;
                    }
                }
                None => std::future::pending::<()>().await,
            }
        };
        tokio::select! {
            reply = receiver => reply.unwrap_or_else(|_| Err(rpc_error(-32603, "the MCP server ended"))),
            () = cancelled => {
                self.forget(id);
                let _ = self.send(&json!({
                    "jsonrpc": "2.0",
                    "method": "notifications/cancelled",
                    "params": {"requestId": id, "reason": "cancelled by the App"},
                }));
                Err(rpc_error(-32800, "cancelled by the App"))
            }
        }
    }

    fn forget(&self, id: u64) {
        self.pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&id);
    }

    fn send(&self, message: &Value) -> io::Result<()> {
        write_line(&self.writer, message)
    }
}

impl Drop for McpSession {
    fn drop(&mut self) {
        // The server's input ends: it drains its calls and returns, and the reader sees the end.
        self.writer
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

fn write_line(writer: &Mutex<Option<PipeWriter>>, message: &Value) -> io::Result<()> {
    let mut writer = writer.lock().unwrap_or_else(PoisonError::into_inner);
    let Some(writer) = writer.as_mut() else {
        return Err(io::Error::new(
            io::ErrorKind::BrokenPipe,
            "the session ended",
        ));
    };
    let mut line = serde_json::to_vec(message)?;
    line.push(b'\n');
    writer.write_all(&line)?;
    writer.flush()
}

/// Hands each reply to its request; answers the server's own requests (`ping`, and refuses the
/// rest: this client offers no roots, sampling or elicitation). Ends with the server's output,
/// and every request still waiting then hears that the server ended.
fn read_replies(from_server: impl BufRead, writer: &Mutex<Option<PipeWriter>>, pending: &Pending) {
    for line in from_server.lines() {
        let Ok(line) = line else { break };
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let id = message.get("id");
        if let Some(method) = message.get("method").and_then(Value::as_str) {
            if let Some(id) = id {
                let reply = if method == "ping" {
                    json!({"jsonrpc": "2.0", "id": id, "result": {}})
                } else {
                    json!({"jsonrpc": "2.0", "id": id, "error": rpc_error(-32601, "this host offers no client features")})
                };
                let _ = write_line(writer, &reply);
            }
            continue;
        }
        let Some(id) = id.and_then(Value::as_u64) else {
            continue;
        };
        let waiting = pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&id);
        if let Some(waiting) = waiting {
            let reply = match message.get("error") {
                Some(error) => Err(error.clone()),
                None => Ok(message.get("result").cloned().unwrap_or(Value::Null)),
            };
            let _ = waiting.send(reply);
        }
    }
    pending
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clear();
}

/// A JSON-RPC error object.
pub fn rpc_error(code: i64, message: &str) -> Value {
    json!({"code": code, "message": message})
}

/// A JSON-RPC error object as one line of text.
pub fn describe(error: &Value) -> String {
    match error.get("message").and_then(Value::as_str) {
        Some(message) => message.to_owned(),
        None => error.to_string(),
    }
}
