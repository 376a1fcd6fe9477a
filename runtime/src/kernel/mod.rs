//! The kernel: the one render path behind every surface. MCP, the warm socket and the CLI hand
//! it an [`Invocation`] and read back render events; nothing else starts a render worker.
//!
//! Entry: [`Kernel::start`], then [`Kernel::render`]. A pool of supervised Node workers
//! (`workers`, default one per CPU) takes invocations from one bounded queue; a render beyond the
//! queue's capacity is refused at once with [`KernelError::Busy`], so a caller never waits for
//! room. Each render runs until its deadline and stops early when its [`Cancel`] fires (or its
//! [`Rendering`] is dropped) or its render budget (`limits.max_elapsed_ms`, counted from when the
//! render reaches a started worker) runs out: the worker's AbortSignal fires, and a render that
//! ignores it (a busy loop) has its worker killed after `abort_grace` and replaced for the next
//! one.
//!
//! Who starts and ends what: [`Kernel::start`] starts the pool threads; each owns one
//! [`SupervisedWorker`], which starts its Node process early or on first use (through
//! `worker::lifetime`, so none outlives this process); a worker beyond the first stops its
//! process after `idle_worker_exit` idle and starts it again on demand. Dropping the [`Kernel`]
//! closes the pool; each thread ends after the render it is on, and its worker with it.
//!
//! Affinity (`pool`): a render goes to the lowest-numbered idle worker, so the renders of one
//! process stay on one worker, and share its process-lifetime providers, unless it is busy.
//!
//! Invariant: every accepted render ends with exactly one `complete` event (failed when the
//! worker broke, timed out or was killed), unless its caller cancelled it, and then the caller
//! has stopped listening.

mod events;
mod pool;
mod shared;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use crate::document::{DocumentLimits, RenderEvent};
use crate::worker::{RenderLimits, RouteKind, WorkerConfig};

pub use pool::Kernel;
pub use shared::{ArtifactKernelError, SharedKernel, WORKER_ENTRY, artifact_kernel_config};

/// How a kernel renders.
#[derive(Debug, Clone)]
pub struct KernelConfig {
    /// How every pool worker is started (Node, the artifact's `runtime/worker.mjs`, identity).
    pub worker: WorkerConfig,
    /// Pool size: how many renders run at once.
    pub workers: usize,
    /// How many accepted renders may wait for a worker.
    pub queue_capacity: usize,
    /// Bounds every decoded document (the artifact's `limits.render`).
    pub limits: DocumentLimits,
    /// How long an aborted render may take to end before its worker is killed.
    pub abort_grace: Duration,
    /// Start the first worker's Node process when the kernel starts, not on its first render (the
    /// MCP server's kernel does, started as `abgen-host mcp` starts, so the first call does not
    /// pay for Node's start). The others start on demand either way: started beside the first,
    /// they would compete with it, and with the first call's render, for the CPUs a cold start is
    /// short of.
    pub start_workers_early: bool,
    /// How long a worker beyond the first may wait for a render before its Node process stops
    /// (it starts again on demand); the first keeps its process, and its providers, for good.
    pub idle_worker_exit: Duration,
}

impl KernelConfig {
    /// The default queue capacity.
    pub const QUEUE_CAPACITY: usize = 256;
    /// The default abort grace.
    pub const ABORT_GRACE: Duration = Duration::from_secs(1);
    /// The default idle time after which a worker beyond the first stops.
    pub const IDLE_WORKER_EXIT: Duration = Duration::from_secs(60);

    /// One worker per CPU, the default queue and grace.
    pub fn new(worker: WorkerConfig, limits: DocumentLimits) -> Self {
        Self {
            worker,
            workers: std::thread::available_parallelism().map_or(1, usize::from),
            queue_capacity: Self::QUEUE_CAPACITY,
            limits,
            abort_grace: Self::ABORT_GRACE,
            start_workers_early: false,
            idle_worker_exit: Self::IDLE_WORKER_EXIT,
        }
    }
}

/// One render the kernel is asked for, whichever surface it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Invocation {
    pub kind: RouteKind,
    /// How the render was invoked, when that is not `kind` (a tool run as a CLI command).
    pub invocation: Option<RouteKind>,
    /// The route id (`tool:library/search_books`, `event:tool/before`).
    pub route: String,
    /// A tool's arguments; an event route's `{canonical, native, provenance}`.
    pub input: Value,
    /// The request-context axes the surface observed (the worker protocol's `context`).
    pub context: Map<String, Value>,
    /// Provider values a test injects, by key (the worker protocol's `providers`); every
    /// surface a host reaches leaves it empty.
    pub providers: Map<String, Value>,
    /// Bounds the worker enforces itself (it aborts the render).
    pub limits: RenderLimits,
}

/// Asks a render to stop; cheap to clone, shared by the caller and the kernel.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<CancelState>);

#[derive(Debug, Default)]
struct CancelState {
    cancelled: AtomicBool,
    reason: Mutex<Option<String>>,
}

impl Cancel {
    pub fn new() -> Self {
        Self::default()
    }

    /// Stops the render (its AbortSignal fires with `reason`); the first reason given wins.
    pub fn cancel(&self, reason: impl Into<String>) {
        let mut held = self.0.reason.lock().unwrap_or_else(PoisonError::into_inner);
        if held.is_none() {
            *held = Some(reason.into());
        }
        self.0.cancelled.store(true, Ordering::SeqCst);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.cancelled.load(Ordering::SeqCst)
    }

    /// The reason, once cancelled.
    pub fn reason(&self) -> Option<String> {
        if !self.is_cancelled() {
            return None;
        }
        self.0
            .reason
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// Why the kernel did not take a render.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KernelError {
    #[error(
        "the runtime is busy: {capacity} renders are already waiting for a worker; try again shortly"
    )]
    Busy { capacity: usize },
    #[error("the runtime is shutting down")]
    Stopped,
}

impl KernelError {
    /// The error code MCP results and hook logs name.
    pub fn code(&self) -> &'static str {
        match self {
            KernelError::Busy { .. } => "busy",
            KernelError::Stopped => "stopped",
        }
    }
}

/// The events of one accepted render, in order, ending with `complete`. Dropping it before its
/// `complete` cancels the render.
#[derive(Debug)]
pub struct Rendering {
    events: events::EventReceiver,
    cancel: Cancel,
    /// Whether `complete` has been handed out.
    completed: AtomicBool,
}

/// What waiting for a render's next event gave.
#[derive(Debug)]
pub enum Next {
    Event(Box<RenderEvent>),
    /// Nothing yet; the render goes on.
    Pending,
    /// No event will come any more (after `complete`, or once cancelled).
    Ended,
}

impl Rendering {
    /// The next event, waiting until `until` at most.
    pub fn next_until(&self, until: Instant) -> Next {
        match self.events.recv_until(until) {
            Ok(event) => Next::Event(Box::new(self.handed_out(event))),
            Err(events::NoEvent::Timeout) => Next::Pending,
            Err(events::NoEvent::Ended) => Next::Ended,
        }
    }

    /// The next event, awaited; `None` once no event will come any more. An async caller reads
    /// the render here, with no thread of its own in between.
    pub async fn next_event(&self) -> Option<RenderEvent> {
        let event = self.events.recv().await?;
        Some(self.handed_out(event))
    }

    /// The render's cancel handle.
    pub fn cancel(&self) -> &Cancel {
        &self.cancel
    }

    fn handed_out(&self, event: RenderEvent) -> RenderEvent {
        if matches!(
            event.kind,
            crate::document::RenderEventKind::Complete { .. }
        ) {
            self.completed.store(true, Ordering::Relaxed);
        }
        event
    }
}

impl Iterator for Rendering {
    type Item = RenderEvent;

    fn next(&mut self) -> Option<RenderEvent> {
        let event = self.events.blocking_recv()?;
        Some(self.handed_out(event))
    }
}

impl Drop for Rendering {
    fn drop(&mut self) {
        // Nobody reads the events any more: an unfinished render has no reason to go on.
        if !self.completed.load(Ordering::Relaxed) {
            self.cancel.cancel("the caller stopped listening");
        }
    }
}
