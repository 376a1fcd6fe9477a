//! The warm host: the thread of a long-lived process (`abgen-host mcp`) that owns its artifact's
//! warm socket, or waits to.
//!
//! One process per artifact and user serves the socket: the one holding the flock on the lock
//! file beside it. Every other MCP server of the same plugin (another host, another session)
//! runs a host too, which polls the lock every [`TAKEOVER_POLL`]; when the owner exits, however
//! it exits (SIGKILL included: the kernel drops a dead process's flock), one of them takes the
//! lock, replaces the socket file the owner may have left, and serves.
//!
//! Who starts and ends what: [`WarmHost::start`] starts the host thread; dropping the
//! [`WarmHost`] (the MCP server's session has ended) stops it, and with it the server it owns,
//! which removes its socket file. A host that cannot serve for a reason that waiting will not
//! mend (the socket directory is someone else's or open to others, the path is too long) says so
//! once and ends; hooks then take their fallbacks.

use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::Duration;

use super::path::SocketPath;
use super::server::{BindError, RenderSource, ServeLimits, WarmServer};

/// How often a waiting host tries the owner's lock: a hook after the owner's death is answered
/// warm again within this (plus the bind), and a waiting host costs one flock call per interval.
pub const TAKEOVER_POLL: Duration = Duration::from_millis(100);

/// Where the host's lines go (the MCP server's stderr).
pub type HostLog = Arc<dyn Fn(String) + Send + Sync>;

/// A running warm host; dropping it stops serving.
pub struct WarmHost {
    stop: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl WarmHost {
    /// Starts serving `digest` from `source` on `path`, now or as soon as its owner exits.
    pub fn start(
        path: SocketPath,
        digest: String,
        source: Arc<dyn RenderSource>,
        limits: ServeLimits,
        log: HostLog,
    ) -> std::io::Result<Self> {
        let (stop, stopped) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("abgen-warm-host".into())
            .spawn(move || host(&path, &digest, &source, limits, &stopped, &log))?;
        Ok(Self {
            stop: Some(stop),
            thread: Some(thread),
        })
    }
}

impl Drop for WarmHost {
    fn drop(&mut self) {
        // Closing the channel wakes the thread whether it waits for the lock or serves.
        self.stop = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn host(
    path: &SocketPath,
    digest: &str,
    source: &Arc<dyn RenderSource>,
    limits: ServeLimits,
    stopped: &mpsc::Receiver<()>,
    log: &HostLog,
) {
    let mut waiting_said = false;
    loop {
        match WarmServer::bind_with(path.clone(), digest, Arc::clone(source), limits) {
            Ok(server) => {
                if waiting_said {
                    log("warm runtime: took over the hook socket".to_owned());
                }
                // Serve until the session ends; dropping the server removes the socket file.
                let _ = stopped.recv();
                drop(server);
                return;
            }
            Err(BindError::Busy(_)) => {
                if !waiting_said {
                    log("warm runtime: another server of this plugin answers its hooks; standing by to take over".to_owned());
                    waiting_said = true;
                }
            }
            Err(BindError::Io { source: error, .. })
                if error.kind() == std::io::ErrorKind::AddrInUse =>
            {
                // The owner changed between our lock and bind: try again.
            }
            Err(error) => {
                log(format!(
                    "warm runtime: hooks will take their fallbacks: {error}"
                ));
                return;
            }
        }
        match stopped.recv_timeout(TAKEOVER_POLL) {
            Err(RecvTimeoutError::Timeout) => {}
            Ok(()) | Err(RecvTimeoutError::Disconnected) => return,
        }
    }
}
