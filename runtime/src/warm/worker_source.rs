//! A [`RenderSource`] backed by a real render worker: the warm runtime the MCP server process
//! hosts, so hooks render on a worker that is already running.
//!
//! Entry: [`WorkerSource::new`], then hand it to [`super::WarmServer::bind`]. Invariant: one
//! worker process at a time, started on the first request and replaced after it dies; requests
//! render one after another on it, each bounded by its own deadline, and a request whose worker
//! fails still ends with a failed `complete` (never silence).

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use serde_json::Value;

use super::protocol::{WarmKind, WarmRequest};
use super::server::RenderSource;
use crate::document::{DocumentLimits, RenderEvent};
use crate::worker::{RenderLimits, RenderRequest, RouteKind, SupervisedWorker, WorkerConfig};

/// Renders warm requests on one supervised worker.
#[derive(Debug)]
pub struct WorkerSource {
    worker: Mutex<SupervisedWorker>,
    limits: DocumentLimits,
    next_id: AtomicU64,
}

impl WorkerSource {
    /// A source that starts the worker of `config` on its first request; `limits` bound every
    /// decoded render (the artifact's `limits.render`).
    pub fn new(config: WorkerConfig, limits: DocumentLimits) -> Self {
        Self {
            worker: Mutex::new(SupervisedWorker::new(config)),
            limits,
            next_id: AtomicU64::new(1),
        }
    }
}

impl RenderSource for WorkerSource {
    fn render(
        &self,
        request: &WarmRequest,
        deadline: Instant,
        emit: &mut dyn FnMut(&RenderEvent) -> bool,
    ) {
        let input = match request.kind {
            WarmKind::Tool => request.input.clone(),
            WarmKind::Event => request.event.clone(),
        };
        let timeout = deadline.saturating_duration_since(Instant::now());
        let render = RenderRequest {
            id: self.next_id.fetch_add(1, Ordering::Relaxed),
            route: request.route.clone(),
            kind: match request.kind {
                WarmKind::Tool => RouteKind::Tool,
                WarmKind::Event => RouteKind::Event,
            },
            input: input.unwrap_or_else(|| Value::Object(Default::default())),
            context: Default::default(),
            limits: RenderLimits {
                max_flight_bytes: u64::try_from(self.limits.max_bytes).ok(),
                max_elapsed_ms: u64::try_from(timeout.as_millis()).ok(),
            },
        };
        // A render that panicked poisons the lock, not the worker: keep serving.
        let mut worker = self
            .worker
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // The worker's error is already in the events' failed `complete`.
        let _ = worker.render_events(&render, self.limits, timeout, |event| {
            emit(&event);
        });
    }
}
