//! `abgen dev proxy --root DIR --server ID`: one stdio MCP server a host keeps connected while
//! `abgen dev` rebuilds the project behind it (seed 002, §Live host MCP proxy). Entry:
//! [`run_proxy`].
//!
//! Each epoch (a good build, named by its artifact digest in the project's development lock,
//! [`super::lock`]) is pinned (its own copy of the artifact, [`super::epoch`], so the next
//! build in place cannot change what it reads) and served from there by its own
//! `bin/abgen-host mcp --server ID` child, reached with
//! rmcp's client over the child's stdio and initialized with the host's own client identity
//! and capabilities, so the runtime projects for the host as if it were connected directly. New
//! requests go to the newest epoch; a request already admitted holds its epoch until it is
//! answered, and an epoch nothing holds any more is shut down (its child killed). On a new epoch
//! the host is told `notifications/tools/list_changed`, `resources/list_changed` and
//! `prompts/list_changed`; every notification an epoch sends (progress, logging, list changes)
//! is forwarded, progress under the host's own token. When the development server is gone (no
//! lock, or its process ended) requests fail with AB8025; when the epoch a request needs is gone
//! (its artifact removed, its child ended, or it would not start) with AB8024. The proxy stays
//! connected and recovers by itself once `abgen dev` writes a new epoch.
//!
//! Invariant: every wait is bounded: the lock is polled every [`LOCK_POLL`], an epoch's child
//! has [`EPOCH_START_BOUND`] to initialize, and the proxy ends when the host closes its stdin
//! (every child ends with it).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CancelledNotificationParam, ClientNotification, ClientRequest, ErrorCode,
    InitializeRequestParams, InitializeResult, ProgressToken, ServerNotification, ServerRequest,
    ServerResult, ToolsCapability,
};
use rmcp::service::{
    NotificationContext, Peer, PeerRequestOptions, RequestContext, RunningService, ServiceError,
};
use rmcp::{ErrorData as McpError, RoleClient, RoleServer, Service, ServiceExt};

use super::epoch::{PinFailure, PinnedArtifact, epochs_dir, pin_artifact, remove_stale_pins};
use super::lock::{DevLock, process_alive, read_dev_lock};
use crate::diagnostics::{Code, Diagnostic};

/// How often the proxy reads the development lock for a new epoch.
pub const LOCK_POLL: Duration = Duration::from_millis(100);
/// How long an epoch's `abgen-host` has to answer `initialize`.
pub const EPOCH_START_BOUND: Duration = Duration::from_secs(30);
/// How many builds in a row may replace the output while an epoch is being pinned.
const PIN_ATTEMPTS: usize = 3;

/// What to proxy.
#[derive(Clone, Debug)]
pub struct ProxyOptions {
    /// The project root `abgen dev` serves.
    pub root: PathBuf,
    /// The MCP server of the plugin.
    pub server: String,
}

/// Serves MCP on standard input and output until the host closes it. `report` is told every
/// coded failure once, when the proxy's state changes to it (for standard error). Errors are
/// the proxy's own: no async runtime, or standard input unusable.
pub fn run_proxy(
    options: ProxyOptions,
    report: Box<dyn Fn(&Diagnostic) + Send + Sync>,
) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let root = options
        .root
        .canonicalize()
        .unwrap_or_else(|_| options.root.clone());
    remove_stale_pins(&epochs_dir(&root));
    let proxy = Proxy {
        shared: Arc::new(Shared {
            root,
            server: options.server,
            report,
            state: Mutex::new(State::default()),
        }),
    };
    let served = runtime.block_on(async move {
        let running = proxy
            .serve(rmcp::transport::stdio())
            .await
            .map_err(std::io::Error::other)?;
        let _ = running.waiting().await;
        Ok(())
    });
    // Shutting the runtime down drops every epoch, and with it every child; a blocked read of
    // standard input is not waited for beyond the bound.
    runtime.shutdown_timeout(SHUTDOWN_BOUND);
    served
}

/// How long the proxy waits for its own tasks once the host has gone.
const SHUTDOWN_BOUND: Duration = Duration::from_millis(500);

/// The downstream side: the MCP server the host is connected to.
#[derive(Clone)]
struct Proxy {
    shared: Arc<Shared>,
}

struct Shared {
    root: PathBuf,
    server: String,
    report: Box<dyn Fn(&Diagnostic) + Send + Sync>,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// The host's `initialize` parameters, given to every epoch's child.
    client: Option<InitializeRequestParams>,
    /// The host, for notifications.
    host: Option<Peer<RoleServer>>,
    /// The epoch new requests go to.
    current: Option<Arc<Epoch>>,
    /// Why there is no current epoch, once there was one.
    gone: Option<Diagnostic>,
    watching: bool,
}

/// One epoch: its child and the rmcp client connected to it.
struct Epoch {
    digest: String,
    service: RunningService<RoleClient, Upstream>,
    info: InitializeResult,
    /// This epoch's progress tokens (the ones its client put on forwarded requests) mapped to
    /// the host's.
    progress: Arc<Mutex<HashMap<ProgressToken, ProgressToken>>>,
    /// Killed when the epoch is dropped.
    _child: tokio::process::Child,
    /// The artifact the child runs from; removed after the child (fields drop in order).
    _pin: PinnedArtifact,
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        crate::sync::lock(&self.state)
    }

    /// The epoch for a new request, or the coded reason there is none.
    fn current(&self) -> Result<Arc<Epoch>, McpError> {
        let state = self.lock();
        if let Some(epoch) = &state.current {
            return Ok(Arc::clone(epoch));
        }
        Err(mcp_error(
            state.gone.as_ref().unwrap_or(&dev_server_gone(&self.root)),
        ))
    }

    /// Records why new requests now fail (and reports it once); the current epoch is retired.
    fn fail(&self, diagnostic: Diagnostic) {
        let mut state = self.lock();
        state.current = None;
        if state.gone.as_ref() != Some(&diagnostic) {
            (self.report)(&diagnostic);
            state.gone = Some(diagnostic);
        }
    }

    /// Starts the epoch the lock names, initialized as the host was.
    async fn start_epoch(
        self: &Arc<Self>,
        lock: &DevLock,
        client: InitializeRequestParams,
    ) -> Result<Epoch, Diagnostic> {
        // Linking the artifact and reading its manifest are blocking work the proxy's other
        // requests should not wait behind.
        let (root, asked) = (self.root.clone(), lock.clone());
        let (lock, pin) = tokio::task::spawn_blocking(move || pin_epoch(&root, asked))
            .await
            .map_err(|error| {
                epoch_gone(
                    &lock.digest,
                    &format!("its artifact could not be pinned: {error}"),
                )
            })?
            .map_err(|gone| *gone)?;
        let artifact = pin.dir();
        let host_binary = artifact.join(crate::emit::HOST_BINARY_PATH);
        if !host_binary.is_file() {
            return Err(epoch_gone(
                &lock.digest,
                &format!("its artifact has no {}", crate::emit::HOST_BINARY_PATH),
            ));
        }
        let mut child = tokio::process::Command::new(&host_binary)
            .args(["mcp", "--server", &self.server, "--artifact"])
            .arg(artifact)
            .env(crate::emit::PLUGIN_ROOT_ENV_ANCHOR, artifact)
            // Every epoch's sessions share the project's state, outside the epoch's artifact.
            .env(
                "ABGEN_STATE_DIR",
                self.root.join(".agent-bundle").join("state"),
            )
            .current_dir(artifact)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .map_err(|error| {
                epoch_gone(&lock.digest, &format!("its runtime did not start: {error}"))
            })?;
        let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
            return Err(epoch_gone(
                &lock.digest,
                "its runtime has no standard streams",
            ));
        };
        let progress = Arc::new(Mutex::new(HashMap::new()));
        let upstream = Upstream {
            shared: Arc::clone(self),
            client,
            progress: Arc::clone(&progress),
        };
        let service =
            match tokio::time::timeout(EPOCH_START_BOUND, upstream.serve((stdout, stdin))).await {
                Ok(Ok(service)) => service,
                Ok(Err(error)) => {
                    return Err(epoch_gone(
                        &lock.digest,
                        &format!("its server `{}` did not initialize: {error}", self.server),
                    ));
                }
                Err(_) => {
                    return Err(epoch_gone(
                        &lock.digest,
                        &format!(
                            "its server `{}` did not initialize within {} s",
                            self.server,
                            EPOCH_START_BOUND.as_secs()
                        ),
                    ));
                }
            };
        let Some(peer_info) = service.peer_info() else {
            return Err(epoch_gone(
                &lock.digest,
                "its server sent no server information",
            ));
        };
        let mut info = InitializeResult::new(peer_info.capabilities.clone());
        info.protocol_version = peer_info.protocol_version.clone();
        if let Some(server_info) = &peer_info.server_info {
            info.server_info = server_info.clone();
        }
        info.instructions = peer_info.instructions.clone();
        info.meta = peer_info.meta.clone();
        Ok(Epoch {
            digest: lock.digest.clone(),
            service,
            info,
            progress,
            _child: child,
            _pin: pin,
        })
    }

    /// Follows the lock until the host goes away: a new epoch becomes current (and the host is
    /// told its lists changed), a vanished development server or epoch fails closed.
    async fn watch_lock(self: Arc<Self>) {
        let mut interval = tokio::time::interval(LOCK_POLL);
        interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            interval.tick().await;
            let (client, host, current) = {
                let state = self.lock();
                (
                    state.client.clone(),
                    state.host.clone(),
                    state.current.clone(),
                )
            };
            let (Some(client), Some(host)) = (client, host) else {
                continue;
            };
            if host.is_transport_closed() {
                return;
            }
            let lock = match read_dev_lock(&self.root) {
                Some(lock) if process_alive(lock.pid) => lock,
                _ => {
                    self.fail(dev_server_gone(&self.root));
                    continue;
                }
            };
            match &current {
                Some(epoch) if epoch.digest == lock.digest => {
                    if epoch.service.is_transport_closed() {
                        self.fail(epoch_gone(&epoch.digest, "its runtime ended"));
                    } else if !lock
                        .out
                        .join(abgen_runtime::manifest::MANIFEST_FILE_NAME)
                        .is_file()
                    {
                        self.fail(epoch_gone(
                            &epoch.digest,
                            &format!("its artifact is no longer at {}", lock.out.display()),
                        ));
                    }
                    continue;
                }
                // A failed epoch is not retried until the lock names another.
                None if self.lock().gone.as_ref().is_some_and(|gone| {
                    gone.code == Code::AB8024 && gone.message.contains(&lock.digest)
                }) =>
                {
                    continue;
                }
                _ => {}
            }
            match self.start_epoch(&lock, client).await {
                Ok(epoch) => {
                    {
                        let mut state = self.lock();
                        state.current = Some(Arc::new(epoch));
                        state.gone = None;
                    }
                    // The catalog may have changed with the build: the host lists again.
                    let _ = host.notify_tool_list_changed().await;
                    let _ = host.notify_resource_list_changed().await;
                    let _ = host.notify_prompt_list_changed().await;
                }
                Err(diagnostic) => self.fail(diagnostic),
            }
        }
    }
}

impl Service<RoleServer> for Proxy {
    async fn handle_request(
        &self,
        request: ClientRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<ServerResult, McpError> {
        match request {
            ClientRequest::InitializeRequest(initialize) => {
                self.initialize(initialize.params, context.peer).await
            }
            ClientRequest::PingRequest(_) => Ok(ServerResult::empty(())),
            request => self.forward(request, context).await,
        }
    }

    async fn handle_notification(
        &self,
        notification: ClientNotification,
        _context: NotificationContext<RoleServer>,
    ) -> Result<(), McpError> {
        match notification {
            // Cancellation reaches an epoch through the request it cancels (`forward`); the
            // lifecycle notifications are the proxy's own.
            ClientNotification::CancelledNotification(_)
            | ClientNotification::InitializedNotification(_)
            | ClientNotification::ProgressNotification(_) => {}
            notification => {
                if let Ok(epoch) = self.shared.current() {
                    let _ = epoch.service.peer().send_notification(notification).await;
                }
            }
        }
        Ok(())
    }

    fn get_info(&self) -> InitializeResult {
        self.shared
            .lock()
            .current
            .as_ref()
            .map_or_else(InitializeResult::default, |epoch| listing(&epoch.info))
    }
}

impl Proxy {
    /// Connects the first epoch with the host's identity and answers with its server
    /// information, every list marked as one that changes.
    async fn initialize(
        &self,
        params: InitializeRequestParams,
        host: Peer<RoleServer>,
    ) -> Result<ServerResult, McpError> {
        let shared = &self.shared;
        let lock = match read_dev_lock(&shared.root) {
            Some(lock) if process_alive(lock.pid) => lock,
            _ => {
                let diagnostic = dev_server_gone(&shared.root);
                (shared.report)(&diagnostic);
                return Err(mcp_error(&diagnostic));
            }
        };
        let epoch = match shared.start_epoch(&lock, params.clone()).await {
            Ok(epoch) => epoch,
            Err(diagnostic) => {
                (shared.report)(&diagnostic);
                return Err(mcp_error(&diagnostic));
            }
        };
        let info = listing(&epoch.info);
        let start_watch = {
            let mut state = shared.lock();
            state.client = Some(params);
            state.host = Some(host);
            state.current = Some(Arc::new(epoch));
            !std::mem::replace(&mut state.watching, true)
        };
        if start_watch {
            tokio::spawn(Arc::clone(shared).watch_lock());
        }
        Ok(ServerResult::InitializeResult(info))
    }

    /// Sends `request` to the current epoch and answers with its answer; the host's
    /// cancellation is passed on as `notifications/cancelled` of the forwarded request.
    async fn forward(
        &self,
        request: ClientRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<ServerResult, McpError> {
        let epoch = self.shared.current()?;
        let peer = epoch.service.peer().clone();
        let handle = peer
            .send_cancellable_request(request, PeerRequestOptions::no_options())
            .await
            .map_err(|error| closed(&epoch, &error))?;
        let upstream_token = handle.progress_token.clone();
        let id = handle.id.clone();
        if let Some(host_token) = context.meta.get_progress_token() {
            crate::sync::lock(&epoch.progress).insert(upstream_token.clone(), host_token);
        }
        let answer = tokio::select! {
            answer = handle.await_response() => answer,
            () = context.ct.cancelled() => {
                let _ = peer
                    .notify_cancelled(CancelledNotificationParam::new(
                        Some(id),
                        Some("the host cancelled the request".to_owned()),
                    ))
                    .await;
                Err(ServiceError::Cancelled { reason: None })
            }
        };
        crate::sync::lock(&epoch.progress).remove(&upstream_token);
        answer.map_err(|error| closed(&epoch, &error))
    }
}

/// The upstream side: the rmcp client of one epoch's child, which speaks for the host.
struct Upstream {
    shared: Arc<Shared>,
    client: InitializeRequestParams,
    progress: Arc<Mutex<HashMap<ProgressToken, ProgressToken>>>,
}

impl Service<RoleClient> for Upstream {
    async fn handle_request(
        &self,
        request: ServerRequest,
        _context: RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ClientResult, McpError> {
        // Sampling, elicitation, roots: the host answers what the server asks.
        let host = self.shared.lock().host.clone();
        let Some(host) = host else {
            return Err(McpError::new(
                ErrorCode::INTERNAL_ERROR,
                "the host is not connected yet",
                None,
            ));
        };
        host.send_request(request)
            .await
            .map_err(|error| match error {
                ServiceError::McpError(error) => error,
                error => McpError::new(ErrorCode::INTERNAL_ERROR, error.to_string(), None),
            })
    }

    async fn handle_notification(
        &self,
        notification: ServerNotification,
        _context: NotificationContext<RoleClient>,
    ) -> Result<(), McpError> {
        let host = self.shared.lock().host.clone();
        let Some(host) = host else { return Ok(()) };
        let notification = match notification {
            ServerNotification::ProgressNotification(mut progress) => {
                // Progress of a request the host asked progress for, under the host's token.
                let host_token = crate::sync::lock(&self.progress)
                    .get(&progress.params.progress_token)
                    .cloned();
                let Some(host_token) = host_token else {
                    return Ok(());
                };
                progress.params.progress_token = host_token;
                ServerNotification::ProgressNotification(progress)
            }
            // The proxy answers for its own requests' cancellation.
            ServerNotification::CancelledNotification(_) => return Ok(()),
            notification => notification,
        };
        let _ = host.send_notification(notification).await;
        Ok(())
    }

    fn get_info(&self) -> InitializeRequestParams {
        self.client.clone()
    }
}

/// The epoch `lock` names, pinned (its own copy of the artifact, [`super::epoch`]); when a
/// newer build took the output meanwhile, that one, as the lock then names it.
fn pin_epoch(root: &Path, mut lock: DevLock) -> Result<(DevLock, PinnedArtifact), Box<Diagnostic>> {
    for _ in 0..PIN_ATTEMPTS {
        match pin_artifact(&lock.out, &lock.digest, &epochs_dir(root)) {
            Ok(pin) => return Ok((lock, pin)),
            Err(PinFailure::Failed(why)) => {
                return Err(Box::new(epoch_gone(&lock.digest, &why)));
            }
            Err(PinFailure::Changed) => {}
        }
        match read_dev_lock(root) {
            Some(newer) if newer.digest != lock.digest => lock = newer,
            // The output no longer holds the epoch the lock still names.
            _ => break,
        }
    }
    Err(Box::new(epoch_gone(
        &lock.digest,
        &format!("its artifact is no longer at {}", lock.out.display()),
    )))
}

/// `info` with every list it serves marked as one that changes (rebuilds change them).
fn listing(info: &InitializeResult) -> InitializeResult {
    let mut info = info.clone();
    let capabilities = &mut info.capabilities;
    capabilities
        .tools
        .get_or_insert_with(ToolsCapability::default)
        .list_changed = Some(true);
    if let Some(resources) = capabilities.resources.as_mut() {
        resources.list_changed = Some(true);
    }
    if let Some(prompts) = capabilities.prompts.as_mut() {
        prompts.list_changed = Some(true);
    }
    info
}

/// A forwarded request that ended without an answer of its epoch's: an MCP error the epoch sent
/// passes through; the epoch's runtime ending is AB8024.
fn closed(epoch: &Epoch, error: &ServiceError) -> McpError {
    match error {
        ServiceError::McpError(error) => error.clone(),
        ServiceError::Cancelled { .. } => {
            McpError::new(ErrorCode::INTERNAL_ERROR, "the request was cancelled", None)
        }
        error => mcp_error(&epoch_gone(
            &epoch.digest,
            &format!("its runtime ended before it answered ({error})"),
        )),
    }
}

/// The coded diagnostic as the MCP error a host sees: the message with its code, and the
/// diagnostic's fields as the error's data.
fn mcp_error(diagnostic: &Diagnostic) -> McpError {
    McpError::new(
        ErrorCode::INTERNAL_ERROR,
        format!("{} [{}]", diagnostic.message, diagnostic.code.as_str()),
        Some(serde_json::json!({
            "code": diagnostic.code.as_str(),
            "message": diagnostic.message,
            "recovery": diagnostic.recovery,
        })),
    )
}

/// AB8025: no `abgen dev` serves the project (no lock, or its process ended).
fn dev_server_gone(root: &Path) -> Diagnostic {
    Diagnostic::new(
        Code::AB8025,
        format!(
            "no development server: `abgen dev` is not running for {}, or has not built it successfully yet",
            root.display()
        ),
        format!(
            "start `abgen dev --root {}` (a host not yet connected reconnects then; a connected proxy serves its first good build by itself)",
            root.display()
        ),
    )
}

/// AB8024: the epoch a request needs is gone.
fn epoch_gone(digest: &str, why: &str) -> Diagnostic {
    Diagnostic::new(
        Code::AB8024,
        format!("the development epoch {digest} is gone: {why}"),
        "save a change (or restart `abgen dev`) so that a new build becomes the epoch; a request cut off this way is not retried",
    )
}
