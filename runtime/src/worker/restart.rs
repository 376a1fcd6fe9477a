//! A lazily started worker that is replaced after it dies.
//!
//! Entry: [`SupervisedWorker::render_events_until`]. The first render starts the process; a render
//! whose worker crashes, hangs past its deadline or breaks the protocol fails honestly (its
//! events end in a failed `complete` naming why) and the next render starts a fresh process.
//! Invariant: at most one process is alive per `SupervisedWorker`, and a dead one is never reused.

use std::time::Instant;

use super::protocol::{ComputedSchemas, RenderRequest, SchemasRequest};
use super::supervisor::{Abort, Worker, WorkerConfig, WorkerError};
use crate::document::{DocumentError, DocumentLimits, RenderEvent};
use crate::flight::FlightDecoder;

/// A worker process started on first use and restarted after a failure.
#[derive(Debug)]
pub struct SupervisedWorker {
    config: WorkerConfig,
    worker: Option<Worker>,
    starts: u32,
}

impl SupervisedWorker {
    /// A supervisor for `config`; nothing is spawned until the first render.
    pub fn new(config: WorkerConfig) -> Self {
        Self {
            config,
            worker: None,
            starts: 0,
        }
    }

    /// How many processes have been started so far.
    pub fn starts(&self) -> u32 {
        self.starts
    }

    /// [`Worker::render_events_until`] on the running process, started first when there is none
    /// or it died (a start failure also ends the events with a failed `complete`); a worker that
    /// crashed, timed out or was killed for ignoring its abort is replaced by the next render.
    pub fn render_events_until(
        &mut self,
        request: &RenderRequest,
        limits: DocumentLimits,
        deadline: Instant,
        abort: &Abort<'_>,
        mut sink: impl FnMut(RenderEvent),
    ) -> Result<(), WorkerError> {
        let worker = match self.running() {
            Ok(worker) => worker,
            Err(error) => {
                let mut decoder = FlightDecoder::new(request.route.clone(), limits);
                decoder
                    .fail(error.to_document_error())
                    .into_iter()
                    .for_each(&mut sink);
                return Err(error);
            }
        };
        let outcome = worker.render_events_until(request, limits, deadline, abort, sink);
        if outcome.is_err() || !worker.is_healthy() {
            // Dropping the worker kills it if it still runs; the next render starts afresh.
            self.worker = None;
        }
        outcome
    }

    /// [`Worker::route_schemas`] on the running process, started first when there is none; a
    /// worker that broke is replaced by the next request, and its error is the answer.
    pub fn route_schemas(
        &mut self,
        request: &SchemasRequest,
        deadline: Instant,
    ) -> Result<ComputedSchemas, DocumentError> {
        let worker = self.running().map_err(|error| error.to_document_error())?;
        let outcome = worker.route_schemas(request, deadline);
        if outcome.is_err() || !worker.is_healthy() {
            self.worker = None;
        }
        outcome.map_err(|error| error.to_document_error())?
    }

    /// Whether a process runs now (started and not found dead since).
    pub fn is_running(&self) -> bool {
        self.worker.is_some()
    }

    /// Ends the process, if one runs (killed and reaped); the next render starts a fresh one.
    pub fn stop(&mut self) {
        self.worker = None;
    }

    /// Starts the process now, if none runs, so the first render does not wait for Node.
    pub fn start_now(&mut self) -> Result<(), WorkerError> {
        self.running().map(|_| ())
    }

    fn running(&mut self) -> Result<&mut Worker, WorkerError> {
        if let Some(worker) = &mut self.worker
            && !worker.is_healthy()
        {
            self.worker = None;
        }
        if self.worker.is_none() {
            self.starts += 1;
            self.worker = Some(Worker::start(&self.config)?);
        }
        self.worker.as_mut().ok_or(WorkerError::Exited)
    }
}
