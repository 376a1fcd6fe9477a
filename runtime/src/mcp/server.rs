//! Request dispatch of the MCP server: lifecycle, `tools/list`, `tools/call`.
//!
//! The reader (the thread that calls [`McpServer::serve`]) reads one message after another and
//! never waits for a render: `ping`, `initialize` and `tools/list` are answered at once, and each
//! `tools/call` is handed to the kernel and followed by a thread of its own, which writes the
//! call's progress notifications and result as they come. `notifications/cancelled` cancels the
//! named call through the kernel; nothing of that call is written after it. When the input ends,
//! the calls in flight finish (each within its render limit) before `serve` returns.

use std::collections::HashMap;
use std::io::{self, BufRead, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use super::tools::{ClientHost, client_host, excluded, server_tools, tool_definition};
use super::transport::{
    INVALID_PARAMS, INVALID_REQUEST, Incoming, METHOD_NOT_FOUND, PARSE_ERROR, error, notification,
    read_message, result, write_message,
};
use crate::document::RenderEventKind;
use crate::kernel::{Cancel, Invocation, Kernel, Next, SharedKernel};
use crate::manifest::{Manifest, Route};
use crate::project::mcp::{McpOptions, McpProgress, call_tool_result};
use crate::worker::{self, RenderLimits};

/// The protocol version answered when the client asks for one this server does not know.
pub const LATEST_PROTOCOL_VERSION: &str = "2025-11-25";
/// Versions whose messages this server's subset (tools, progress) reads and writes alike.
const SUPPORTED_PROTOCOL_VERSIONS: [&str; 4] =
    ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
/// Time for Node to start and say hello (the worker's start has its own deadline).
pub const START_ALLOWANCE: Duration = Duration::from_secs(20);
/// Time past a render's own limit for the worker to report that it hit it; a worker that does not
/// (it busy-loops) is killed then, so a call never runs much longer than its limit.
const REPLY_ALLOWANCE: Duration = Duration::from_secs(2);
/// A call's thread only forwards events: a small stack is plenty.
const CALL_THREAD_STACK: usize = 256 * 1024;
/// How long calls in flight may take to answer once the input has ended (seed 002's bounded
/// shutdown); those still running then are cancelled.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);
/// The default interval of the stderr heartbeat (seed 002: five minutes).
pub const HEARTBEAT: Duration = Duration::from_secs(300);
/// At most one activity line per this interval (seed 002: sixty seconds).
const ACTIVITY_THROTTLE: Duration = Duration::from_secs(60);

/// Where the server's stderr lines go; called from the reader and the heartbeat thread.
pub type Log<'a> = dyn Fn(String) + Sync + 'a;

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
    /// How often the server says on stderr that it is alive ([`HEARTBEAT`]).
    pub heartbeat: Duration,
}

/// Who the client said it is at `initialize`.
#[derive(Debug, Clone, Default)]
struct Client {
    name: String,
    host: Option<ClientHost>,
}

/// One MCP session over one input and output stream.
pub struct McpServer {
    config: ServerConfig,
    /// Set by `initialize`; read by each call's thread.
    client: Mutex<Client>,
    /// The artifact's kernel, shared by every call and by the process's warm host; started at
    /// `initialize` unless a hook started it first.
    kernel: Arc<SharedKernel>,
    /// The cancel handle of each call in flight, by its request id (as JSON text).
    in_flight: Mutex<HashMap<String, Cancel>>,
    /// Calls answered so far, and when the last activity line was logged.
    activity: Mutex<Activity>,
}

#[derive(Debug, Default)]
struct Activity {
    answered: u64,
    logged: Option<Instant>,
}

/// A `tools/call` ready to render: everything its thread needs.
struct Call {
    id: Value,
    route: Route,
    arguments: Value,
    options: McpOptions,
    /// The request-context axes this server observed (the worker protocol's `context`).
    context: Map<String, Value>,
}

impl McpServer {
    /// A session of `config` rendering on `kernel` (see [`SharedKernel::for_artifact`]).
    pub fn new(config: ServerConfig, kernel: Arc<SharedKernel>) -> Self {
        Self {
            config,
            client: Mutex::new(Client::default()),
            kernel,
            in_flight: Mutex::new(HashMap::new()),
            activity: Mutex::new(Activity::default()),
        }
    }

    /// Serves until the input ends and every call in flight has answered. Returns an error only
    /// when the output cannot be written.
    pub fn serve(
        &self,
        input: &mut impl BufRead,
        output: &mut (impl Write + Send),
        log: &Log<'_>,
    ) -> io::Result<()> {
        let output = Mutex::new(output);
        let stopped = (Mutex::new(false), std::sync::Condvar::new());
        std::thread::scope(|scope| {
            let heartbeat = std::thread::Builder::new()
                .name("abgen-mcp-heartbeat".into())
                .stack_size(CALL_THREAD_STACK)
                .spawn_scoped(scope, || self.heartbeat(&stopped, log));
            if let Err(spawn_error) = heartbeat {
                log(format!(
                    "mcp {}: no heartbeat: {spawn_error}",
                    self.config.server
                ));
            }
            let served = self.read_messages(scope, input, &output, log);
            // The input ended or the output broke: calls in flight get their grace, then the
            // heartbeat stops and the scope waits for the last call threads.
            self.shut_down();
            *stopped.0.lock().unwrap_or_else(PoisonError::into_inner) = true;
            stopped.1.notify_all();
            served
        })
    }

    /// Reads and dispatches messages until the input ends (`Ok`) or the output breaks.
    fn read_messages<'scope, W: Write + Send>(
        &'scope self,
        scope: &'scope std::thread::Scope<'scope, '_>,
        input: &mut impl BufRead,
        output: &'scope Mutex<W>,
        log: &Log<'_>,
    ) -> io::Result<()> {
        let write = |message: &Value| {
            let mut output = output.lock().unwrap_or_else(PoisonError::into_inner);
            write_message(&mut *output, message)
        };
        loop {
            let message = match read_message(input, self.config.max_message_bytes) {
                Incoming::End => return Ok(()),
                Incoming::Malformed(reason) => {
                    write(&error(
                        &Value::Null,
                        PARSE_ERROR,
                        format!("parse error: {reason}"),
                    ))?;
                    continue;
                }
                Incoming::Message(message) => message,
            };
            match self.handle(&message, log) {
                Handled::Reply(reply) => write(&reply)?,
                Handled::Nothing => {}
                Handled::Cancel(request) => self.cancel(&request, output),
                Handled::Call(call) => {
                    self.note_activity(&call.route, log);
                    let key = call.id.to_string();
                    let cancel = Cancel::new();
                    self.in_flight
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .insert(key.clone(), cancel.clone());
                    let spawned = std::thread::Builder::new()
                        .name("abgen-mcp-call".into())
                        .stack_size(CALL_THREAD_STACK)
                        .spawn_scoped(scope, move || self.run_call(*call, cancel, output));
                    if let Err(spawn_error) = spawned {
                        self.in_flight
                            .lock()
                            .unwrap_or_else(PoisonError::into_inner)
                            .remove(&key);
                        write(&error(
                            &Value::Null,
                            INVALID_REQUEST,
                            format!("cannot serve the call: {spawn_error}"),
                        ))?;
                    }
                }
            }
        }
    }

    /// Once the input has ended: calls in flight get [`SHUTDOWN_GRACE`] to answer, then the rest
    /// are cancelled (a wedged route never holds the process).
    fn shut_down(&self) {
        let until = Instant::now() + SHUTDOWN_GRACE;
        loop {
            let in_flight = self
                .in_flight
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if in_flight.is_empty() {
                return;
            }
            if Instant::now() >= until {
                for cancel in in_flight.values() {
                    cancel.cancel("the client closed the server's input");
                }
                return;
            }
            drop(in_flight);
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Says on stderr, every `heartbeat`, that the server is alive, until `stopped` is set.
    fn heartbeat(&self, stopped: &(Mutex<bool>, std::sync::Condvar), log: &Log<'_>) {
        let mut done = stopped.0.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            let (guard, waited) = stopped
                .1
                .wait_timeout_while(done, self.config.heartbeat, |stop| !*stop)
                .unwrap_or_else(PoisonError::into_inner);
            done = guard;
            if !waited.timed_out() {
                return;
            }
            let in_flight = self
                .in_flight
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .len();
            let answered = self
                .activity
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .answered;
            log(format!(
                "mcp {}: alive; {in_flight} calls in flight, {answered} answered",
                self.config.server
            ));
        }
    }

    /// One stderr line for a call, at most every [`ACTIVITY_THROTTLE`].
    fn note_activity(&self, route: &Route, log: &Log<'_>) {
        let mut activity = self.activity.lock().unwrap_or_else(PoisonError::into_inner);
        if activity
            .logged
            .is_some_and(|logged| logged.elapsed() < ACTIVITY_THROTTLE)
        {
            return;
        }
        activity.logged = Some(Instant::now());
        log(format!(
            "mcp {}: tools/call {}",
            self.config.server, route.id
        ));
    }

    /// What to do with one message.
    fn handle(&self, message: &Value, log: &Log<'_>) -> Handled {
        let Some(object) = message.as_object() else {
            return Handled::Reply(error(
                &Value::Null,
                INVALID_REQUEST,
                "not a JSON-RPC message",
            ));
        };
        let id = object.get("id").cloned();
        let Some(method) = object.get("method").and_then(Value::as_str) else {
            // A response to a request this server never sends, or garbage without an id.
            return id
                .filter(|_| !object.contains_key("result") && !object.contains_key("error"))
                .map_or(Handled::Nothing, |id| {
                    Handled::Reply(error(&id, INVALID_REQUEST, "a request needs a method"))
                });
        };
        let params = object.get("params").cloned().unwrap_or(Value::Null);
        let Some(id) = id else {
            // Notifications: only `cancelled` needs action; unknown ones are ignored, as JSON-RPC
            // requires.
            return match (method, params.get("requestId")) {
                ("notifications/cancelled", Some(request)) => Handled::Cancel(request.clone()),
                _ => Handled::Nothing,
            };
        };
        match method {
            "initialize" => {
                let reply = result(&id, self.initialize(&params));
                // Node starts while the client reads the reply: the first call finds it ready.
                let _ = self.kernel();
                Handled::Reply(reply)
            }
            "ping" => Handled::Reply(result(&id, json!({}))),
            "tools/list" => Handled::Reply(result(&id, self.list_tools(log))),
            "tools/call" => match self.prepare_call(id.clone(), &params) {
                Ok(call) => Handled::Call(Box::new(call)),
                Err(message) => Handled::Reply(error(&id, INVALID_PARAMS, message)),
            },
            other => Handled::Reply(error(
                &id,
                METHOD_NOT_FOUND,
                format!("method not found: {other}"),
            )),
        }
    }

    fn initialize(&self, params: &Value) -> Value {
        let name = params["clientInfo"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        *self.client.lock().unwrap_or_else(PoisonError::into_inner) = Client {
            host: client_host(&name),
            name,
        };
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

    fn client(&self) -> Client {
        self.client
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn visible_tools(&self, client: &Client) -> Vec<&Route> {
        server_tools(&self.config.manifest, &self.config.server)
            .into_iter()
            .filter(|route| !excluded(route, &client.name, client.host.as_ref()))
            .collect()
    }

    fn list_tools(&self, log: &Log<'_>) -> Value {
        let client = self.client();
        let tools: Vec<Value> = self
            .visible_tools(&client)
            .into_iter()
            .map(|route| tool_definition(route, client.host.as_ref(), &mut |line| log(line)))
            .collect();
        json!({ "tools": tools })
    }

    /// The call to render, or the invalid-params message of a request naming no known tool.
    fn prepare_call(&self, id: Value, params: &Value) -> Result<Call, String> {
        let Some(name) = params["name"].as_str() else {
            return Err("tools/call needs a string `name`".into());
        };
        let client = self.client();
        let Some(route) = self
            .visible_tools(&client)
            .into_iter()
            .find(|route| route.wire_name.as_deref() == Some(name))
            .cloned()
        else {
            return Err(format!("unknown tool: {name}"));
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
            accepts_image: accepts(&client, "image"),
            accepts_audio: accepts(&client, "audio"),
            rich_fallback: false,
        };
        Ok(Call {
            id,
            route,
            arguments,
            options,
            context: observed_context(&client),
        })
    }

    /// Cancels the call `request` names, if it is still in flight. The output lock is held while
    /// the cancel is set, so no message of that call can be written after this returns.
    fn cancel<W: Write>(&self, request: &Value, output: &Mutex<W>) {
        let _output = output.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(cancel) = self
            .in_flight
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&request.to_string())
        {
            cancel.cancel("cancelled by the client");
        }
    }

    /// Renders `call` through the kernel on the call's own thread, writing its progress and its
    /// result; nothing once it is cancelled.
    fn run_call<W: Write>(&self, call: Call, cancel: Cancel, output: &Mutex<W>) {
        let id = call.id.clone();
        let reply = self.render_call(call, &cancel, output);
        let mut output = output.lock().unwrap_or_else(PoisonError::into_inner);
        self.in_flight
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&id.to_string());
        if let Some(reply) = reply
            && !cancel.is_cancelled()
        {
            // A broken output ends the session on the reader's next write.
            let _ = write_message(&mut *output, &result(&id, reply));
            self.activity
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .answered += 1;
        }
    }

    /// The `CallToolResult` of `call`, or `None` when it was cancelled.
    fn render_call<W: Write>(
        &self,
        call: Call,
        cancel: &Cancel,
        output: &Mutex<W>,
    ) -> Option<Value> {
        let kernel = match self.kernel() {
            Ok(kernel) => kernel,
            Err(message) => return Some(tool_error(message)),
        };
        let limits = &self.config.manifest.limits.render;
        let max_elapsed_ms = call
            .route
            .config
            .get("render")
            .and_then(|render| render.get("maxElapsedMs"))
            .and_then(Value::as_u64)
            .unwrap_or(limits.max_elapsed_ms);
        let invocation = Invocation {
            kind: worker::RouteKind::Tool,
            route: call.route.id.clone(),
            input: call.arguments,
            context: call.context,
            limits: RenderLimits {
                max_flight_bytes: Some(limits.max_bytes),
                max_elapsed_ms: Some(max_elapsed_ms),
            },
        };
        let deadline = Instant::now()
            + Duration::from_millis(max_elapsed_ms)
            + REPLY_ALLOWANCE
            + START_ALLOWANCE;
        let rendering = match kernel.render(invocation, cancel.clone(), deadline) {
            Ok(rendering) => rendering,
            Err(refused) => return Some(tool_error(&format!("[{}] {refused}", refused.code()))),
        };
        let mut progress = McpProgress::new(call.options.progress_token.clone());
        loop {
            let event = match rendering.next_until(deadline + REPLY_ALLOWANCE) {
                Next::Event(event) => event,
                Next::Ended => return None,
                Next::Pending => return Some(tool_error("the render never completed")),
            };
            for params in progress.on_event(&event) {
                let mut output = output.lock().unwrap_or_else(PoisonError::into_inner);
                if cancel.is_cancelled() {
                    return None;
                }
                let _ = write_message(
                    &mut *output,
                    &notification("notifications/progress", params),
                );
            }
            if let RenderEventKind::Complete { document } = &event.kind {
                return Some(match call_tool_result(document, &call.options) {
                    Ok(value) => value,
                    Err(projection) => tool_error(&projection.to_string()),
                });
            }
        }
    }

    /// The session's kernel, started on first use.
    fn kernel(&self) -> Result<&Kernel, &str> {
        self.kernel.get()
    }
}

/// What an MCP session observes of a call's context: the host, derived from the client's name
/// through the matrix's prefixes; nothing else (stdio carries no session or workspace).
fn observed_context(client: &Client) -> Map<String, Value> {
    let host = match &client.host {
        Some(host) => json!({"state": "available", "value": host.host, "source": "derived"}),
        None => json!({
            "state": "unavailable",
            "code": "not-reported",
            "reason": format!("the MCP client `{}` names no known host", client.name),
        }),
    };
    Map::from_iter([("host".to_owned(), host)])
}

/// An unknown client takes rich content; only a host's matrix row can say it does not.
fn accepts(client: &Client, kind: &str) -> bool {
    client
        .host
        .as_ref()
        .is_none_or(|host| host.rich_content.iter().any(|rich| rich == kind))
}

/// What the reader does with one message.
enum Handled {
    Reply(Value),
    Nothing,
    /// `notifications/cancelled` for this request id.
    Cancel(Value),
    Call(Box<Call>),
}

/// A tool execution error: per MCP a result the model can read, not a protocol error.
fn tool_error(message: &str) -> Value {
    json!({"content": [{"type": "text", "text": message}], "isError": true})
}
