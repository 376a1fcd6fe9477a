//! `abgen dev` and `abgen build --watch`: build, watch the project, rebuild what a change
//! reaches, and keep the last good artifact when a rebuild fails. Entry: [`watch_project`] with a
//! [`StopSignals`] (SIGINT, SIGTERM, and the end of a piped standard input).
//!
//! Invariant: the loop is bounded: events are debounced ([`WatchOptions::debounce`], a rebuild
//! never waits more than [`MAX_DEBOUNCE`] behind a stream of events), every wait in it is a
//! poll of at most [`POLL_INTERVAL`], and it returns (with the watcher dropped) within one poll
//! of a stop.
//!
//! `abgen dev` also keeps the project's development lock ([`write_dev_lock`]): the epoch of its
//! newest good build, which `abgen dev proxy` ([`run_proxy`]) serves to a host.

mod epoch;
mod lock;
mod proxy;
mod stop;
mod watch;

pub use lock::{
    DEV_LOCK_VERSION, DevLock, dev_lock_path, process_alive, read_dev_lock, remove_dev_lock,
    write_dev_lock,
};
pub use proxy::{EPOCH_START_BOUND, LOCK_POLL, ProxyOptions, run_proxy};
pub use stop::StopSignals;
pub use watch::{
    MAX_DEBOUNCE, POLL_INTERVAL, WatchOptions, WatchOutcome, WatchReport, watch_project,
};
