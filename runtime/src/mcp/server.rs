//! The MCP server: rmcp speaks the protocol (lifecycle, `ping`, `server/discover`,
//! cancellation, concurrency: each request is a task of its own); this module answers
//! `tools/list` from the manifest and renders `tools/call` through the kernel.
//!
//! A call's render runs on a kernel worker; a blocking task reads its events and this call's
//! task forwards its progress and builds its result, so the reader and every other request go on
//! while it renders. `notifications/cancelled` cancels the call's rmcp token, which cancels the
//! render; the transport writes nothing of a cancelled request. When the input ends, calls in
//! flight get rmcp's five-second drain (seed 002's bounded shutdown), then are cancelled.

// Logging (logging/setLevel, notifications/message) is served to the clients of 2025-11-25 and
// before; the 2026-07-28 revision deprecates it (SEP-2577), and rmcp marks its types so.
#![expect(
    deprecated,
    reason = "logging is part of the protocol revisions this server serves"
)]

use std::io::{self, BufRead, Write};
use std::os::fd::AsFd as _;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CompleteRequestParams, CompleteResult,
    CompletionInfo, GetPromptRequestParams, GetPromptResponse, Implementation,
    InitializeRequestParams, InitializeResult, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ProgressNotificationParam,
    ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, Tool,
};
use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam, SetLevelRequestParams};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler};
use serde_json::{Map, Value, json};

use super::tasks::{Session, TaskEntry, Tasks, offers_tasks};
use super::tools::{
    ClientHost, ModelView, argument_completions, client_host, excluded, has_runtime_schemas,
    invalid_arguments, is_template, match_template, model_view, prompt_definition,
    resource_definition, resource_mime_type, resource_uri, server_routes, tool_definition,
};
use super::transport::{LineTransport, OutputProbe};
use crate::document::{Document, DocumentError, LogLevel, Node, RenderEventKind, Status};
use crate::kernel::{Cancel, Invocation, Kernel, SharedKernel};
use crate::manifest::{Manifest, Route, RouteKind};
use crate::project::mcp::{
    McpOptions, McpProgress, McpProjectionError, call_tool_result, get_prompt_result,
    read_resource_result,
};
use crate::worker::{self, ComputedSchemas, RenderLimits};

/// Time for Node to start and say hello (the worker's start has its own deadline).
pub const START_ALLOWANCE: Duration = Duration::from_secs(20);
/// Time past a render's own limit for the worker to report that it hit it; a worker that does not
/// (it busy-loops) is killed then, so a call never runs much longer than its limit.
const REPLY_ALLOWANCE: Duration = Duration::from_secs(2);
/// How long tasks still running after the session ended may take to stop (their renders are
/// cancelled by then).
const RUNTIME_SHUTDOWN: Duration = Duration::from_secs(2);
/// Time for a worker to load a route and print its run-time schemas (past Node's start).
const SCHEMAS_ALLOWANCE: Duration = Duration::from_secs(10);
/// The default interval of the stderr heartbeat (seed 002: five minutes).
pub const HEARTBEAT: Duration = Duration::from_secs(300);
/// At most one activity line per this interval (seed 002: sixty seconds).
const ACTIVITY_THROTTLE: Duration = Duration::from_secs(60);

/// Where the server's stderr lines go; called from any of the session's threads.
pub type Log = Arc<dyn Fn(String) + Send + Sync>;

/// What one server process serves.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// The artifact root, holding the manifest and `runtime/worker.mjs`.
    pub artifact: PathBuf,
    /// The manifest; of its routes only those of `server` are read
    /// ([`crate::manifest::read_server_manifest`]), and only they are needed.
    pub manifest: Manifest,
    /// The manifest server id.
    pub server: String,
    /// The longest incoming message, in bytes; a longer line is a parse error, dropped unread.
    pub max_message_bytes: usize,
    /// How often the server says on stderr that it is alive ([`HEARTBEAT`]).
    pub heartbeat: Duration,
}

/// Who the client of a request is: from `initialize`, or from the request's own `_meta` under
/// the 2026-07-28 lifecycle, which has no `initialize`.
#[derive(Debug, Clone, Default)]
struct Client {
    name: String,
    host: Option<ClientHost>,
}

impl Client {
    fn of(context: &RequestContext<RoleServer>) -> Self {
        let name = context
            .client_info()
            .map(|info| info.name)
            .unwrap_or_default();
        Self {
            host: client_host(&name),
            name,
        }
    }
}

/// One MCP session's handler: what rmcp calls for each request.
pub struct McpServer {
    config: ServerConfig,
    log: Log,
    /// The artifact's kernel, shared by every call and by the process's warm host; `abgen-host
    /// mcp` starts it before serving, else `initialize` or the first hook does.
    kernel: Arc<SharedKernel>,
    in_flight: AtomicUsize,
    /// The lowest level of log message the client asked for, if it asked.
    log_level: Mutex<Option<LoggingLevel>>,
    /// Calls answered so far, and when the last activity line was logged.
    activity: Mutex<Activity>,
    /// Set once the client is gone, so renders in flight are cancelled at once rather than
    /// after rmcp's drain: nobody is left to read their answers.
    gone: ClientGone,
    /// Over HTTP: the process's sessions, and which one this is once a request names it.
    http_sessions: Option<(Arc<HttpSessions>, Mutex<Option<String>>)>,
    /// Whether any tool opted in to tasks (`execution.taskSupport`).
    offers_tasks: bool,
    /// This session's tasks (`tasks.rs`).
    tasks: Tasks,
}

/// Whether a session's client is gone: its output closed (stdio), or it ended its HTTP
/// session (`DELETE`).
#[derive(Debug, Clone)]
pub(super) struct ClientGone(Arc<tokio::sync::watch::Sender<bool>>);

impl ClientGone {
    fn new() -> Self {
        Self(Arc::new(tokio::sync::watch::Sender::new(false)))
    }

    /// Marks the client gone; every wait ends.
    pub(super) fn mark(&self) {
        self.0.send_replace(true);
    }

    async fn wait(&self) {
        let mut gone = self.0.subscribe();
        let _ = gone.wait_for(|gone| *gone).await;
    }
}

/// The HTTP sessions of one process by id, so a `DELETE` that ends one reaches its calls.
#[derive(Debug, Default)]
pub struct HttpSessions(Mutex<std::collections::HashMap<String, ClientGone>>);

impl HttpSessions {
    /// The client ended session `id`: its calls in flight are cancelled.
    pub(super) fn close(&self, id: &str) {
        if let Some(gone) = self
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(id)
        {
            gone.mark();
        }
    }
}

#[derive(Debug, Default)]
struct Activity {
    answered: u64,
    logged: Option<Instant>,
}

impl McpServer {
    /// A session of `config` rendering on `kernel` (see [`SharedKernel::for_artifact`]), saying
    /// what it does through `log`.
    pub fn new(config: ServerConfig, kernel: Arc<SharedKernel>, log: Log) -> Self {
        Self {
            offers_tasks: offers_tasks(&config.manifest, &config.server),
            tasks: Tasks::default(),
            config,
            log,
            kernel,
            in_flight: AtomicUsize::new(0),
            log_level: Mutex::new(None),
            activity: Mutex::new(Activity::default()),
            gone: ClientGone::new(),
            http_sessions: None,
        }
    }

    /// A session served over HTTP, one of `sessions`.
    pub(super) fn over_http(mut self, sessions: Arc<HttpSessions>) -> Self {
        self.http_sessions = Some((sessions, Mutex::new(None)));
        self
    }

    /// Over HTTP, binds this session's id (the request's `Mcp-Session-Id`) to this handler the
    /// first time a request names it.
    fn bind_http_session(&self, context: &RequestContext<RoleServer>) {
        let Some((sessions, bound)) = &self.http_sessions else {
            return;
        };
        let Some(id) = context
            .extensions
            .get::<hyper::http::request::Parts>()
            .and_then(|parts| parts.headers.get("mcp-session-id"))
            .and_then(|id| id.to_str().ok())
        else {
            return;
        };
        let mut bound = bound.lock().unwrap_or_else(PoisonError::into_inner);
        if bound.is_none() {
            sessions
                .0
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(id.to_owned(), self.gone.clone());
            *bound = Some(id.to_owned());
        }
    }

    /// Serves one session over `input` and `output` until the input ends (or the output breaks)
    /// and the calls in flight have answered or been cancelled. Returns an error only when the
    /// output cannot be written.
    ///
    /// Who starts and ends what: this starts the transport's reader and writer threads and a
    /// current-thread tokio runtime; the runtime (rmcp's tasks, the heartbeat, the calls'
    /// blocking readers) ends before this returns, the writer too.
    pub fn serve(
        self,
        input: impl BufRead + Send + 'static,
        output: impl Write + Send + 'static,
    ) -> io::Result<()> {
        self.serve_lines(input, output, None)
    }

    /// [`McpServer::serve`] over the process's stdin and stdout; when stdout can say what the
    /// client has not read yet (a pipe or a Unix socket), a result
    /// waits for the client to have read its request's progress (see [`LineTransport`]).
    pub fn serve_stdio(self) -> io::Result<()> {
        let probe = OutputProbe::of(io::stdout().as_fd());
        self.serve_lines(io::BufReader::new(io::stdin()), io::stdout(), probe)
    }

    fn serve_lines(
        self,
        input: impl BufRead + Send + 'static,
        output: impl Write + Send + 'static,
        probe: Option<OutputProbe>,
    ) -> io::Result<()> {
        let (transport, threads) = LineTransport::start(
            input,
            output,
            probe,
            self.gone.clone(),
            self.config.max_message_bytes,
            self.offers_tasks,
        )?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()?;
        let server = Arc::new(self);
        runtime.block_on(async {
            let heartbeat = tokio::spawn(Arc::clone(&server).heartbeat());
            // A handshake that fails (the input ended first, or the output broke) ends the session
            // like any other end: there is nobody left to answer.
            if let Ok(running) =
                rmcp::serve_server(Session::of(Arc::clone(&server)), transport).await
            {
                let _ = running.waiting().await;
            }
            // The session ended: its tasks still working go with it, their renders cancelled
            // through the kernel while this runtime still drives them.
            server
                .tasks
                .end("the session ended", RUNTIME_SHUTDOWN)
                .await;
            heartbeat.abort();
        });
        runtime.shutdown_timeout(RUNTIME_SHUTDOWN);
        drop(server);
        threads.finish()
    }

    /// Says on stderr, every `heartbeat`, that the server is alive, until the session ends.
    async fn heartbeat(self: Arc<Self>) {
        let mut ticks = tokio::time::interval(self.config.heartbeat);
        ticks.tick().await;
        loop {
            ticks.tick().await;
            let answered = self
                .activity
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .answered;
            (self.log)(format!(
                "mcp {}: alive; {} calls in flight, {answered} answered",
                self.config.server,
                self.in_flight.load(Ordering::Relaxed),
            ));
        }
    }

    /// One stderr line for a call, at most every [`ACTIVITY_THROTTLE`].
    fn note_activity(&self, route: &Route) {
        let mut activity = self.activity.lock().unwrap_or_else(PoisonError::into_inner);
        if activity
            .logged
            .is_some_and(|logged| logged.elapsed() < ACTIVITY_THROTTLE)
        {
            return;
        }
        activity.logged = Some(Instant::now());
        (self.log)(format!(
            "mcp {}: tools/call {}",
            self.config.server, route.id
        ));
    }

    /// The routes of `kinds` of this server that `client` may see (`excludeClients`).
    fn visible(&self, kinds: &[RouteKind], client: &Client) -> Vec<&Route> {
        kinds
            .iter()
            .flat_map(|kind| server_routes(&self.config.manifest, &self.config.server, *kind))
            .filter(|route| !excluded(route, &client.name, client.host.as_ref()))
            .collect()
    }

    /// Renders `route` through the kernel, forwarding its progress to the client: the final
    /// document, or why there is none (`Err`), or `None` once the client cancelled. A render that
    /// failed is also told to the client as an `error` log message, when it asked for those.
    #[expect(clippy::too_many_arguments, reason = "one render's whole description")]
    async fn render(
        &self,
        route: &Route,
        kind: worker::RouteKind,
        input: Value,
        progress_token: Option<Value>,
        client: &Client,
        context: &RequestContext<RoleServer>,
        task: Option<&TaskEntry>,
    ) -> Option<Result<Document, String>> {
        let rendered = self
            .render_once(route, kind, input, progress_token, client, context, task)
            .await;
        let failure = match &rendered {
            Some(Err(message)) => Some(message.clone()),
            // A failed document's root is the error saying why.
            Some(Ok(document)) if document.status == Status::Failed => Some(match &document.root {
                Node::Error { code, message } => format!("[{code}] {message}"),
                _ => "the render failed".to_owned(),
            }),
            _ => None,
        };
        if let Some(message) = failure {
            self.log_to_client(
                context,
                LoggingLevel::Error,
                json!({"route": route.id, "error": message}),
                task,
            )
            .await;
        }
        rendered
    }

    /// Sends `data` as a `notifications/message` at `level`, if the session asked for messages of
    /// that level (`logging/setLevel`); a session that never asked gets none. A task's message
    /// carries the related-task `_meta`.
    async fn log_to_client(
        &self,
        context: &RequestContext<RoleServer>,
        level: LoggingLevel,
        data: Value,
        task: Option<&TaskEntry>,
    ) {
        let wanted = *self
            .log_level
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if wanted.is_some_and(|wanted| severity(level) >= severity(wanted)) {
            let mut message = LoggingMessageNotificationParam::new(level, data);
            message.logger = Some(format!("abgen/{}", self.config.server));
            message.meta = task.and_then(|task| serde_json::from_value(task.related_meta()).ok());
            let _ = context.peer.notify_logging_message(message).await;
        }
    }

    /// One render of `route`; `task`, when the render is a task's: its cancel (not the request's)
    /// stops it, its progress is recorded, and what reaches the client carries its `_meta`.
    #[expect(clippy::too_many_arguments, reason = "one render's whole description")]
    async fn render_once(
        &self,
        route: &Route,
        kind: worker::RouteKind,
        input: Value,
        progress_token: Option<Value>,
        client: &Client,
        context: &RequestContext<RoleServer>,
        task: Option<&TaskEntry>,
    ) -> Option<Result<Document, String>> {
        let kernel = match self.kernel() {
            Ok(kernel) => kernel,
            Err(message) => return Some(Err(message.to_owned())),
        };
        let limits = &self.config.manifest.limits.render;
        let max_elapsed_ms = self.config.manifest.render_budget_ms(route);
        let invocation = Invocation {
            kind,
            route: route.id.clone(),
            invocation: None,
            input,
            context: observed_context(client),
            providers: Default::default(),
            limits: RenderLimits {
                max_flight_bytes: Some(limits.max_bytes),
                max_elapsed_ms: Some(max_elapsed_ms),
            },
        };
        let deadline = Instant::now()
            + Duration::from_millis(max_elapsed_ms)
            + REPLY_ALLOWANCE
            + START_ALLOWANCE;
        self.bind_http_session(context);
        let cancel = Cancel::new();
        let rendering = match kernel.render(invocation, cancel.clone(), deadline) {
            Ok(rendering) => rendering,
            Err(refused) => return Some(Err(format!("[{}] {refused}", refused.code()))),
        };
        // This task alone reads the render's events and writes (through rmcp), so a cancel is
        // seen between any two messages.
        let reply_by = tokio::time::Instant::from_std(deadline + REPLY_ALLOWANCE);
        let mut progress = McpProgress::new(progress_token);
        // A task observes its progress whether or not the client asked to be told of it.
        let mut observed = task.map(|_| McpProgress::new(Some(Value::Null)));
        let stopped = async {
            match task {
                Some(task) => task.cancelled().await,
                None => context.ct.cancelled().await,
            }
        };
        tokio::pin!(stopped);
        loop {
            // Biased: once the client cancelled or left, not one more event of this render is
            // forwarded, even when some are already waiting.
            let event = tokio::select! {
                biased;
                () = &mut stopped => {
                    cancel.cancel("cancelled by the client");
                    return None;
                }
                () = self.gone.wait() => {
                    cancel.cancel("the client is gone");
                    return None;
                }
                event = tokio::time::timeout_at(reply_by, rendering.next_event()) => event,
            };
            let Ok(Some(event)) = event else {
                return Some(Err("the render never completed".to_owned()));
            };
            if let (Some(observed), Some(task)) = (&mut observed, task) {
                for params in observed.on_event(&event) {
                    task.observe_progress(&params);
                }
            }
            for mut params in progress.on_event(&event) {
                if let Some(task) = task {
                    params["_meta"] = task.related_meta();
                }
                if let Ok(params) = serde_json::from_value::<ProgressNotificationParam>(params) {
                    let _ = context.peer.notify_progress(params).await;
                }
            }
            if let RenderEventKind::Log {
                level,
                message,
                data,
            } = &event.kind
            {
                let mut record = json!({"route": route.id, "message": message});
                if let Some(data) = data {
                    record["data"] = data.clone();
                }
                self.log_to_client(context, mcp_level(*level), record, task)
                    .await;
            }
            if let RenderEventKind::Complete { document } = event.kind {
                return Some(Ok(document));
            }
        }
    }

    /// What this client takes, and its request's progress token.
    fn options(&self, client: &Client, context: &RequestContext<RoleServer>) -> McpOptions {
        McpOptions {
            progress_token: context
                .meta
                .get_progress_token()
                .and_then(|token| serde_json::to_value(token).ok()),
            accepts_image: accepts(client, "image"),
            accepts_audio: accepts(client, "audio"),
            ..McpOptions::default()
        }
    }

    /// A resource read's or prompt get's render: its final document, or the JSON-RPC error those
    /// methods answer with, since their results have no `isError`.
    async fn render_route(
        &self,
        route: &Route,
        kind: worker::RouteKind,
        input: Value,
        options: &McpOptions,
        client: &Client,
        context: &RequestContext<RoleServer>,
    ) -> Result<Document, ErrorData> {
        self.note_activity(route);
        self.in_flight.fetch_add(1, Ordering::Relaxed);
        let rendered = self
            .render(
                route,
                kind,
                input,
                options.progress_token.clone(),
                client,
                context,
                None,
            )
            .await;
        self.in_flight.fetch_sub(1, Ordering::Relaxed);
        match rendered {
            Some(Ok(document)) => Ok(document),
            Some(Err(message)) => Err(ErrorData::internal_error(message, None)),
            None => Err(ErrorData::internal_error("cancelled by the client", None)),
        }
    }

    /// The visible route of `kind` whose wire name is `name`.
    fn named(&self, kind: RouteKind, name: &str, client: &Client) -> Option<&Route> {
        self.visible(&[kind], client)
            .into_iter()
            .find(|route| route.wire_name.as_deref() == Some(name))
    }

    /// The resource routes and Apps of this server, visible to `client`.
    fn resources(&self, client: &Client) -> Vec<&Route> {
        self.visible(&[RouteKind::Resource, RouteKind::App], client)
    }

    /// The resource definitions `client` sees: the plain ones, or (`templates`) the templates.
    fn resource_list<T: serde::de::DeserializeOwned>(
        &self,
        client: &Client,
        templates: bool,
    ) -> Result<Vec<T>, ErrorData> {
        self.resources(client)
            .into_iter()
            .filter(|route| resource_uri(route).is_some_and(|uri| is_template(uri) == templates))
            .map(|route| from_definition(resource_definition(route), route))
            .collect()
    }

    /// The JSON Schemas the worker computed for tool `route`, when the compiler left some of its
    /// schemas to run time (`None` otherwise). Each worker computes a route's once and keeps them,
    /// so asking again costs a round trip, not a computation.
    async fn computed_schemas(
        &self,
        route: &Route,
    ) -> Option<Result<ComputedSchemas, DocumentError>> {
        if !has_runtime_schemas(route) {
            return None;
        }
        let kernel = Arc::clone(&self.kernel);
        let id = route.id.clone();
        let deadline = Instant::now() + START_ALLOWANCE + SCHEMAS_ALLOWANCE;
        let computed = tokio::task::spawn_blocking(move || match kernel.get() {
            Ok(kernel) => kernel.route_schemas(&id, worker::RouteKind::Tool, deadline),
            Err(reason) => Err(DocumentError::new("worker-unavailable", reason)),
        })
        .await;
        Some(computed.unwrap_or_else(|error| {
            Err(DocumentError::new(
                "internal",
                format!("computing the schemas failed: {error}"),
            ))
        }))
    }

    /// The session's kernel, started on first use.
    fn kernel(&self) -> Result<&Kernel, &str> {
        self.kernel.get()
    }
}

impl Drop for McpServer {
    fn drop(&mut self) {
        if let Some((sessions, bound)) = &self.http_sessions
            && let Some(id) = bound.lock().unwrap_or_else(PoisonError::into_inner).take()
        {
            sessions
                .0
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&id);
        }
    }
}

impl ServerHandler for McpServer {
    /// Capabilities name what this server has routes for, nothing more.
    fn get_info(&self) -> InitializeResult {
        let application = &self.config.manifest.application;
        let has =
            |kind| !server_routes(&self.config.manifest, &self.config.server, kind).is_empty();
        let mut capabilities = Map::new();
        capabilities.insert("tools".into(), json!({}));
        if has(RouteKind::Resource) || has(RouteKind::App) {
            capabilities.insert("resources".into(), json!({}));
        }
        if has(RouteKind::Prompt) {
            capabilities.insert("prompts".into(), json!({}));
        }
        let templated = server_routes(
            &self.config.manifest,
            &self.config.server,
            RouteKind::Resource,
        )
        .into_iter()
        .any(|route| resource_uri(route).is_some_and(is_template));
        if has(RouteKind::Prompt) || templated {
            capabilities.insert("completions".into(), json!({}));
        }
        // Failed renders are told to a client that sets a level (`logging/setLevel`).
        capabilities.insert("logging".into(), json!({}));
        let capabilities: ServerCapabilities =
            serde_json::from_value(Value::Object(capabilities)).unwrap_or_default();
        let mut info = InitializeResult::new(capabilities);
        info.server_info = Implementation::new(&application.name, &application.version);
        info
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        context.peer.set_peer_info(request.clone());
        // A kernel nobody started yet starts while the client reads the reply: the first call
        // finds it ready.
        let _ = self.kernel();
        self.negotiate_initialize(&request)
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let client = Client::of(&context);
        let mut tools = Vec::new();
        for route in self.visible(&[RouteKind::Tool], &client) {
            let computed = self.computed_schemas(route).await;
            let definition = tool_definition(
                route,
                client.host.as_ref(),
                computed.as_ref(),
                &mut |line| (self.log)(line),
            );
            tools.push(from_definition::<Tool>(definition, route)?);
        }
        let (tools, next) = page(tools, "tools/list", request.as_ref())?;
        let mut result = ListToolsResult::with_all_items(tools);
        result.next_cursor = next;
        Ok(result)
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let resources = self.resource_list(&Client::of(&context), false)?;
        let (resources, next) = page(resources, "resources/list", request.as_ref())?;
        let mut result = ListResourcesResult::with_all_items(resources);
        result.next_cursor = next;
        Ok(result)
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let templates = self.resource_list(&Client::of(&context), true)?;
        let (templates, next) = page(templates, "resources/templates/list", request.as_ref())?;
        let mut result = ListResourceTemplatesResult::with_all_items(templates);
        result.next_cursor = next;
        Ok(result)
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let client = Client::of(&context);
        let uri = request.uri.as_str();
        let resources = self.resources(&client);
        let found = resources
            .iter()
            .find(|route| resource_uri(route) == Some(uri))
            .map(|route| (*route, Map::new()))
            .or_else(|| {
                resources.iter().find_map(|route| {
                    let template = resource_uri(route).filter(|uri| is_template(uri))?;
                    Some((*route, match_template(template, uri)?))
                })
            });
        let Some((route, values)) = found else {
            return Err(ErrorData::resource_not_found(
                format!("no resource at {uri}"),
                Some(json!({"uri": uri})),
            ));
        };
        if route.kind == RouteKind::App {
            return app_document(&self.config.artifact, route, uri)
                .map(ReadResourceResponse::Complete);
        }
        let options = self.options(&client, &context);
        let document = self
            .render_route(
                route,
                worker::RouteKind::Resource,
                Value::Object(values),
                &options,
                &client,
                &context,
            )
            .await?;
        let result = read_resource_result(&document, uri, resource_mime_type(route), &options)
            .map_err(|problem| route_error(&problem, worker::RouteKind::Resource))?;
        Ok(ReadResourceResponse::Complete(from_value(result)?))
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let client = Client::of(&context);
        let prompts = self
            .visible(&[RouteKind::Prompt], &client)
            .into_iter()
            .map(|route| from_definition(prompt_definition(route), route))
            .collect::<Result<_, _>>()?;
        let (prompts, next) = page(prompts, "prompts/list", request.as_ref())?;
        let mut result = ListPromptsResult::with_all_items(prompts);
        result.next_cursor = next;
        Ok(result)
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let client = Client::of(&context);
        let Some(route) = self.named(RouteKind::Prompt, &request.name, &client) else {
            return Err(ErrorData::invalid_params(
                format!("unknown prompt: {}", request.name),
                None,
            ));
        };
        let options = self.options(&client, &context);
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let document = self
            .render_route(
                route,
                worker::RouteKind::Prompt,
                arguments,
                &options,
                &client,
                &context,
            )
            .await?;
        let description = route.config.get("description").and_then(Value::as_str);
        let result = get_prompt_result(&document, description, &options)
            .map_err(|problem| route_error(&problem, worker::RouteKind::Prompt))?;
        Ok(GetPromptResponse::Complete(from_value(result)?))
    }

    /// Completes a prompt argument or a resource template variable from the values its input
    /// schema enumerates; anything else has no completions (an empty list, not an error).
    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let client = Client::of(&context);
        let request = serde_json::to_value(&request).unwrap_or_default();
        let reference = &request["ref"];
        let route = match reference["type"].as_str() {
            Some("ref/prompt") => reference["name"]
                .as_str()
                .and_then(|name| self.named(RouteKind::Prompt, name, &client)),
            Some("ref/resource") => self
                .resources(&client)
                .into_iter()
                .find(|route| resource_uri(route) == reference["uri"].as_str()),
            _ => None,
        };
        let Some(route) = route else {
            return Err(ErrorData::invalid_params(
                format!("nothing to complete for {reference}"),
                None,
            ));
        };
        let (values, total) = argument_completions(
            route,
            request["argument"]["name"].as_str().unwrap_or_default(),
            request["argument"]["value"].as_str().unwrap_or_default(),
            CompletionInfo::MAX_VALUES,
        );
        from_value(json!({"completion": {
            "hasMore": total > values.len(),
            "total": total,
            "values": values,
        }}))
    }

    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        *self
            .log_level
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(request.level);
        Ok(())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // A cancelled call's answer is never written; rmcp drops it.
        let result = self
            .call(request, &context, None)
            .await?
            .unwrap_or_else(|| tool_result(&tool_error("cancelled by the client")));
        Ok(result.into())
    }
}

impl McpServer {
    /// One `tools/call`, ordinary or a task's (`task`): the result, the JSON-RPC error it
    /// answers with, or `None` once the client (or `tasks/cancel`) cancelled it.
    pub(super) async fn call(
        &self,
        request: CallToolRequestParams,
        context: &RequestContext<RoleServer>,
        task: Option<&TaskEntry>,
    ) -> Result<Option<CallToolResult>, ErrorData> {
        let client = Client::of(context);
        let Some(route) = self.named(RouteKind::Tool, &request.name, &client) else {
            return Err(ErrorData::invalid_params(
                format!("unknown tool: {}", request.name),
                None,
            ));
        };
        let arguments = request.arguments.map_or_else(|| json!({}), Value::Object);
        // Arguments are checked against a schema known only at run time here, before any render:
        // the schema this client was listed, in zod's exact form. One that could not be computed
        // leaves the check to the worker's own zod parse.
        if let Some(Ok(computed)) = self.computed_schemas(route).await
            && let Some(message) = invalid_arguments(route, &computed, &arguments)
        {
            return Err(ErrorData::invalid_params(message, None));
        }
        self.note_activity(route);
        let view = model_view(route, client.host.as_ref());
        let options = McpOptions {
            value_as_text: view == ModelView::ValueAsContent,
            value_in_meta: view == ModelView::ValueInMeta,
            ..self.options(&client, context)
        };
        self.in_flight.fetch_add(1, Ordering::Relaxed);
        let rendered = self
            .render(
                route,
                worker::RouteKind::Tool,
                arguments,
                options.progress_token.clone(),
                &client,
                context,
                task,
            )
            .await;
        self.in_flight.fetch_sub(1, Ordering::Relaxed);
        let reply = match rendered {
            Some(Ok(document)) => call_tool_result(&document, &options)
                .unwrap_or_else(|projection| tool_error(&projection.to_string())),
            Some(Err(message)) => tool_error(&message),
            None => return Ok(None),
        };
        let result = serde_json::from_value::<CallToolResult>(reply).map_err(|error| {
            ErrorData::internal_error(format!("the call's result is not valid: {error}"), None)
        })?;
        self.activity
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .answered += 1;
        Ok(Some(result))
    }

    /// The call of a task: what `tasks/result` answers (the result as JSON, or the error), or
    /// `None` once the task was cancelled.
    pub(super) async fn call_as_task(
        &self,
        request: CallToolRequestParams,
        context: &RequestContext<RoleServer>,
        task: &TaskEntry,
    ) -> Option<Result<Value, ErrorData>> {
        match self.call(request, context, Some(task)).await {
            Ok(Some(result)) => Some(serde_json::to_value(result).map_err(|error| {
                ErrorData::internal_error(format!("the call's result is not valid: {error}"), None)
            })),
            Ok(None) => None,
            Err(error) => Some(Err(error)),
        }
    }

    /// Whether any tool of this server opted in to tasks.
    pub(super) fn offers_tasks(&self) -> bool {
        self.offers_tasks
    }

    /// This session's tasks.
    pub(super) fn tasks(&self) -> &Tasks {
        &self.tasks
    }

    /// The tool route named `name` that `context`'s client sees.
    pub(super) fn tool_route(
        &self,
        name: &str,
        context: &RequestContext<RoleServer>,
    ) -> Option<&Route> {
        self.named(RouteKind::Tool, name, &Client::of(context))
    }
}

/// A result JSON as rmcp's type (a tool error always fits).
fn tool_result(reply: &Value) -> CallToolResult {
    serde_json::from_value(reply.clone()).unwrap_or_else(|_| CallToolResult::error(Vec::new()))
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

/// A tool execution error: per MCP a result the model can read, not a protocol error.
fn tool_error(message: &str) -> Value {
    json!({"content": [{"type": "text", "text": message}], "isError": true})
}

/// How many items one page of a list holds. Large enough that a plugin's lists fit one page
/// (a client that ignores `nextCursor` still sees every route of an ordinary plugin), small
/// enough that no list answer grows without bound.
pub const PAGE_SIZE: usize = 100;

/// One page of `items` for a `list` request (`tools/list`, …) whose cursor is `cursor`, and the
/// cursor of the next page, if there is one. A cursor is opaque to clients: the list it pages and
/// the offset it starts at, base64url-encoded; one this server could not have handed out for
/// this list (not ours, another list's, past the end) is invalid params (-32602).
pub(super) fn page<T>(
    items: Vec<T>,
    list: &str,
    cursor: Option<&PaginatedRequestParams>,
) -> Result<(Vec<T>, Option<String>), ErrorData> {
    use base64::Engine as _;
    let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let start = match cursor.and_then(|request| request.cursor.as_deref()) {
        None => 0,
        Some(cursor) => engine
            .decode(cursor)
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .and_then(|text| {
                let offset = text.strip_prefix(list)?.strip_prefix(':')?;
                offset.parse::<usize>().ok()
            })
            .filter(|offset| *offset > 0 && *offset < items.len())
            .ok_or_else(|| {
                ErrorData::invalid_params(
                    format!(
                        "invalid cursor `{cursor}` for {list}: pass back a `nextCursor` this                          server returned, or none for the first page"
                    ),
                    None,
                )
            })?,
    };
    let end = items.len().min(start + PAGE_SIZE);
    let next = (end < items.len()).then(|| engine.encode(format!("{list}:{end}")));
    let page = items.into_iter().skip(start).take(end - start).collect();
    Ok((page, next))
}

/// A manifest definition as rmcp's type; a route whose definition does not fit is reported.
fn from_definition<T: serde::de::DeserializeOwned>(
    definition: Value,
    route: &Route,
) -> Result<T, ErrorData> {
    serde_json::from_value(definition).map_err(|error| {
        ErrorData::internal_error(
            format!("the route `{}` has no valid definition: {error}", route.id),
            None,
        )
    })
}

/// The compiled document of App `route` (`mcp-apps/<name>.html` in the artifact) as its
/// resource: `text/html;profile=mcp-app`, with the MCP Apps resource metadata the App declares
/// under `_meta.ui` (`csp`, `permissions`, `domain`, `prefersBorder`). A missing document is an
/// error naming the file, never an empty page.
fn app_document(
    artifact: &std::path::Path,
    route: &Route,
    uri: &str,
) -> Result<rmcp::model::ReadResourceResult, ErrorData> {
    let name = route.wire_name.as_deref().unwrap_or_default();
    let path = artifact.join("mcp-apps").join(format!("{name}.html"));
    let html = std::fs::read_to_string(&path).map_err(|error| {
        ErrorData::internal_error(
            format!(
                "the App `{}` at {uri} has no readable compiled document (mcp-apps/{name}.html: \
                 {error}); rebuild the plugin with `abgen build`",
                route.id
            ),
            Some(json!({"uri": uri})),
        )
    })?;
    let mut ui = Map::new();
    if let Some(Value::Object(declared)) = route.config.get("_meta").and_then(|meta| meta.get("ui"))
    {
        for key in ["csp", "permissions", "domain", "prefersBorder"] {
            if let Some(value) = declared.get(key) {
                ui.insert(key.to_owned(), value.clone());
            }
        }
    }
    let mut content = json!({
        "uri": uri,
        "mimeType": "text/html;profile=mcp-app",
        "text": html,
    });
    if !ui.is_empty() {
        content["_meta"] = json!({ "ui": ui });
    }
    from_value(json!({ "contents": [content] }))
}

fn from_value<T: serde::de::DeserializeOwned>(value: Value) -> Result<T, ErrorData> {
    serde_json::from_value(value)
        .map_err(|error| ErrorData::internal_error(format!("invalid result: {error}"), None))
}

/// A resource or prompt route that failed or represented an error, the route's code and message
/// kept: `not-found` is the protocol's resource-not-found on a read, and invalid params on a
/// prompt (an argument named nothing), as is `invalid-input`; anything else is an internal error.
fn route_error(problem: &McpProjectionError, kind: worker::RouteKind) -> ErrorData {
    let McpProjectionError::Failed { code, .. } = problem else {
        return ErrorData::internal_error(problem.to_string(), None);
    };
    match (code.as_str(), kind) {
        ("not-found", worker::RouteKind::Resource) => {
            ErrorData::resource_not_found(problem.to_string(), None)
        }
        ("not-found" | "invalid-input", _) => ErrorData::invalid_params(problem.to_string(), None),
        _ => ErrorData::internal_error(problem.to_string(), None),
    }
}

/// A route's log level as MCP's.
fn mcp_level(level: LogLevel) -> LoggingLevel {
    match level {
        LogLevel::Debug => LoggingLevel::Debug,
        LogLevel::Info => LoggingLevel::Info,
        LogLevel::Notice => LoggingLevel::Notice,
        LogLevel::Warning => LoggingLevel::Warning,
        LogLevel::Error => LoggingLevel::Error,
    }
}

/// The order of MCP's (syslog's) levels, debug lowest.
fn severity(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}
