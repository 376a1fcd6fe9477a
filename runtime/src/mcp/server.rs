//! Request dispatch of the MCP server: lifecycle, `tools/list`, `tools/call`.
//!
//! Requests are answered one at a time, in order: a `tools/call` blocks the loop while its render
//! runs, its progress notifications written as the events arrive. That is also why
//! `notifications/cancelled` is accepted and ignored: it can only be read once the render it names
//! has already finished.

use std::io::{self, BufRead, Write};
use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Value, json};

use super::tools::{ClientHost, client_host, excluded, server_tools, tool_definition};
use super::transport::{
    INVALID_PARAMS, INVALID_REQUEST, Incoming, METHOD_NOT_FOUND, PARSE_ERROR, error, notification,
    read_message, result, write_message,
};
use crate::document::{DocumentLimits, RenderEvent, RenderEventKind};
use crate::manifest::{Manifest, REACT_VERSION, Route};
use crate::project::mcp::{McpOptions, McpProgress, call_tool_result};
use crate::worker::{
    self, RenderLimits, RenderRequest, SupervisedWorker, WORKER_PROTOCOL, WorkerConfig,
    WorkerIdentity, locate_node,
};

/// The protocol version answered when the client asks for one this server does not know.
pub const LATEST_PROTOCOL_VERSION: &str = "2025-11-25";
/// Versions whose messages this server's subset (tools, progress) reads and writes alike.
const SUPPORTED_PROTOCOL_VERSIONS: [&str; 4] =
    ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
/// Where `abgen build` puts the bundled render worker in every artifact.
const WORKER_ENTRY: &str = "runtime/worker.mjs";
/// Time for Node to start and say hello (the worker's start has its own deadline).
const START_ALLOWANCE: Duration = Duration::from_secs(20);
/// Time past a render's own limit for the worker to report that it hit it; a worker that does not
/// (it busy-loops) is killed then, so a call never blocks the session much longer than its limit.
const REPLY_ALLOWANCE: Duration = Duration::from_secs(2);

/// What one server process serves.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// The artifact root, holding the manifest and `runtime/worker.mjs`.
    pub artifact: PathBuf,
    pub manifest: Manifest,
    /// The manifest server id.
    pub server: String,
    /// The longest incoming message, in bytes; a longer line is a parse error, dropped unread.
    pub max_message_bytes: usize,
}

/// One MCP session over one input and output stream.
pub struct McpServer {
    config: ServerConfig,
    client_name: String,
    host: Option<ClientHost>,
    /// Started by the first `tools/call`, reused by the next ones.
    worker: Option<SupervisedWorker>,
    next_render: u64,
}

impl McpServer {
    pub fn new(config: ServerConfig) -> Self {
        Self {
            config,
            client_name: String::new(),
            host: None,
            worker: None,
            next_render: 1,
        }
    }

    /// Serves until the input ends. Returns an error only when the output cannot be written.
    pub fn serve(
        &mut self,
        input: &mut impl BufRead,
        output: &mut impl Write,
        log: &mut dyn FnMut(String),
    ) -> io::Result<()> {
        loop {
            let message = match read_message(input, self.config.max_message_bytes) {
                Incoming::End => return Ok(()),
                Incoming::Malformed(reason) => {
                    write_message(
                        output,
                        &error(&Value::Null, PARSE_ERROR, format!("parse error: {reason}")),
                    )?;
                    continue;
                }
                Incoming::Message(message) => message,
            };
            if let Some(reply) = self.handle(&message, output, log)? {
                write_message(output, &reply)?;
            }
        }
    }

    /// The reply to one message, if it needs one (notifications and responses do not).
    fn handle(
        &mut self,
        message: &Value,
        output: &mut impl Write,
        log: &mut dyn FnMut(String),
    ) -> io::Result<Option<Value>> {
        let Some(object) = message.as_object() else {
            return Ok(Some(error(
                &Value::Null,
                INVALID_REQUEST,
                "not a JSON-RPC message",
            )));
        };
        let id = object.get("id").cloned();
        let Some(method) = object.get("method").and_then(Value::as_str) else {
            // A response to a request this server never sends, or garbage without an id.
            return Ok(id
                .filter(|_| !object.contains_key("result") && !object.contains_key("error"))
                .map(|id| error(&id, INVALID_REQUEST, "a request needs a method")));
        };
        let params = object.get("params").cloned().unwrap_or(Value::Null);
        let Some(id) = id else {
            // Notifications: `initialized` and `cancelled` need no action (see the module doc);
            // unknown ones are ignored, as JSON-RPC requires.
            return Ok(None);
        };
        let reply = match method {
            "initialize" => result(&id, self.initialize(&params)),
            "ping" => result(&id, json!({})),
            "tools/list" => result(&id, self.list_tools(log)),
            "tools/call" => match self.call_tool(&params, output)? {
                Ok(value) => result(&id, value),
                Err(message) => error(&id, INVALID_PARAMS, message),
            },
            other => error(&id, METHOD_NOT_FOUND, format!("method not found: {other}")),
        };
        Ok(Some(reply))
    }

    fn initialize(&mut self, params: &Value) -> Value {
        self.client_name = params["clientInfo"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        self.host = client_host(&self.client_name);
        let asked = params["protocolVersion"].as_str().unwrap_or_default();
        let version = SUPPORTED_PROTOCOL_VERSIONS
            .into_iter()
            .find(|version| *version == asked)
            .unwrap_or(LATEST_PROTOCOL_VERSION);
        let application = &self.config.manifest.application;
        json!({
            "protocolVersion": version,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": application.name, "version": application.version},
        })
    }

    fn visible_tools(&self) -> Vec<&Route> {
        server_tools(&self.config.manifest, &self.config.server)
            .into_iter()
            .filter(|route| !excluded(route, &self.client_name, self.host.as_ref()))
            .collect()
    }

    fn list_tools(&self, log: &mut dyn FnMut(String)) -> Value {
        let tools: Vec<Value> = self
            .visible_tools()
            .into_iter()
            .map(|route| tool_definition(route, self.host.as_ref(), log))
            .collect();
        json!({ "tools": tools })
    }

    /// The `CallToolResult`, or the invalid-params message of a request naming no known tool.
    fn call_tool(
        &mut self,
        params: &Value,
        output: &mut impl Write,
    ) -> io::Result<Result<Value, String>> {
        let Some(name) = params["name"].as_str() else {
            return Ok(Err("tools/call needs a string `name`".into()));
        };
        let Some(route) = self
            .visible_tools()
            .into_iter()
            .find(|route| route.wire_name.as_deref() == Some(name))
            .cloned()
        else {
            return Ok(Err(format!("unknown tool: {name}")));
        };
        let arguments = match &params["arguments"] {
            Value::Null => json!({}),
            arguments => arguments.clone(),
        };
        let options = McpOptions {
            progress_token: params["_meta"]["progressToken"]
                .as_str()
                .map(Value::from)
                .or_else(|| params["_meta"]["progressToken"].as_i64().map(Value::from)),
            accepts_image: self.accepts("image"),
            accepts_audio: self.accepts("audio"),
            rich_fallback: false,
        };
        let events = match self.render(&route, arguments, &options, output)? {
            Ok(events) => events,
            Err(message) => return Ok(Ok(tool_error(&message))),
        };
        let document = events.iter().rev().find_map(|event| match &event.kind {
            RenderEventKind::Complete { document } => Some(document),
            _ => None,
        });
        let value = match document.map(|document| call_tool_result(document, &options)) {
            Some(Ok(value)) => value,
            Some(Err(projection)) => tool_error(&projection.to_string()),
            None => tool_error("the render never completed"),
        };
        Ok(Ok(value))
    }

    /// An unknown client takes rich content; only a host's matrix row can say it does not.
    fn accepts(&self, kind: &str) -> bool {
        self.host
            .as_ref()
            .is_none_or(|host| host.rich_content.iter().any(|rich| rich == kind))
    }

    /// Renders `route` on the session's worker (or says why it cannot start), writing progress notifications as they come.
    fn render(
        &mut self,
        route: &Route,
        input: Value,
        options: &McpOptions,
        output: &mut impl Write,
    ) -> io::Result<Result<Vec<RenderEvent>, String>> {
        let manifest = &self.config.manifest;
        let max_elapsed_ms = route
            .config
            .get("render")
            .and_then(|render| render.get("maxElapsedMs"))
            .and_then(Value::as_u64)
            .unwrap_or(manifest.limits.render.max_elapsed_ms);
        let request = RenderRequest {
            id: self.next_render,
            route: route.id.clone(),
            kind: worker::RouteKind::Tool,
            input,
            context: Default::default(),
            limits: RenderLimits {
                max_flight_bytes: Some(manifest.limits.render.max_bytes),
                max_elapsed_ms: Some(max_elapsed_ms),
            },
        };
        self.next_render += 1;
        let limits = DocumentLimits {
            max_bytes: usize::try_from(manifest.limits.render.max_bytes).unwrap_or(usize::MAX),
            ..DocumentLimits::default()
        };
        let worker = match &mut self.worker {
            Some(worker) => worker,
            None => match self.start_config() {
                Ok(config) => self.worker.insert(SupervisedWorker::new(config)),
                Err(message) => return Ok(Err(message)),
            },
        };
        let mut progress = McpProgress::new(options.progress_token.clone());
        let mut events = Vec::new();
        let mut written = Ok(());
        // A worker failure is already a failed `complete` among the events.
        let _ = worker.render_events(
            &request,
            limits,
            Duration::from_millis(max_elapsed_ms) + REPLY_ALLOWANCE,
            |event| {
                for params in progress.on_event(&event) {
                    if written.is_ok() {
                        written =
                            write_message(output, &notification("notifications/progress", params));
                    }
                }
                events.push(event);
            },
        );
        written.map(|()| Ok(events))
    }

    fn start_config(&self) -> Result<WorkerConfig, String> {
        let entry = self.config.artifact.join(WORKER_ENTRY);
        if !entry.is_file() {
            return Err(format!(
                "the artifact has no render worker at {}",
                entry.display()
            ));
        }
        let node = locate_node().map_err(|error| error.to_string())?;
        Ok(WorkerConfig {
            node,
            entry,
            expected: WorkerIdentity {
                protocol: WORKER_PROTOCOL,
                react: REACT_VERSION.to_owned(),
                artifact: self.config.manifest.digest.clone(),
            },
            hello_timeout: START_ALLOWANCE,
        })
    }
}

/// A tool execution error: per MCP a result the model can read, not a protocol error.
fn tool_error(message: &str) -> Value {
    json!({"content": [{"type": "text", "text": message}], "isError": true})
}
