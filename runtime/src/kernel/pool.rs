//! The render pool: worker threads, each owning one supervised Node worker, fed by one bounded
//! queue.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::{Cancel, Invocation, KernelConfig, KernelError, Rendering};
use crate::document::{DocumentError, DocumentLimits, RenderEvent};
use crate::flight::FlightDecoder;
use crate::worker::{Abort, RenderRequest, SupervisedWorker};

/// How often a render that sends nothing checks whether it was cancelled.
const CANCEL_POLL: Duration = Duration::from_millis(5);

/// One accepted render, waiting for a worker.
struct Job {
    id: u64,
    invocation: Invocation,
    cancel: Cancel,
    deadline: Instant,
    events: mpsc::Sender<RenderEvent>,
}

/// The render pool every surface renders through (see the module docs of `kernel`).
#[derive(Debug)]
pub struct Kernel {
    /// `None` once the kernel is stopping.
    queue: Option<SyncSender<Job>>,
    capacity: usize,
    limits: DocumentLimits,
    /// Set when the kernel is dropped: renders in flight are aborted, queued ones skipped.
    stopping: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
    next_id: std::sync::atomic::AtomicU64,
}

impl std::fmt::Debug for Job {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Job")
            .field("id", &self.id)
            .field("route", &self.invocation.route)
            .finish_non_exhaustive()
    }
}

impl Kernel {
    /// Starts the pool threads; no Node process starts before the first render.
    pub fn start(config: KernelConfig) -> Self {
        let (queue, jobs) = mpsc::sync_channel::<Job>(config.queue_capacity);
        let jobs = Arc::new(Mutex::new(jobs));
        let config = Arc::new(config);
        let stopping = Arc::new(AtomicBool::new(false));
        let threads = (0..config.workers.max(1))
            .filter_map(|index| {
                let jobs = Arc::clone(&jobs);
                let config = Arc::clone(&config);
                let stopping = Arc::clone(&stopping);
                std::thread::Builder::new()
                    .name(format!("abgen-render-{index}"))
                    .spawn(move || serve(&config, &jobs, &stopping))
                    .ok()
            })
            .collect();
        Self {
            queue: Some(queue),
            capacity: config.queue_capacity,
            limits: config.limits,
            stopping,
            threads,
            next_id: std::sync::atomic::AtomicU64::new(1),
        }
    }

    /// Queues `invocation`, to render before `deadline` unless `cancel` fires first. Never
    /// waits: a full queue is [`KernelError::Busy`] at once.
    pub fn render(
        &self,
        invocation: Invocation,
        cancel: Cancel,
        deadline: Instant,
    ) -> Result<Rendering, KernelError> {
        let Some(queue) = &self.queue else {
            return Err(KernelError::Stopped);
        };
        let (events, received) = mpsc::channel();
        let job = Job {
            id: self
                .next_id
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            invocation,
            cancel: cancel.clone(),
            deadline,
            events,
        };
        match queue.try_send(job) {
            Ok(()) => Ok(Rendering {
                events: received,
                cancel,
                completed: std::cell::Cell::new(false),
            }),
            Err(TrySendError::Full(_)) => Err(KernelError::Busy {
                capacity: self.capacity,
            }),
            Err(TrySendError::Disconnected(_)) => Err(KernelError::Stopped),
        }
    }
}

impl Kernel {
    /// The bounds every decoded document of this kernel keeps.
    pub fn limits(&self) -> DocumentLimits {
        self.limits
    }

    /// The events of a render of `route` that failed with `error` before it reached a worker:
    /// a failed `complete`, as every render ends.
    pub fn failed_events(&self, route: &str, error: DocumentError) -> Vec<RenderEvent> {
        failed_events(route, self.limits, error)
    }
}

fn failed_events(route: &str, limits: DocumentLimits, error: DocumentError) -> Vec<RenderEvent> {
    FlightDecoder::new(route.to_owned(), limits).fail(error)
}

impl Drop for Kernel {
    fn drop(&mut self) {
        // Renders in flight are aborted (a busy loop's worker is killed after the grace), queued
        // ones are skipped, and closing the queue ends every thread; each drops its worker.
        self.stopping.store(true, Ordering::SeqCst);
        self.queue = None;
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

/// One pool thread: takes jobs until the queue closes.
fn serve(config: &KernelConfig, jobs: &Mutex<Receiver<Job>>, stopping: &AtomicBool) {
    let mut worker = SupervisedWorker::new(config.worker.clone());
    if config.start_workers_early {
        // A failure here is met again, and reported, by the first render.
        let _ = worker.start_now();
    }
    loop {
        let job = {
            let jobs = jobs.lock().unwrap_or_else(PoisonError::into_inner);
            jobs.recv()
        };
        let Ok(job) = job else { return };
        run(config, &mut worker, job, stopping);
    }
}

fn run(config: &KernelConfig, worker: &mut SupervisedWorker, job: Job, stopping: &AtomicBool) {
    if job.cancel.is_cancelled() || stopping.load(Ordering::SeqCst) {
        // Cancelled while queued (its caller has stopped listening), or the kernel is going.
        return;
    }
    if Instant::now() >= job.deadline {
        // The runtime was too busy for this render, not the route too slow: `busy`, as for a
        // render refused at the queue (a hook then takes its fallback).
        let error = DocumentError::new(
            "busy",
            "the render's deadline passed while it waited for a worker",
        );
        for event in failed_events(&job.invocation.route, config.limits, error) {
            let _ = job.events.send(event);
        }
        return;
    }
    let request = RenderRequest {
        id: job.id,
        route: job.invocation.route,
        kind: job.invocation.kind,
        input: job.invocation.input,
        context: job.invocation.context,
        limits: job.invocation.limits,
    };
    let cancel = &job.cancel;
    let budget = request.limits.max_elapsed_ms.map(Duration::from_millis);
    // Asked first when the render is sent, after the worker has started: the render budget
    // counts from then, so Node's start-up is not charged to the route.
    let sent = std::cell::OnceCell::new();
    let requested = || {
        let sent = *sent.get_or_init(Instant::now);
        cancel
            .reason()
            .or_else(|| {
                stopping
                    .load(Ordering::SeqCst)
                    .then(|| "the runtime is shutting down".to_owned())
            })
            .or_else(|| {
                budget
                    .filter(|budget| sent.elapsed() > *budget)
                    .map(|budget| format!("render took longer than {} ms", budget.as_millis()))
            })
    };
    let abort = Abort {
        requested: &requested,
        grace: config.abort_grace,
        poll: CANCEL_POLL,
    };
    // The worker's error is already in the events' failed `complete`; a send fails only once the
    // caller stopped listening, which has cancelled the render too.
    let _ = worker.render_events_until(&request, config.limits, job.deadline, &abort, |event| {
        if !cancel.is_cancelled() {
            let _ = job.events.send(event);
        }
    });
}
