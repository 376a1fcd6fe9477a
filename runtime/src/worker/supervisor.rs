//! The supervised worker process: spawn, hello check, renders, timeouts.
//!
//! Entry: [`Worker::start`]. Node runs as `node --conditions=react-server <entry>` with
//! NODE_ENV=production; fd 3 is a pipe from us, fd 4 a pipe to us (mapped with `command-fds`),
//! and its stdout and stderr both go to our stderr, so author output never meets the protocol.
//! fd 4 is read on the thread that waits for the frame ([`WorkerOutput`]: a non-blocking pipe
//! and `poll`), which is what lets every wait have a deadline without a reader thread (and its
//! wake-up on every frame). The process is started and reaped only through `lifetime` (which also makes it die
//! with this process). Invariant: after a timeout, a malformed frame or a wrong identity the process is
//! killed and the `Worker` refuses further renders.

use std::io::Write as _;
use std::os::fd::{AsFd as _, OwnedFd};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use command_fds::{CommandFdExt as _, FdMapping};

use super::frame::{Frame, FrameBuffer, encode_frame};
use super::lifetime;
use super::node::NodeBinary;
use super::protocol::{
    ComputedSchemas, HostMessage, RenderRequest, SchemasRequest, WorkerIdentity, WorkerMessage,
};
use crate::document::{DocumentError, DocumentLimits, RenderEvent};
use crate::flight::FlightDecoder;

/// Why the worker could not serve a render.
#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    #[error(
        "Node.js was not found: the render worker needs Node.js {} or newer; looked for {looked_for}. Install Node.js {} or newer so that `node` is on PATH, or set ABGEN_NODE to the path of a node executable",
        super::node::MIN_NODE_MAJOR,
        super::node::MIN_NODE_MAJOR
    )]
    NodeNotFound { looked_for: String },
    #[error("Node.js at {} is {version}; the render worker needs Node.js {minimum} or newer: install a newer Node.js on PATH, or set ABGEN_NODE to the path of one", path.display())]
    NodeTooOld {
        path: PathBuf,
        version: String,
        minimum: u32,
    },
    #[error("could not start the render worker: {0}")]
    Spawn(std::io::Error),
    #[error("the render worker's identity {found:?} does not match this artifact's {expected:?}")]
    IdentityMismatch {
        expected: WorkerIdentity,
        found: WorkerIdentity,
    },
    #[error("the render worker broke the protocol: {0}")]
    Protocol(String),
    #[error("the render worker did not answer within {} ms", .0.as_millis())]
    Timeout(Duration),
    #[error("the render did not stop within {} ms of its abort ({reason}); its worker was killed", grace.as_millis())]
    AbortIgnored { reason: String, grace: Duration },
    #[error("the render worker exited")]
    Exited,
}

impl WorkerError {
    /// This error as a document error, for the failed document of the render it broke.
    pub fn to_document_error(&self) -> DocumentError {
        let code = match self {
            WorkerError::NodeNotFound { .. }
            | WorkerError::NodeTooOld { .. }
            | WorkerError::Spawn(_) => "worker-unavailable",
            WorkerError::IdentityMismatch { .. } => "worker-identity",
            WorkerError::Protocol(_) => "worker-protocol",
            WorkerError::Timeout(_) => "timeout",
            WorkerError::AbortIgnored { .. } => "aborted",
            WorkerError::Exited => "worker-exited",
        };
        DocumentError::new(code, self.to_string())
    }
}

/// How to start a worker.
#[derive(Debug, Clone)]
pub struct WorkerConfig {
    pub node: NodeBinary,
    /// The bundled worker entry (`runtime/worker.mjs` in an artifact).
    pub entry: PathBuf,
    /// What the worker's hello must say.
    pub expected: WorkerIdentity,
    pub hello_timeout: Duration,
    /// The MCP server whose routes this worker renders, when it renders for one: the worker
    /// applies that server's declared `env` defaults (the manifest's) under the operator's
    /// `.env` layer. Passed as [`WORKER_SERVER_ENV`], which the worker removes before any route
    /// module evaluates.
    pub server: Option<String>,
}

/// The variable that names a worker's MCP server ([`WorkerConfig::server`]).
pub const WORKER_SERVER_ENV: &str = "ABGEN_WORKER_SERVER";

/// A running worker process.
#[derive(Debug)]
pub struct Worker {
    child: Child,
    to_worker: std::io::PipeWriter,
    frames: WorkerOutput,
    healthy: bool,
}

/// The worker's fd 4, read on the caller's thread: whole frames as they arrive, each wait bounded.
#[derive(Debug)]
struct WorkerOutput {
    /// Non-blocking: a read takes what has arrived and never waits; `poll` does the waiting.
    pipe: std::io::PipeReader,
    buffer: FrameBuffer,
    ended: bool,
}

impl WorkerOutput {
    fn new(pipe: std::io::PipeReader) -> Result<Self, WorkerError> {
        rustix::io::ioctl_fionbio(&pipe, true).map_err(|error| WorkerError::Spawn(error.into()))?;
        Ok(WorkerOutput {
            pipe,
            buffer: FrameBuffer::default(),
            ended: false,
        })
    }

    /// The next frame, waiting until `until` at most (`None` then); the worker's exit, a broken
    /// frame or a failed read is an error.
    fn next_until(&mut self, until: Instant) -> Option<Result<Frame, WorkerError>> {
        use std::io::Read as _;
        let mut chunk = [0u8; 64 * 1024];
        loop {
            match self.buffer.next_frame() {
                Ok(Some(frame)) => return Some(Ok(frame)),
                Ok(None) => {}
                Err(error) => return Some(Err(WorkerError::Protocol(error.to_string()))),
            }
            if self.ended {
                return Some(Err(if self.buffer.holds_partial_frame() {
                    WorkerError::Protocol("the worker's output ended inside a frame".into())
                } else {
                    WorkerError::Exited
                }));
            }
            match self.pipe.read(&mut chunk) {
                Ok(0) => self.ended = true,
                Ok(read) => self.buffer.push(&chunk[..read]),
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => {
                    let now = Instant::now();
                    if now >= until {
                        return None;
                    }
                    let wait = rustix::event::Timespec::try_from(until - now).unwrap_or(
                        rustix::event::Timespec {
                            tv_sec: i64::MAX,
                            tv_nsec: 0,
                        },
                    );
                    let mut fds = [rustix::event::PollFd::new(
                        &self.pipe,
                        rustix::event::PollFlags::IN,
                    )];
                    match rustix::event::poll(&mut fds, Some(&wait)) {
                        Ok(_) | Err(rustix::io::Errno::INTR) => {}
                        Err(error) => {
                            return Some(Err(WorkerError::Protocol(format!(
                                "waiting for the worker's output failed: {error}"
                            ))));
                        }
                    }
                }
                Err(error) => {
                    return Some(Err(WorkerError::Protocol(format!(
                        "reading the worker's output failed: {error}"
                    ))));
                }
            }
        }
    }
}

impl Worker {
    /// Spawns the worker and waits for a hello with the expected identity.
    pub fn start(config: &WorkerConfig) -> Result<Self, WorkerError> {
        let (worker_reads, to_worker) = std::io::pipe().map_err(WorkerError::Spawn)?;
        let (from_worker, worker_writes) = std::io::pipe().map_err(WorkerError::Spawn)?;
        let stderr = || {
            std::io::stderr()
                .as_fd()
                .try_clone_to_owned()
                .map(Stdio::from)
                .map_err(WorkerError::Spawn)
        };
        let mut command = Command::new(&config.node.path);
        command
            .arg("--conditions=react-server")
            .arg(&config.entry)
            .env("NODE_ENV", "production")
            .env_remove(WORKER_SERVER_ENV)
            .stdin(Stdio::null())
            .stdout(stderr()?)
            .stderr(stderr()?)
            .fd_mappings(vec![
                FdMapping {
                    parent_fd: OwnedFd::from(worker_reads),
                    child_fd: 3,
                },
                FdMapping {
                    parent_fd: OwnedFd::from(worker_writes),
                    child_fd: 4,
                },
            ])
            .map_err(|_| WorkerError::Spawn(std::io::Error::other("fd 3 and 4 collide")))?;
        if let Some(server) = &config.server {
            command.env(WORKER_SERVER_ENV, server);
        }
        // The child's pipe ends live in `command`, which `spawn` consumes and drops: the child is
        // left as their only owner, so the worker's exit shows up here as end of stream.
        let child = lifetime::spawn(command).map_err(WorkerError::Spawn)?;

        let frames = WorkerOutput::new(from_worker)?;

        let mut worker = Worker {
            child,
            to_worker,
            frames,
            healthy: true,
        };
        let deadline = Instant::now() + config.hello_timeout;
        let first = worker
            .next_message(deadline, config.hello_timeout)
            .map_err(|error| {
                worker.kill();
                config.node.explain_early_failure(error)
            })?;
        match first {
            (WorkerMessage::Hello(found), _) if found == config.expected => Ok(worker),
            (WorkerMessage::Hello(found), _) => {
                worker.kill();
                Err(WorkerError::IdentityMismatch {
                    expected: config.expected.clone(),
                    found,
                })
            }
            (other, _) => {
                worker.kill();
                Err(WorkerError::Protocol(format!(
                    "expected hello first, got {other:?}"
                )))
            }
        }
    }

    /// Sends `request` and returns the stream of its frames, which ends after `end` or `error`.
    pub fn render(
        &mut self,
        request: &RenderRequest,
        timeout: Duration,
    ) -> Result<RenderStream<'_>, WorkerError> {
        if !self.healthy {
            return Err(WorkerError::Exited);
        }
        self.send(&HostMessage::Render(request.clone()))?;
        Ok(RenderStream {
            worker: self,
            id: request.id,
            deadline: Instant::now() + timeout,
            timeout,
            done: false,
        })
    }

    /// Asks the worker to abort render `id`.
    pub fn abort(&mut self, id: u64, reason: &str) -> Result<(), WorkerError> {
        self.send(&HostMessage::Abort {
            id,
            reason: reason.to_owned(),
        })
    }

    /// Renders `request` and hands every render event to `sink`; the last one is always `complete`.
    /// A worker failure still ends the events with a failed `complete`, and is also returned.
    pub fn render_events(
        &mut self,
        request: &RenderRequest,
        limits: DocumentLimits,
        timeout: Duration,
        sink: impl FnMut(RenderEvent),
    ) -> Result<(), WorkerError> {
        self.render_events_until(
            request,
            limits,
            Instant::now() + timeout,
            &Abort::never(),
            sink,
        )
    }

    /// [`Worker::render_events`], ending at `deadline` (the worker is killed then), and aborted
    /// once `abort` asks: the worker is told (the route's AbortSignal fires) and its remaining
    /// frames still arrive; a render still running `abort.grace` later (a busy loop never sees
    /// its signal) kills the worker.
    pub fn render_events_until(
        &mut self,
        request: &RenderRequest,
        limits: DocumentLimits,
        deadline: Instant,
        abort: &Abort<'_>,
        mut sink: impl FnMut(RenderEvent),
    ) -> Result<(), WorkerError> {
        let mut decoder = FlightDecoder::new(request.route.clone(), limits);
        let outcome = self.drive(request, deadline, abort, &mut decoder, &mut sink);
        if let Err(error) = &outcome {
            decoder
                .fail(error.to_document_error())
                .into_iter()
                .for_each(&mut sink);
        }
        outcome
    }

    fn drive(
        &mut self,
        request: &RenderRequest,
        deadline: Instant,
        abort: &Abort<'_>,
        decoder: &mut FlightDecoder,
        sink: &mut impl FnMut(RenderEvent),
    ) -> Result<(), WorkerError> {
        let timeout = deadline.saturating_duration_since(Instant::now());
        let mut stream = self.render(request, timeout)?;
        // Set once the abort was sent: (its reason, when the worker must have stopped).
        let mut aborted: Option<(String, Instant)> = None;
        loop {
            if aborted.is_none()
                && let Some(reason) = (abort.requested)()
            {
                stream.abort(&reason)?;
                aborted = Some((reason, Instant::now() + abort.grace));
            }
            let wait_until = match &aborted {
                Some((_, stop_by)) => (*stop_by).min(deadline),
                None => (Instant::now() + abort.poll).min(deadline),
            };
            let item = match stream.next_until(wait_until) {
                Step::Frame(item) => item,
                Step::Done => return Ok(()),
                Step::Waiting => {
                    if let Some((reason, stop_by)) = &aborted
                        && Instant::now() >= *stop_by
                    {
                        stream.worker.kill();
                        return Err(WorkerError::AbortIgnored {
                            reason: reason.clone(),
                            grace: abort.grace,
                        });
                    }
                    continue;
                }
            };
            let (message, payload) = item?;
            let events = match message {
                WorkerMessage::Flight { .. } => decoder.push(&payload),
                WorkerMessage::Progress {
                    completed,
                    total,
                    message,
                    ..
                } => decoder.progress(completed, total, message),
                WorkerMessage::Log {
                    level,
                    message,
                    data,
                    ..
                } => decoder.log(level, message, data),
                WorkerMessage::End { .. } => decoder.finish(),
                WorkerMessage::Error { error, .. } => decoder.fail(error),
                WorkerMessage::Hello(_) | WorkerMessage::Schemas { .. } => Vec::new(),
            };
            events.into_iter().for_each(&mut *sink);
        }
    }

    /// Asks for the run-time JSON Schemas of `request`'s route and waits for them until
    /// `deadline` (the worker is killed then). `Ok(Err)` is the worker's own refusal (the route
    /// is unknown, does not load, or has a schema with no JSON form); `Err` is a broken worker.
    pub fn route_schemas(
        &mut self,
        request: &SchemasRequest,
        deadline: Instant,
    ) -> Result<Result<ComputedSchemas, DocumentError>, WorkerError> {
        if !self.healthy {
            return Err(WorkerError::Exited);
        }
        self.send(&HostMessage::Schemas(request.clone()))?;
        let timeout = deadline.saturating_duration_since(Instant::now());
        loop {
            match self.next_message(deadline, timeout)? {
                (WorkerMessage::Schemas { id, schemas }, _) if id == request.id => {
                    return Ok(Ok(schemas));
                }
                (WorkerMessage::Error { id, error }, _) if id == request.id => {
                    return Ok(Err(error));
                }
                (WorkerMessage::Hello(_), _) => {
                    self.kill();
                    return Err(WorkerError::Protocol("a second hello".into()));
                }
                // A late frame of an earlier request that already ended for its caller.
                _ => {}
            }
        }
    }

    fn send(&mut self, message: &HostMessage) -> Result<(), WorkerError> {
        let header = serde_json::to_value(message)
            .map_err(|error| WorkerError::Protocol(error.to_string()))?;
        let frame =
            encode_frame(&header, &[]).map_err(|error| WorkerError::Protocol(error.to_string()))?;
        self.to_worker.write_all(&frame).map_err(|_| {
            self.healthy = false;
            WorkerError::Exited
        })
    }

    fn next_message(
        &mut self,
        deadline: Instant,
        timeout: Duration,
    ) -> Result<(WorkerMessage, Vec<u8>), WorkerError> {
        self.next_message_until(deadline, deadline, timeout)
            .unwrap_or(Err(WorkerError::Timeout(timeout)))
    }

    /// The next message, waiting until `wait_until` (`None` when nothing came by then, before
    /// `deadline`); at `deadline` the worker is killed.
    fn next_message_until(
        &mut self,
        wait_until: Instant,
        deadline: Instant,
        timeout: Duration,
    ) -> Option<Result<(WorkerMessage, Vec<u8>), WorkerError>> {
        let wait = wait_until
            .min(deadline)
            .saturating_duration_since(Instant::now());
        let frame = match self.frames.next_until(Instant::now() + wait) {
            Some(Ok(frame)) => frame,
            Some(Err(error)) => {
                self.kill();
                return Some(Err(error));
            }
            None if Instant::now() < deadline => return None,
            None => {
                self.kill();
                return Some(Err(WorkerError::Timeout(timeout)));
            }
        };
        Some(
            match serde_json::from_value::<WorkerMessage>(frame.header) {
                Ok(message) => Ok((message, frame.payload)),
                Err(error) => {
                    self.kill();
                    Err(WorkerError::Protocol(format!(
                        "unreadable frame header: {error}"
                    )))
                }
            },
        )
    }

    /// Whether the process is still usable: not killed, not exited, not broken.
    pub fn is_healthy(&mut self) -> bool {
        if self.healthy && lifetime::has_exited(&mut self.child) {
            self.healthy = false;
        }
        self.healthy
    }

    fn kill(&mut self) {
        self.healthy = false;
        // The process may already be gone; either way it must not outlive its usefulness.
        lifetime::end(&mut self.child);
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The frames of one render, in order; ends after `end` or `error`.
#[derive(Debug)]
pub struct RenderStream<'w> {
    worker: &'w mut Worker,
    id: u64,
    deadline: Instant,
    timeout: Duration,
    done: bool,
}

impl RenderStream<'_> {
    /// Asks the worker to abort this render (the route's AbortSignal fires with `reason`); the
    /// render's remaining frames, ending in `end` or `error`, still follow.
    pub fn abort(&mut self, reason: &str) -> Result<(), WorkerError> {
        self.worker.abort(self.id, reason)
    }
}

/// When a render is to be aborted, asked between frames.
pub struct Abort<'a> {
    /// The reason, once the render is to stop.
    pub requested: &'a dyn Fn() -> Option<String>,
    /// How long an aborted render may take to end before its worker is killed.
    pub grace: Duration,
    /// How often `requested` is asked while no frame arrives.
    pub poll: Duration,
}

impl Abort<'static> {
    /// A render nobody aborts.
    pub fn never() -> Self {
        Abort {
            requested: &|| None,
            grace: Duration::ZERO,
            poll: Duration::from_secs(3600),
        }
    }
}

/// What one wait on a render stream gave.
enum Step {
    Frame(Result<(WorkerMessage, Vec<u8>), WorkerError>),
    /// Nothing arrived yet; the deadline has not passed.
    Waiting,
    /// The render has ended.
    Done,
}

impl RenderStream<'_> {
    /// The next frame, waiting until `wait_until` at most (the render's deadline still kills).
    fn next_until(&mut self, wait_until: Instant) -> Step {
        if self.done {
            return Step::Done;
        }
        let Some(item) = self
            .worker
            .next_message_until(wait_until, self.deadline, self.timeout)
        else {
            return Step::Waiting;
        };
        self.done = match &item {
            Err(_) => true,
            Ok((WorkerMessage::End { id } | WorkerMessage::Error { id, .. }, _)) => *id == self.id,
            Ok((WorkerMessage::Hello(_), _)) => {
                self.worker.kill();
                self.done = true;
                return Step::Frame(Err(WorkerError::Protocol("a second hello".into())));
            }
            Ok(_) => false,
        };
        Step::Frame(item)
    }
}

impl Iterator for RenderStream<'_> {
    type Item = Result<(WorkerMessage, Vec<u8>), WorkerError>;

    fn next(&mut self) -> Option<Self::Item> {
        match self.next_until(self.deadline) {
            Step::Frame(item) => Some(item),
            Step::Done => None,
            // Waiting until the deadline itself ends in a timeout, never here.
            Step::Waiting => Some(Err(WorkerError::Timeout(self.timeout))),
        }
    }
}
