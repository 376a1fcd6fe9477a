//! When a watch loop stops: SIGINT or SIGTERM, or the end of standard input when it is a pipe or
//! a socket (a parent process, an editor or a test that closes it). A terminal or `/dev/null`
//! on standard input never stops the loop: only a signal does.

use std::io::{self, IsTerminal};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// The stop conditions of one watch loop, checked without blocking.
pub struct StopSignals {
    signalled: Arc<AtomicBool>,
    handlers: Vec<signal_hook::SigId>,
    watch_stdin: bool,
    stdin_closed: bool,
}

impl StopSignals {
    /// Registers SIGINT and SIGTERM (until this value is dropped) and, when standard input is a
    /// pipe or a socket, watches it for its end.
    pub fn install() -> io::Result<Self> {
        let signalled = Arc::new(AtomicBool::new(false));
        let mut handlers = Vec::new();
        for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
            handlers.push(signal_hook::flag::register(signal, Arc::clone(&signalled))?);
        }
        let stdin = io::stdin();
        let watch_stdin = !stdin.is_terminal()
            && rustix::fs::fstat(&stdin).is_ok_and(|stat| {
                matches!(
                    rustix::fs::FileType::from_raw_mode(stat.st_mode),
                    rustix::fs::FileType::Fifo | rustix::fs::FileType::Socket
                )
            });
        Ok(Self {
            signalled,
            handlers,
            watch_stdin,
            stdin_closed: false,
        })
    }

    /// Whether the loop should stop now. Reads (and discards) what standard input holds, so
    /// that its end is seen; never blocks.
    pub fn should_stop(&mut self) -> bool {
        if self.signalled.load(Ordering::Relaxed) {
            return true;
        }
        if self.watch_stdin && !self.stdin_closed {
            self.stdin_closed = stdin_ended();
        }
        self.stdin_closed
    }
}

impl Drop for StopSignals {
    fn drop(&mut self) {
        for handler in self.handlers.drain(..) {
            signal_hook::low_level::unregister(handler);
        }
    }
}

/// Polls standard input once without waiting: true when it reached its end (or failed).
fn stdin_ended() -> bool {
    use rustix::event::{PollFd, PollFlags, poll};
    let stdin = io::stdin();
    let mut fds = [PollFd::new(&stdin, PollFlags::IN)];
    match poll(&mut fds, Some(&rustix::event::Timespec::default())) {
        Ok(0) => false,
        Ok(_) => {
            let revents = fds[0].revents();
            if revents.contains(PollFlags::IN) {
                let mut buffer = [0u8; 4096];
                // Readable: this read returns at once, with data (discarded) or the end.
                return matches!(rustix::io::read(&stdin, &mut buffer), Ok(0) | Err(_));
            }
            revents.intersects(PollFlags::HUP | PollFlags::ERR | PollFlags::NVAL)
        }
        Err(rustix::io::Errno::INTR) => false,
        Err(_) => true,
    }
}
