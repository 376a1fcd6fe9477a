//! The render pool: worker threads, each owning one supervised Node worker, and one dispatcher
//! (the caller's thread, under the pool's lock) that hands each render to a worker.
//!
//! Affinity: a render goes to the lowest-numbered idle worker, so consecutive renders of one
//! process — the MCP session's calls and the hooks of its warm socket alike — run on worker 0,
//! and see the same process-lifetime providers, unless it is busy; only then does a render run on
//! another worker (a provider there is another instance). With no worker idle, the render waits
//! in the bounded queue and the first worker to finish takes it.
//!
//! Who starts and ends what: [`Kernel::start`] starts one thread per worker; each owns its
//! [`SupervisedWorker`] (worker 0's Node process starts early or on first use, every other one's
//! on first use, when a render finds the workers before it busy). A worker beyond the first
//! stops its Node process after `idle_worker_exit` without a render and starts one again when a
//! render comes (worker 0 keeps its process, and its providers, for the kernel's life). Dropping
//! the kernel closes every worker's channel: each thread ends after the render it is on, and its
//! Node process with it.

use std::collections::{BTreeSet, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::{Cancel, Invocation, KernelConfig, KernelError, Rendering};
use crate::document::{DocumentError, DocumentLimits, RenderEvent};
use crate::flight::FlightDecoder;
use crate::worker::{
    Abort, ComputedSchemas, RenderRequest, RouteKind, SchemasRequest, SupervisedWorker,
};

/// How often a render that sends nothing checks whether it was cancelled.
const CANCEL_POLL: Duration = Duration::from_millis(5);

/// One accepted request, waiting for a worker.
struct Job {
    id: u64,
    task: Task,
    cancel: Cancel,
    deadline: Instant,
}

/// What a job asks of its worker.
#[expect(
    clippy::large_enum_variant,
    reason = "nearly every task is a render; boxing it would add an allocation to each"
)]
enum Task {
    /// A render, whose events go to its caller.
    Render {
        invocation: Invocation,
        events: super::events::EventSender,
    },
    /// A route's run-time JSON Schemas (the worker computes them once and keeps them).
    Schemas {
        route: String,
        kind: RouteKind,
        reply: mpsc::Sender<Result<ComputedSchemas, DocumentError>>,
    },
}

impl Task {
    fn route(&self) -> &str {
        match self {
            Task::Render { invocation, .. } => &invocation.route,
            Task::Schemas { route, .. } => route,
        }
    }
}

/// What the dispatcher and the workers share, under one lock.
#[derive(Debug, Default)]
struct Dispatch {
    /// Accepted renders no worker has taken yet, oldest first (at most the queue capacity).
    queue: VecDeque<Job>,
    /// The workers waiting for a render, by number.
    idle: BTreeSet<usize>,
    /// Each worker's own channel; emptied when the kernel stops.
    workers: Vec<Sender<Job>>,
}

/// The render pool every surface renders through (see the module docs of `kernel`).
#[derive(Debug)]
pub struct Kernel {
    dispatch: Arc<Mutex<Dispatch>>,
    capacity: usize,
    limits: DocumentLimits,
    /// Set when the kernel is dropped: renders in flight are aborted, queued ones skipped.
    stopping: Arc<AtomicBool>,
    /// How many workers have a Node process now.
    live: Arc<AtomicUsize>,
    threads: Vec<JoinHandle<()>>,
    next_id: std::sync::atomic::AtomicU64,
}

impl std::fmt::Debug for Job {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Job")
            .field("id", &self.id)
            .field("route", &self.task.route())
            .finish_non_exhaustive()
    }
}

/// What one pool thread needs.
struct PoolThread {
    index: usize,
    config: Arc<KernelConfig>,
    dispatch: Arc<Mutex<Dispatch>>,
    jobs: Receiver<Job>,
    stopping: Arc<AtomicBool>,
    live: Arc<AtomicUsize>,
}

impl Kernel {
    /// Starts the pool threads (and, with `start_workers_early`, worker 0's Node process).
    pub fn start(config: KernelConfig) -> Self {
        let config = Arc::new(config);
        let dispatch = Arc::new(Mutex::new(Dispatch::default()));
        let stopping = Arc::new(AtomicBool::new(false));
        let live = Arc::new(AtomicUsize::new(0));
        let mut threads = Vec::new();
        for _ in 0..config.workers.max(1) {
            // Numbered by the threads that did start, so a failed spawn leaves no gap.
            let index = threads.len();
            let (sender, jobs) = mpsc::channel();
            let thread = PoolThread {
                index,
                config: Arc::clone(&config),
                dispatch: Arc::clone(&dispatch),
                jobs,
                stopping: Arc::clone(&stopping),
                live: Arc::clone(&live),
            };
            let spawned = std::thread::Builder::new()
                .name(format!("abgen-render-{index}"))
                .spawn(move || thread.serve());
            if let Ok(handle) = spawned {
                let mut shared = dispatch.lock().unwrap_or_else(PoisonError::into_inner);
                shared.idle.insert(index);
                shared.workers.push(sender);
                threads.push(handle);
            }
        }
        Self {
            dispatch,
            capacity: config.queue_capacity,
            limits: config.limits,
            stopping,
            live,
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
        let (events, received) = super::events::channel();
        let job = Job {
            id: self.next_id.fetch_add(1, Ordering::Relaxed),
            task: Task::Render { invocation, events },
            cancel: cancel.clone(),
            deadline,
        };
        self.dispatch(job)?;
        Ok(Rendering {
            events: received,
            cancel,
            completed: AtomicBool::new(false),
        })
    }

    /// The JSON Schemas zod computes for `route` (of `kind`), whose schemas the compiler could
    /// not read statically: each worker computes them once and answers from its cache after. The
    /// request waits in the render queue like a render (a full queue is `busy` at once) and for
    /// its answer until `deadline`; every failure is a [`DocumentError`] saying why.
    pub fn route_schemas(
        &self,
        route: &str,
        kind: RouteKind,
        deadline: Instant,
    ) -> Result<ComputedSchemas, DocumentError> {
        let (reply, answer) = mpsc::channel();
        let job = Job {
            id: self.next_id.fetch_add(1, Ordering::Relaxed),
            task: Task::Schemas {
                route: route.to_owned(),
                kind,
                reply,
            },
            cancel: Cancel::new(),
            deadline,
        };
        self.dispatch(job)
            .map_err(|refused| DocumentError::new(refused.code(), refused.to_string()))?;
        match answer.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(answer) => answer,
            Err(RecvTimeoutError::Timeout) => Err(DocumentError::new(
                "timeout",
                format!("the schemas of `{route}` were not computed in time"),
            )),
            Err(RecvTimeoutError::Disconnected) => Err(DocumentError::new(
                "stopped",
                KernelError::Stopped.to_string(),
            )),
        }
    }

    /// Hands `job` to the lowest-numbered idle worker, else queues it; a full queue refuses it.
    fn dispatch(&self, job: Job) -> Result<(), KernelError> {
        let mut dispatch = self.dispatch.lock().unwrap_or_else(PoisonError::into_inner);
        if dispatch.workers.is_empty() {
            return Err(KernelError::Stopped);
        }
        // The lowest-numbered idle worker: renders stay on worker 0 while it keeps up.
        let idle = dispatch.idle.iter().next().copied();
        match idle {
            Some(index) => {
                dispatch.idle.remove(&index);
                if let Err(mpsc::SendError(job)) = dispatch.workers[index].send(job) {
                    // Its thread is gone (it cannot be, short of a panic): queue the render.
                    dispatch.queue.push_back(job);
                }
            }
            None if dispatch.queue.len() < self.capacity => dispatch.queue.push_back(job),
            None => {
                return Err(KernelError::Busy {
                    capacity: self.capacity,
                });
            }
        }
        Ok(())
    }
}

impl Kernel {
    /// The bounds every decoded document of this kernel keeps.
    pub fn limits(&self) -> DocumentLimits {
        self.limits
    }

    /// How many of the pool's workers have a Node process right now.
    pub fn live_workers(&self) -> usize {
        self.live.load(Ordering::SeqCst)
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
        // ones are skipped, and closing the workers' channels ends every thread; each drops its
        // worker.
        self.stopping.store(true, Ordering::SeqCst);
        {
            let mut dispatch = self.dispatch.lock().unwrap_or_else(PoisonError::into_inner);
            dispatch.workers.clear();
            dispatch.queue.clear();
        }
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

impl PoolThread {
    /// Runs the thread's worker until the kernel stops; the worker (its Node process) ends with
    /// the thread.
    fn serve(self) {
        let mut worker = SupervisedWorker::new(self.config.worker.clone());
        if self.config.start_workers_early && self.index == 0 {
            // A failure here is met again, and reported, by the first render.
            let _ = worker.start_now();
        }
        let mut running = self.note_running(&worker, false);
        self.take_renders(&mut worker, &mut running);
        drop(worker);
        if running {
            self.live.fetch_sub(1, Ordering::SeqCst);
        }
    }

    /// Takes renders until the kernel stops: the oldest queued one, else one handed to this
    /// worker while it waits idle. Every worker counts as idle from the kernel's start, while its
    /// Node process starts too, so the first render goes to worker 0 as every later one does.
    fn take_renders(&self, worker: &mut SupervisedWorker, running: &mut bool) {
        let Some(mut job) = self.wait(worker, running) else {
            return;
        };
        loop {
            // The worker is free again just before its render's `complete` goes out, so a caller
            // that renders again as soon as it has it finds this worker idle, not busy.
            let mut released = None;
            run(&self.config, worker, job, &self.stopping, &mut || {
                released = Some(self.release());
            });
            *running = self.note_running(worker, *running);
            let next = match released {
                Some(next) => next,
                None => self.release(),
            };
            job = match next {
                Some(job) => job,
                None => match self.wait(worker, running) {
                    Some(job) => job,
                    None => return,
                },
            };
        }
    }

    /// This worker has finished its render: the oldest queued render for it, else it joins the
    /// idle workers (and `None`; a render may then be handed to it).
    fn release(&self) -> Option<Job> {
        let mut dispatch = self.dispatch.lock().unwrap_or_else(PoisonError::into_inner);
        let queued = dispatch.queue.pop_front();
        if queued.is_none() && !dispatch.workers.is_empty() {
            dispatch.idle.insert(self.index);
        }
        queued
    }

    /// Waits, idle, for a render handed to this worker; `None` once the kernel stops. A worker
    /// beyond the first stops its Node process after `idle_worker_exit` of waiting.
    fn wait(&self, worker: &mut SupervisedWorker, running: &mut bool) -> Option<Job> {
        if self.index > 0 && worker.is_running() {
            match self.jobs.recv_timeout(self.config.idle_worker_exit) {
                Ok(job) => return Some(job),
                Err(RecvTimeoutError::Disconnected) => return None,
                Err(RecvTimeoutError::Timeout) => {
                    worker.stop();
                    *running = self.note_running(worker, *running);
                }
            }
        }
        self.jobs.recv().ok()
    }

    /// Keeps the kernel's count of live workers up to date; returns whether this one runs.
    fn note_running(&self, worker: &SupervisedWorker, was: bool) -> bool {
        let now = worker.is_running();
        match (was, now) {
            (false, true) => {
                self.live.fetch_add(1, Ordering::SeqCst);
            }
            (true, false) => {
                self.live.fetch_sub(1, Ordering::SeqCst);
            }
            _ => {}
        }
        now
    }
}

/// Runs `job` on `worker`; `release` is called once, just before its `complete` (or its schemas)
/// is sent, unless the request ends without an answer.
fn run(
    config: &KernelConfig,
    worker: &mut SupervisedWorker,
    job: Job,
    stopping: &AtomicBool,
    release: &mut dyn FnMut(),
) {
    if job.cancel.is_cancelled() || stopping.load(Ordering::SeqCst) {
        // Cancelled while queued (its caller has stopped listening), or the kernel is going.
        return;
    }
    let (invocation, events) = match job.task {
        Task::Render { invocation, events } => (invocation, events),
        Task::Schemas { route, kind, reply } => {
            let answer = if Instant::now() >= job.deadline {
                Err(DocumentError::new(
                    "busy",
                    "the deadline passed while the request waited for a worker",
                ))
            } else {
                let request = SchemasRequest {
                    id: job.id,
                    route,
                    kind,
                };
                worker.route_schemas(&request, job.deadline)
            };
            release();
            let _ = reply.send(answer);
            return;
        }
    };
    if Instant::now() >= job.deadline {
        // The runtime was too busy for this render, not the route too slow: `busy`, as for a
        // render refused at the queue (a hook then takes its fallback).
        let error = DocumentError::new(
            "busy",
            "the render's deadline passed while it waited for a worker",
        );
        release();
        for event in failed_events(&invocation.route, config.limits, error) {
            let _ = events.send(event);
        }
        return;
    }
    let request = RenderRequest {
        id: job.id,
        route: invocation.route,
        kind: invocation.kind,
        invocation: invocation.invocation,
        input: invocation.input,
        context: invocation.context,
        providers: invocation.providers,
        limits: invocation.limits,
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
        if matches!(
            event.kind,
            crate::document::RenderEventKind::Complete { .. }
        ) {
            release();
        }
        if !cancel.is_cancelled() {
            let _ = events.send(event);
        }
    });
}
