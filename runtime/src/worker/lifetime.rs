//! Who starts and who ends every worker process, so that none outlives the `abgen-host` that
//! started it.
//!
//! Entry: [`spawn`] starts a worker; [`end`] and [`has_exited`] are the only places a worker is
//! reaped; [`end_all`] ends every live worker at once.
//!
//! - **Starts:** [`spawn`], always on one spawner thread that lives as long as the process. On
//!   Linux the child asks for `PR_SET_PDEATHSIG = SIGKILL` before it execs Node, and the kernel
//!   sends that signal when the *thread* that forked it exits, not the process: workers are started
//!   from short-lived threads (a hook's render thread, a warm connection), so forking on those
//!   threads would kill the worker as soon as the thread returned.
//! - **Its group:** each worker leads a process group of its own, and every kill below is of the
//!   group, so what a route started (a child process it did not bind to its AbortSignal) ends with
//!   the worker. The abrupt path below ends only the worker itself.
//! - **Ends, graceful:** the [`super::Worker`] that owns the child ([`end`]: after a timeout, a
//!   broken frame, a wrong identity, or on drop), and `abgen-host` itself, which calls
//!   [`end_all`] after every command and when SIGTERM, SIGINT or SIGHUP arrives. Both kill and reap,
//!   so no worker is left running or as a zombie.
//! - **Ends, abrupt:** when `abgen-host` cannot run any code (SIGKILL, a crash), the kernel sends
//!   the worker SIGKILL (the death signal above). A busy-looping worker never reaches its event
//!   loop, so it cannot notice a closed pipe by itself; the death signal does not need it to.
//!   Elsewhere (macOS) there is no death signal: the worker is told this process's pid in
//!   `ABGEN_WORKER_PARENT_PID`, and a thread of the worker's own (a Node worker thread, which keeps
//!   running while the main thread busy-loops) kills it once its parent is another process. That
//!   watch is tested on Linux by the runtime package's own tests; this host side of it is not
//!   tested on macOS.
//!
//! Invariant: a worker pid is killed or waited for only while it is in the live list, under its
//! lock, and leaves the list in the same critical section that reaps it, so no pid is ever
//! signalled after it could have been reused.

use std::io;
use std::process::{Child, Command};
use std::sync::mpsc::{self, Sender, SyncSender};
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};

use rustix::process::{Pid, Signal, WaitOptions};

/// The worker processes started and not yet reaped.
#[derive(Debug, Default)]
struct Live {
    pids: Vec<u32>,
    /// Set by [`end_all`]: the process is on its way out and starts no more workers.
    closed: bool,
}

static LIVE: Mutex<Live> = Mutex::new(Live {
    pids: Vec::new(),
    closed: false,
});

fn live() -> MutexGuard<'static, Live> {
    // Every critical section leaves the list consistent, so a panic elsewhere does not taint it.
    LIVE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Where the worker finds the pid to watch when there is no death signal
/// (`packages/runtime/src/worker.ts`).
const PARENT_PID_ENV: &str = "ABGEN_WORKER_PARENT_PID";

type SpawnJob = (Command, SyncSender<io::Result<Child>>);

/// Starts `command` as a worker process on the spawner thread and records it as live.
pub(super) fn spawn(command: Command) -> io::Result<Child> {
    static SPAWNER: OnceLock<Option<Mutex<Sender<SpawnJob>>>> = OnceLock::new();
    let gone = || io::Error::other("the worker spawner thread could not be started or is gone");
    let spawner = SPAWNER.get_or_init(|| {
        let (jobs, receiver) = mpsc::channel::<SpawnJob>();
        // The sender lives in a static and is never dropped, so this thread runs until the
        // process exits: the death signal of every worker it forks fires only then.
        std::thread::Builder::new()
            .name("abgen-worker-spawner".into())
            .spawn(move || {
                for (command, reply) in receiver {
                    let _ = reply.send(spawn_here(command));
                }
            })
            .ok()
            .map(|_| Mutex::new(jobs))
    });
    let (reply, answer) = mpsc::sync_channel(1);
    spawner
        .as_ref()
        .ok_or_else(gone)?
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .send((command, reply))
        .map_err(|_| gone())?;
    answer.recv().map_err(|_| gone())?
}

/// Forks on the calling thread; only the spawner thread calls this.
fn spawn_here(mut command: Command) -> io::Result<Child> {
    use std::os::unix::process::CommandExt as _;
    die_with_this_process(&mut command);
    // The worker leads a process group of its own, so ending it ends what its routes started
    // too (a `sleep` a busy-looping route spawned would otherwise outlive it).
    command.process_group(0);
    // Holding the list across the fork means `end_all` either sees this worker or refuses it.
    let mut live = live();
    if live.closed {
        return Err(io::Error::other("abgen-host is exiting"));
    }
    let child = command.spawn()?;
    live.pids.push(child.id());
    Ok(child)
}

/// Asks the kernel to SIGKILL the child when the forking thread (the spawner, which lives as long
/// as the process) exits.
#[cfg(any(target_os = "linux", target_os = "android"))]
#[expect(
    unsafe_code,
    reason = "pre_exec is unsafe: the closure runs between fork and exec and may only make \
              async-signal-safe calls; it makes two raw syscalls (prctl, getppid) and allocates nothing"
)]
fn die_with_this_process(command: &mut Command) {
    use std::os::unix::process::CommandExt as _;
    // The death signal makes the watch needless; one inherited from our own environment would
    // name the wrong parent and kill the worker at once.
    command.env_remove(PARENT_PID_ENV);
    let parent = rustix::process::getpid();
    // SAFETY: see the reason above; the closure only calls rustix's raw prctl and getppid.
    unsafe {
        command.pre_exec(move || {
            rustix::process::set_parent_process_death_signal(Some(Signal::KILL))?;
            // The parent may have died between fork and prctl; then no signal will ever come,
            // so the child must not go on to exec Node.
            if rustix::process::getppid() != Some(parent) {
                return Err(io::Error::from(rustix::io::Errno::SRCH));
            }
            Ok(())
        });
    }
}

/// No death signal here: the worker's parent watch ends it instead (see the module doc).
#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn die_with_this_process(command: &mut Command) {
    command.env(PARENT_PID_ENV, std::process::id().to_string());
}

/// Kills and reaps `child` if it is still live; a no-op once it was reaped.
pub(super) fn end(child: &mut Child) {
    let mut live = live();
    if let Some(index) = live.pids.iter().position(|pid| *pid == child.id()) {
        kill_group(child.id());
        let _ = child.kill();
        let _ = child.wait();
        live.pids.swap_remove(index);
    }
}

/// Whether `child` has exited (reaping it if so).
pub(super) fn has_exited(child: &mut Child) -> bool {
    let mut live = live();
    let Some(index) = live.pids.iter().position(|pid| *pid == child.id()) else {
        return true;
    };
    match child.try_wait() {
        Ok(None) => false,
        Ok(Some(_)) | Err(_) => {
            live.pids.swap_remove(index);
            true
        }
    }
}

/// Kills and reaps every live worker, and refuses to start any more. `abgen-host` calls this on
/// its way out, after its command returns. Returns how many it ended.
pub fn end_all() -> usize {
    end_all_then(|| ())
}

/// [`end_all`], then `then` before the lock on the live list is released: a thread whose worker
/// just died blocks on that lock before it can act on the death, so when `then` ends the process
/// (the exit-signal path of `abgen-host`), nothing else reports the killed worker as a failure.
pub fn end_all_then(then: impl FnOnce()) -> usize {
    let mut live = live();
    live.closed = true;
    let ended = live.pids.len();
    for pid in live.pids.drain(..) {
        let Some(pid) = i32::try_from(pid).ok().and_then(Pid::from_raw) else {
            continue;
        };
        let _ = rustix::process::kill_process_group(pid, Signal::KILL);
        let _ = rustix::process::kill_process(pid, Signal::KILL);
        let _ = rustix::process::waitpid(Some(pid), WaitOptions::empty());
    }
    then();
    ended
}

/// SIGKILLs the process group the worker `pid` leads: the worker and what its routes started.
/// Only called while `pid` is live and unreaped, so the group cannot be another's.
fn kill_group(pid: u32) {
    if let Some(pid) = i32::try_from(pid).ok().and_then(Pid::from_raw) {
        let _ = rustix::process::kill_process_group(pid, Signal::KILL);
    }
}
