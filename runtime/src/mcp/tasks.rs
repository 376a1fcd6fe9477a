//! MCP 2025-11-25 tasks (seed 002 §Long-running tools: tasks): a tool that opts in with
//! `execution.taskSupport` may be called task-augmented; the call answers a `CreateTaskResult` at
//! once and its render goes on, through the kernel like any call, while the client polls
//! `tasks/get`, blocks on `tasks/result`, pages `tasks/list` and may `tasks/cancel`.
//!
//! Decision: rmcp 3.11 models only the 2026-07-28 tasks extension (SEP-2663: `ttlMs`,
//! `tasks/update`, no `tasks/result`, and `tasks/get` refused unless both sides declare that
//! extension); its `ServerCapabilities` has no `tasks` member, its `Tool` no `execution`, and its
//! `tools/call` params drop `task`. So, on a server that offers tasks, the transports route the
//! requests rmcp's types cannot answer to [`Session`] as custom methods ([`route`]), where the
//! handler sees them whole, and add the `tasks` capability to a 2025-11-25 initialize result
//! ([`advertise_tasks`]); `tasks/result` and `tasks/list` reach it as custom methods anyway. A
//! session on any other revision (the 2026-07-28 one has no such tasks; earlier ones have none)
//! keeps the ordinary contract: no capability, no `execution`, every call an ordinary one, a
//! `required` tool's too.
//!
//! Who starts and ends what: a task-augmented call spawns its render on the session's runtime;
//! it ends when the render settles, when `tasks/cancel` cancels it, or when the session ends
//! ([`Session`]'s drop over HTTP; over stdio [`Tasks::end`], which also waits, bounded, for the
//! renders to stop while the session's runtime still drives them), its render cancelled through
//! the kernel. A settled task's record stays for its ttl, then is forgotten.
//!
//! Invariant: a task's status changes only from `working`, once; a terminal task never changes.

// `logging/setLevel` passes through to the server, which serves it to 2025-11-25 and before.
#![expect(
    deprecated,
    reason = "logging is part of the protocol revisions this server serves"
)]

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CompleteRequestParams, CompleteResult, CustomRequest,
    CustomResult, GetPromptRequestParams, GetPromptResponse, InitializeRequestParams,
    InitializeResult, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
    SetLevelRequestParams,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler};
use serde_json::{Map, Value, json};

use super::server::{McpServer, page};
use crate::manifest::{Manifest, Route, RouteKind};

/// The most task records one session holds, working and settled alike (seed 002).
pub const MAX_TASKS: usize = 256;
/// The `_meta` key that ties a message to its task.
pub(super) const RELATED_TASK_META: &str = "io.modelcontextprotocol/related-task";
/// Where `tasks/get` says how far the task's render has got.
const PROGRESS_META: &str = "abgen.dev/progress";
/// The one protocol revision whose tasks this server serves.
const TASKS_REVISION: &str = "2025-11-25";
/// How long a settled task stays when the client names no ttl.
pub const DEFAULT_TTL: Duration = Duration::from_secs(300);
/// The longest a settled task stays, whatever the client asks (reported as the task's ttl).
pub const MAX_TTL: Duration = Duration::from_secs(24 * 60 * 60);
/// How often a client is asked to poll `tasks/get`.
const POLL_INTERVAL: Duration = Duration::from_millis(500);

/// How a tool may run, from its `config.execution.taskSupport` (the manifest's, version 7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskSupport {
    /// Every call is an ordinary request (also when the tool says nothing).
    Forbidden,
    /// A client may ask for a task.
    Optional,
    /// An ordinary call is refused (-32601).
    Required,
}

/// The task support `route` declares.
pub fn task_support(route: &Route) -> TaskSupport {
    match route
        .config
        .get("execution")
        .and_then(|execution| execution.get("taskSupport"))
        .and_then(Value::as_str)
    {
        Some("optional") => TaskSupport::Optional,
        Some("required") => TaskSupport::Required,
        _ => TaskSupport::Forbidden,
    }
}

/// Whether any tool of `server` opted in, and so whether it serves tasks at all.
pub fn offers_tasks(manifest: &Manifest, server: &str) -> bool {
    super::tools::server_routes(manifest, server, RouteKind::Tool)
        .into_iter()
        .any(|route| task_support(route) != TaskSupport::Forbidden)
}

/// The `tasks` capability of a server that serves them.
fn tasks_capability() -> Value {
    json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}})
}

/// Adds the `tasks` capability to `message` when it is the result of an `initialize` that
/// agreed on 2025-11-25 (the one revision whose tasks are served).
pub(super) fn advertise_tasks(message: &mut Value) {
    let Some(result) = message.get_mut("result") else {
        return;
    };
    if result.get("protocolVersion").and_then(Value::as_str) != Some(TASKS_REVISION)
        || result.get("serverInfo").is_none()
    {
        return;
    }
    if let Some(capabilities) = result
        .get_mut("capabilities")
        .and_then(Value::as_object_mut)
    {
        capabilities.insert("tasks".to_owned(), tasks_capability());
    }
}

/// JSON-RPC's method not found (-32601), which tasks use for a call of the wrong kind.
fn method_not_found(message: String) -> ErrorData {
    ErrorData::new(rmcp::model::ErrorCode::METHOD_NOT_FOUND, message, None)
}

/// [`advertise_tasks`] in an HTTP response body frame: a JSON message, or SSE events whose
/// `data:` lines are messages. `None` when nothing in it changes.
pub(super) fn advertise_tasks_in_body(frame: &[u8]) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(frame).ok()?;
    let advertised = |json: &str| {
        let mut message = serde_json::from_str::<Value>(json).ok()?;
        let before = message.clone();
        advertise_tasks(&mut message);
        (message != before).then(|| message.to_string())
    };
    if let Some(message) = advertised(text) {
        return Some(message.into_bytes());
    }
    let mut changed = false;
    let lines: Vec<String> = text
        .split('\n')
        .map(|line| {
            match line
                .strip_prefix("data:")
                .and_then(|data| advertised(data.trim()))
            {
                Some(message) => {
                    changed = true;
                    format!("data: {message}")
                }
                None => line.to_owned(),
            }
        })
        .collect();
    changed.then(|| lines.join("\n").into_bytes())
}

/// Whether `context`'s request belongs to a session on the revision whose tasks are served.
fn on_tasks_revision(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|version| version.as_str() == TASKS_REVISION)
}

/// The ttl a task-augmented call asked for (`params.task.ttl`, milliseconds), if any.
fn requested_ttl(params: Option<&Value>) -> Result<Option<u64>, ErrorData> {
    let task = params
        .and_then(|params| params.get("task"))
        .cloned()
        .unwrap_or_else(|| json!({}));
    match task.get("ttl").filter(|ttl| !ttl.is_null()) {
        None if task.is_object() => Ok(None),
        Some(ttl) if ttl.as_u64().is_some() => Ok(ttl.as_u64()),
        _ => Err(ErrorData::invalid_params(
            format!(
                "invalid `task` for tools/call: {task}; send `{{\"ttl\": <milliseconds>}}` or `{{}}`"
            ),
            None,
        )),
    }
}

/// A status a task can be in (`input_required` never: no route asks the client for input).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    Working,
    Completed,
    Failed,
    Cancelled,
}

impl Status {
    fn as_str(self) -> &'static str {
        match self {
            Status::Working => "working",
            Status::Completed => "completed",
            Status::Failed => "failed",
            Status::Cancelled => "cancelled",
        }
    }
}

/// One task: its identity and ttl, and what has become of it.
#[derive(Debug)]
pub(super) struct TaskEntry {
    id: String,
    created_at: String,
    ttl: Duration,
    state: Mutex<TaskState>,
    /// Set once the task settles: `tasks/result` waits for it.
    settled: tokio::sync::watch::Sender<bool>,
    /// Set by `tasks/cancel` or the session's end: the render stops.
    cancelled: tokio::sync::watch::Sender<bool>,
    /// The spawned call, so the session's end can wait for its render to stop.
    call: Mutex<Option<tokio::task::JoinHandle<()>>>,
}

#[derive(Debug)]
struct TaskState {
    status: Status,
    status_message: Option<String>,
    last_updated_at: String,
    /// The latest progress the render reported: `{progress, total?, message?}`.
    progress: Option<Value>,
    /// What the ordinary call would have answered: its result, or its JSON-RPC error.
    outcome: Option<Result<Value, ErrorData>>,
    settled_at: Option<Instant>,
}

impl TaskEntry {
    /// The `_meta` that ties a message to this task.
    pub(super) fn related_meta(&self) -> Value {
        json!({ RELATED_TASK_META: {"taskId": self.id} })
    }

    fn state(&self) -> std::sync::MutexGuard<'_, TaskState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The task as `tasks/get`, `tasks/list` and `tasks/cancel` show it.
    fn task(&self) -> Value {
        let state = self.state();
        let mut task = json!({
            "taskId": self.id,
            "status": state.status.as_str(),
            "createdAt": self.created_at,
            "lastUpdatedAt": state.last_updated_at,
            "ttl": u64::try_from(self.ttl.as_millis()).unwrap_or(u64::MAX),
            "pollInterval": u64::try_from(POLL_INTERVAL.as_millis()).unwrap_or(u64::MAX),
        });
        if let Some(message) = &state.status_message {
            task["statusMessage"] = message.clone().into();
        }
        task
    }

    /// `tasks/get`'s answer: the task, and its latest progress under `_meta`.
    fn with_progress(&self) -> Value {
        let mut task = self.task();
        if let Some(progress) = &self.state().progress {
            task["_meta"] = json!({ PROGRESS_META: progress });
        }
        task
    }

    /// Records the render's latest progress (a `notifications/progress`'s params); a working
    /// task's status message becomes its message.
    pub(super) fn observe_progress(&self, params: &Value) {
        let mut progress = Map::new();
        for key in ["progress", "total", "message"] {
            if let Some(value) = params.get(key) {
                progress.insert(key.to_owned(), value.clone());
            }
        }
        let mut state = self.state();
        if state.status != Status::Working {
            return;
        }
        if let Some(message) = params.get("message").and_then(Value::as_str) {
            state.status_message = Some(message.to_owned());
        }
        state.progress = Some(Value::Object(progress));
        state.last_updated_at = now();
    }

    /// Settles the task with what its call answered (`None`: the call was cancelled). A result
    /// with `isError` and a JSON-RPC error are `failed`. A task that already settled (cancelled
    /// first) stays as it is.
    pub(super) fn settle(&self, outcome: Option<Result<Value, ErrorData>>) {
        let mut state = self.state();
        if state.status != Status::Working {
            return;
        }
        let (status, message) = match &outcome {
            None => (
                Status::Cancelled,
                Some("the render was cancelled".to_owned()),
            ),
            Some(Ok(result)) if result["isError"] == true => (
                Status::Failed,
                result["content"][0]["text"].as_str().map(str::to_owned),
            ),
            Some(Ok(_)) => (Status::Completed, None),
            Some(Err(error)) => (Status::Failed, Some(error.message.to_string())),
        };
        state.status = status;
        if message.is_some() {
            state.status_message = message;
        }
        state.outcome = outcome;
        state.settled_at = Some(Instant::now());
        state.last_updated_at = now();
        drop(state);
        self.settled.send_replace(true);
    }

    /// Cancels a working task: it is `cancelled` before this returns, and its render stops.
    /// Cancelling a settled task is invalid params (-32602).
    fn cancel(&self, reason: &str) -> Result<Value, ErrorData> {
        let mut state = self.state();
        if state.status != Status::Working {
            return Err(ErrorData::invalid_params(
                format!(
                    "task {} is already {}; only a working task can be cancelled",
                    self.id,
                    state.status.as_str()
                ),
                None,
            ));
        }
        state.status = Status::Cancelled;
        state.status_message = Some(reason.to_owned());
        state.settled_at = Some(Instant::now());
        state.last_updated_at = now();
        drop(state);
        self.cancelled.send_replace(true);
        self.settled.send_replace(true);
        Ok(self.task())
    }

    /// Resolves once the task is cancelled (its render must stop).
    pub(super) async fn cancelled(&self) {
        let mut cancelled = self.cancelled.subscribe();
        let _ = cancelled.wait_for(|cancelled| *cancelled).await;
    }

    /// What `tasks/result` answers once the task settled: what the ordinary call would have
    /// (its result with the related-task `_meta`, or its error); a cancelled task's is an error.
    async fn result(&self) -> Result<Value, ErrorData> {
        let mut settled = self.settled.subscribe();
        let _ = settled.wait_for(|settled| *settled).await;
        let state = self.state();
        match &state.outcome {
            Some(Ok(result)) => {
                let mut result = result.clone();
                let meta = result
                    .as_object_mut()
                    .map(|result| result.entry("_meta").or_insert_with(|| json!({})));
                if let Some(Value::Object(meta)) = meta {
                    meta.insert(RELATED_TASK_META.to_owned(), json!({"taskId": self.id}));
                }
                Ok(result)
            }
            Some(Err(error)) => Err(error.clone()),
            None => Err(ErrorData::internal_error(
                format!(
                    "task {} was cancelled ({}); it has no result",
                    self.id,
                    state.status_message.as_deref().unwrap_or("cancelled")
                ),
                Some(json!({"taskId": self.id, "status": "cancelled"})),
            )),
        }
    }

    /// Whether a settled task's ttl has passed.
    fn expired(&self, now: Instant) -> bool {
        self.state()
            .settled_at
            .is_some_and(|settled| now.duration_since(settled) >= self.ttl)
    }
}

/// One session's tasks, oldest first.
#[derive(Debug, Default)]
pub(super) struct Tasks(Mutex<Vec<Arc<TaskEntry>>>);

impl Tasks {
    /// The session's records, those whose ttl passed forgotten first.
    fn live(&self) -> std::sync::MutexGuard<'_, Vec<Arc<TaskEntry>>> {
        let mut tasks = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let now = Instant::now();
        tasks.retain(|task| !task.expired(now));
        tasks
    }

    /// A new working task that stays `ttl` (milliseconds, at most [`MAX_TTL`]; [`DEFAULT_TTL`]
    /// when none is asked for) after it settles. A session that already holds [`MAX_TASKS`] gets
    /// an error saying so.
    fn create(&self, ttl: Option<u64>) -> Result<Arc<TaskEntry>, ErrorData> {
        let mut tasks = self.live();
        if tasks.len() >= MAX_TASKS {
            return Err(ErrorData::internal_error(
                format!(
                    "this session already holds {MAX_TASKS} tasks; cancel one, or wait until \
                     settled ones pass their ttl"
                ),
                Some(json!({"limit": MAX_TASKS})),
            ));
        }
        let ttl = ttl.map_or(DEFAULT_TTL, Duration::from_millis).min(MAX_TTL);
        let created_at = now();
        let task = Arc::new(TaskEntry {
            id: task_id(),
            ttl,
            state: Mutex::new(TaskState {
                status: Status::Working,
                status_message: None,
                last_updated_at: created_at.clone(),
                progress: None,
                outcome: None,
                settled_at: None,
            }),
            created_at,
            settled: tokio::sync::watch::Sender::new(false),
            cancelled: tokio::sync::watch::Sender::new(false),
            call: Mutex::new(None),
        });
        tasks.push(Arc::clone(&task));
        Ok(task)
    }

    /// The live task `id`; an unknown (or forgotten) one is invalid params (-32602).
    fn find(&self, id: &str) -> Result<Arc<TaskEntry>, ErrorData> {
        self.live()
            .iter()
            .find(|task| task.id == id)
            .cloned()
            .ok_or_else(|| {
                ErrorData::invalid_params(
                    format!("no task {id} in this session (unknown, or past its ttl)"),
                    Some(json!({"taskId": id})),
                )
            })
    }

    /// Cancels every task still working (the session ended).
    pub(super) fn cancel_all(&self, reason: &str) {
        for task in self.live().iter() {
            let _ = task.cancel(reason);
        }
    }

    /// [`Tasks::cancel_all`], then waits (at most `bound`) until their calls have stopped, so
    /// their renders are cancelled through the kernel while the session's runtime still runs.
    pub(super) async fn end(&self, reason: &str, bound: Duration) {
        self.cancel_all(reason);
        let calls: Vec<_> = self
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .filter_map(|task| {
                task.call
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .take()
            })
            .collect();
        let _ = tokio::time::timeout(bound, async {
            for call in calls {
                let _ = call.await;
            }
        })
        .await;
    }
}

/// A task id: 128 random bits, hex; ids are not bound to an authenticated identity, so they
/// must not be guessable.
fn task_id() -> String {
    use std::io::Read as _;
    let mut bytes = [0u8; 16];
    let random =
        std::fs::File::open("/dev/urandom").and_then(|mut urandom| urandom.read_exact(&mut bytes));
    if random.is_err() {
        // No /dev/urandom: std's per-process random keys, hashed with the time and a counter.
        use std::hash::{BuildHasher as _, Hasher as _};
        static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        for half in bytes.chunks_mut(8) {
            let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
            hasher.write_u128(
                SystemTime::now()
                    .duration_since(SystemTime::UNIX_EPOCH)
                    .map_or(0, |elapsed| elapsed.as_nanos()),
            );
            hasher.write_u64(COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
            half.copy_from_slice(&hasher.finish().to_le_bytes());
        }
    }
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// Now as ISO 8601 in UTC, to the millisecond (`2026-12-01T20:56:08.123Z`).
fn now() -> String {
    let elapsed = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default();
    iso8601(elapsed)
}

/// `since_epoch` as ISO 8601 UTC (days to a civil date: H. Hinnant's algorithm).
fn iso8601(since_epoch: Duration) -> String {
    let seconds = since_epoch.as_secs();
    let days = i64::try_from(seconds / 86_400).unwrap_or(0);
    let of_day = seconds % 86_400;
    let shifted = days + 719_468;
    let era = shifted.div_euclid(146_097);
    let day_of_era = shifted.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        of_day / 3_600,
        of_day % 3_600 / 60,
        of_day % 60,
        since_epoch.subsec_millis()
    )
}

/// The rmcp handler of one session: [`McpServer`]'s, with the task methods of a 2025-11-25
/// session of a server that offers tasks (requests the transports route here: [`route`]).
/// Dropping it (the session ended) cancels the session's working tasks.
pub struct Session(Arc<McpServer>);

impl Session {
    pub fn new(server: McpServer) -> Self {
        Self(Arc::new(server))
    }

    /// A session of `server`, which its caller shares (stdio: with the heartbeat).
    pub(super) fn of(server: Arc<McpServer>) -> Self {
        Self(server)
    }

    /// Whether this request's session is served tasks: the server offers them and the session
    /// is on their revision.
    fn serves_tasks(&self, context: &RequestContext<RoleServer>) -> bool {
        self.0.offers_tasks() && on_tasks_revision(context)
    }

    /// A routed request: the original method and its answer.
    async fn routed(
        &self,
        method: &str,
        params: Option<Value>,
        mut context: RequestContext<RoleServer>,
    ) -> Result<Value, ErrorData> {
        let serves = self.serves_tasks(&context);
        if let Some(meta) = params
            .as_ref()
            .and_then(|params| params.get("_meta"))
            .and_then(|meta| serde_json::from_value(meta.clone()).ok())
        {
            // The progress token and the rest of the request's `_meta`, as for any request.
            context.meta.extend(meta);
        }
        match method {
            "tools/call" => {
                let ttl = requested_ttl(params.as_ref())?;
                let params: CallToolRequestParams = parsed(method, params)?;
                if serves {
                    self.call_as_task(params, ttl, context).await
                } else {
                    // No tasks here: a task-augmented call is an ordinary one.
                    match self.0.call(params, &context, None).await? {
                        Some(result) => to_json(&result),
                        None => Err(ErrorData::internal_error("cancelled by the client", None)),
                    }
                }
            }
            "tools/list" => {
                let params = parsed::<Option<PaginatedRequestParams>>(method, params)?;
                let listed = self.0.list_tools(params, context.clone()).await?;
                let mut listed = to_json(&listed)?;
                if serves {
                    self.add_execution(&mut listed, &context);
                }
                Ok(listed)
            }
            "tasks/get" | "tasks/cancel" | "tasks/result" | "tasks/list" if serves => {
                self.task_method(method, params, &context).await
            }
            _ => Err(method_not_found(format!("method not found: {method}"))),
        }
    }

    /// A task-augmented `tools/call`: the `CreateTaskResult` at once, the render on its way.
    async fn call_as_task(
        &self,
        params: CallToolRequestParams,
        ttl: Option<u64>,
        context: RequestContext<RoleServer>,
    ) -> Result<Value, ErrorData> {
        let name = params.name.clone();
        let Some(support) = self.0.tool_route(&name, &context).map(task_support) else {
            return Err(ErrorData::invalid_params(
                format!("unknown tool: {name}"),
                None,
            ));
        };
        if support == TaskSupport::Forbidden {
            return Err(method_not_found(format!(
                "tool `{name}` does not support task-augmented calls (its execution.taskSupport \
                 is forbidden); call it without `task`"
            )));
        }
        let task = self.0.tasks().create(ttl)?;
        let created = json!({"task": task.task()});
        let server = Arc::clone(&self.0);
        let call = tokio::spawn({
            let task = Arc::clone(&task);
            async move {
                let outcome = server.call_as_task(params, &context, &task).await;
                task.settle(outcome);
            }
        });
        *task.call.lock().unwrap_or_else(PoisonError::into_inner) = Some(call);
        Ok(created)
    }

    /// Each listed tool's `execution` as its route declares it.
    fn add_execution(&self, listed: &mut Value, context: &RequestContext<RoleServer>) {
        let Some(tools) = listed.get_mut("tools").and_then(Value::as_array_mut) else {
            return;
        };
        for tool in tools {
            let execution = tool["name"]
                .as_str()
                .and_then(|name| self.0.tool_route(name, context))
                .and_then(|route| route.config.get("execution"))
                .cloned();
            if let Some(execution) = execution {
                tool["execution"] = execution;
            }
        }
    }

    /// `tasks/get`, `tasks/cancel`, `tasks/result` and `tasks/list`.
    async fn task_method(
        &self,
        method: &str,
        params: Option<Value>,
        context: &RequestContext<RoleServer>,
    ) -> Result<Value, ErrorData> {
        let tasks = self.0.tasks();
        let task = || {
            let id = params
                .as_ref()
                .and_then(|params| params.get("taskId"))
                .and_then(Value::as_str)
                .ok_or_else(|| {
                    ErrorData::invalid_params(format!("{method} needs a `taskId`"), None)
                })?;
            tasks.find(id)
        };
        match method {
            "tasks/get" => task().map(|task| task.with_progress()),
            "tasks/cancel" => task()?.cancel("cancelled by the client (tasks/cancel)"),
            "tasks/result" => {
                let task = task()?;
                tokio::select! {
                    result = task.result() => result,
                    // The client gave up waiting: nothing is written for this request.
                    () = context.ct.cancelled() => {
                        Err(ErrorData::internal_error("cancelled by the client", None))
                    }
                }
            }
            _ => {
                let cursor = parsed::<Option<PaginatedRequestParams>>(method, params)?;
                let listed: Vec<Value> = tasks.live().iter().map(|task| task.task()).collect();
                let (listed, next) = page(listed, "tasks/list", cursor.as_ref())?;
                let mut result = json!({ "tasks": listed });
                if let Some(next) = next {
                    result["nextCursor"] = next.into();
                }
                Ok(result)
            }
        }
    }
}

/// The prefix under which the transports route the requests rmcp's types cannot answer.
const ROUTED: &str = "abgen.dev/";

/// Routes `message` to [`Session`] when it is a request rmcp's types cannot answer on a
/// 2025-11-25 session: a `tools/call` with `task`, `tools/list` (rmcp's `Tool` has no
/// `execution`), `tasks/get` and `tasks/cancel` (rmcp reads them as the 2026 extension's), each
/// under `abgen.dev/<method>`, where it reaches the handler whole. A request of the 2026-07-28
/// lifecycle (its `_meta` names that revision) is left to rmcp: that revision has none of these.
pub(super) fn route(message: &mut Value) {
    let Some(method) = message.get("method").and_then(Value::as_str) else {
        return;
    };
    if message.get("id").is_none() {
        return;
    }
    let routed = match method {
        "tools/call" => message["params"].get("task").is_some(),
        "tools/list" | "tasks/get" | "tasks/cancel" => true,
        _ => false,
    };
    let inline_revision = message["params"]["_meta"]
        .get("io.modelcontextprotocol/protocolVersion")
        .and_then(Value::as_str)
        .is_some_and(|version| version >= "2026-07-28");
    if routed && !inline_revision {
        message["method"] = format!("{ROUTED}{method}").into();
    }
}

fn parsed<T: serde::de::DeserializeOwned>(
    method: &str,
    params: Option<Value>,
) -> Result<T, ErrorData> {
    serde_json::from_value(params.unwrap_or(Value::Null))
        .or_else(|_| serde_json::from_value(json!({})))
        .map_err(|error| {
            ErrorData::invalid_params(format!("invalid params for {method}: {error}"), None)
        })
}

fn to_json(value: &impl serde::Serialize) -> Result<Value, ErrorData> {
    serde_json::to_value(value).map_err(|error| ErrorData::internal_error(error.to_string(), None))
}

impl Drop for Session {
    fn drop(&mut self) {
        self.0.tasks().cancel_all("the session ended");
    }
}

impl ServerHandler for Session {
    fn get_info(&self) -> InitializeResult {
        self.0.get_info()
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        self.0.initialize(request, context).await
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.0.list_tools(request, context).await
    }

    /// An ordinary call; one to a tool that requires a task is -32601 where tasks are served.
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if self.serves_tasks(&context)
            && self
                .0
                .tool_route(&request.name, &context)
                .is_some_and(|route| task_support(route) == TaskSupport::Required)
        {
            return Err(method_not_found(format!(
                "tool `{}` must be called as a task (its execution.taskSupport is required); \
                 send `task: {{}}` with the call",
                request.name
            )));
        }
        self.0.call_tool(request, context).await
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.0.list_resources(request, context).await
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.0.list_resource_templates(request, context).await
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.0.read_resource(request, context).await
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        self.0.list_prompts(request, context).await
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        self.0.get_prompt(request, context).await
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        self.0.complete(request, context).await
    }

    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.0.set_level(request, context).await
    }

    /// The routed requests ([`route`]), and `tasks/result` and `tasks/list`, which rmcp does not
    /// know; any other custom method is not found.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let CustomRequest { method, params, .. } = request;
        let original = method.strip_prefix(ROUTED).unwrap_or(&method).to_owned();
        self.routed(&original, params, context)
            .await
            .map(CustomResult)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso8601_counts_days_into_civil_dates() {
        assert_eq!(iso8601(Duration::ZERO), "1970-01-01T00:00:00.000Z");
        // 2026-12-01T20:56:08.123Z, and a leap day.
        assert_eq!(
            iso8601(Duration::from_millis(1_796_158_568_123)),
            "2026-12-01T20:56:08.123Z"
        );
        assert_eq!(
            iso8601(Duration::from_secs(951_782_400)),
            "2000-02-29T00:00:00.000Z"
        );
    }

    #[test]
    fn only_what_rmcp_cannot_answer_is_routed_and_never_a_2026_request() {
        let routed = |message: Value| {
            let mut message = message;
            route(&mut message);
            message["method"].as_str().unwrap().to_owned()
        };
        let call = |params: Value| json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
        assert_eq!(
            routed(call(json!({"name": "wait", "task": {"ttl": 5}}))),
            "abgen.dev/tools/call"
        );
        assert_eq!(routed(call(json!({"name": "wait"}))), "tools/call");
        for method in ["tools/list", "tasks/get", "tasks/cancel"] {
            let request = json!({"jsonrpc": "2.0", "id": 2, "method": method, "params": {}});
            assert_eq!(routed(request), format!("abgen.dev/{method}"));
        }
        let inline = call(json!({"name": "wait", "task": {},
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}));
        assert_eq!(routed(inline), "tools/call");
        let notification = json!({"jsonrpc": "2.0", "method": "tasks/get"});
        assert_eq!(routed(notification), "tasks/get");
    }

    #[test]
    fn the_tasks_capability_is_added_to_a_2025_11_25_initialize_result_only() {
        let initialized = |version: &str| {
            json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": version,
                "capabilities": {"tools": {}}, "serverInfo": {"name": "s", "version": "1"}}})
        };
        let mut current = initialized("2025-11-25");
        advertise_tasks(&mut current);
        assert_eq!(
            current["result"]["capabilities"]["tasks"],
            tasks_capability()
        );
        let mut older = initialized("2025-06-18");
        advertise_tasks(&mut older);
        assert!(older["result"]["capabilities"].get("tasks").is_none());

        // Over HTTP, in an SSE event or a JSON body.
        let event = format!("id: 0\ndata: {}\n\n", initialized("2025-11-25"));
        let advertised =
            String::from_utf8(advertise_tasks_in_body(event.as_bytes()).unwrap()).unwrap();
        let data: Value = serde_json::from_str(
            advertised
                .lines()
                .find_map(|line| line.strip_prefix("data: "))
                .unwrap(),
        )
        .unwrap();
        assert_eq!(data["result"]["capabilities"]["tasks"], tasks_capability());
        assert!(advertised.starts_with("id: 0\n") && advertised.ends_with("\n\n"));
        assert!(
            advertise_tasks_in_body(initialized("2025-11-25").to_string().as_bytes()).is_some()
        );
        assert!(advertise_tasks_in_body(b"id: 1\ndata: \n\n").is_none());
    }

    #[test]
    fn a_settled_task_stays_for_its_ttl_and_a_session_holds_at_most_256() {
        let tasks = Tasks::default();
        let quick = tasks.create(Some(0)).unwrap();
        quick.settle(Some(Ok(json!({"content": []}))));
        assert!(tasks.find(&quick.id).is_err(), "a 0 ms ttl has passed");
        let kept = tasks.create(None).unwrap();
        kept.settle(Some(Ok(json!({"content": []}))));
        assert_eq!(tasks.find(&kept.id).unwrap().task()["status"], "completed");
        assert_eq!(kept.task()["ttl"], 300_000);
        assert!(tasks.create(Some(u64::MAX)).unwrap().ttl == MAX_TTL);
        while tasks.live().len() < MAX_TASKS {
            tasks.create(None).unwrap();
        }
        let refused = tasks.create(None).unwrap_err();
        assert!(refused.message.contains("256 tasks"), "{refused:?}");
    }

    #[test]
    fn cancelling_settles_once_and_a_settled_task_cannot_be_cancelled() {
        let tasks = Tasks::default();
        let task = tasks.create(None).unwrap();
        assert_eq!(task.cancel("stop").unwrap()["status"], "cancelled");
        // The render's own end afterwards changes nothing.
        task.settle(Some(Ok(json!({"content": []}))));
        assert_eq!(task.task()["status"], "cancelled");
        let error = task.cancel("again").unwrap_err();
        assert_eq!(error.code.0, -32602);
    }
}
