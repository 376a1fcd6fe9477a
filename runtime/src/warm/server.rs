//! The serving side of the warm socket.
//!
//! Entry: [`WarmServer::bind`]. Invariants: one server per socket (an exclusive flock on the
//! lock file, held for the server's life; whoever holds it replaces a stale socket file, anyone
//! else gets [`BindError::Busy`] and leaves the socket alone); a peer of another uid gets one
//! refusal frame and nothing else; each connection renders one request, bounded by its deadline.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
use std::os::unix::net::{UnixListener, UnixStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::document::RenderEvent;

use super::frame::{MAX_FRAME_BYTES, read_frame, write_frame};
use super::path::{PathError, SocketPath, current_uid, peer_uid};
use super::protocol::{WARM_PROTOCOL, WarmRefusal, WarmRequest};

/// The largest request frame a server reads: an event's props hold a tool input whole, up to the
/// host matrix's 8 MiB payload budget, so twice that leaves room for the props around it.
const MAX_REQUEST_BYTES: usize = MAX_FRAME_BYTES;
/// How long a connected client has to send its request.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(2);
/// The longest deadline a request may ask for.
const MAX_DEADLINE: Duration = Duration::from_secs(600);

/// Renders requests for a warm server (the MCP server's worker, or anything else).
pub trait RenderSource: Send + Sync + 'static {
    /// Renders `request`, handing each event to `emit` in order and `complete` last, before
    /// `deadline`. `emit` returns false once the client is gone; the source may then stop.
    fn render(
        &self,
        request: &WarmRequest,
        deadline: Instant,
        emit: &mut dyn FnMut(&RenderEvent) -> bool,
    );
}

/// Why no server was started.
#[derive(Debug, thiserror::Error)]
pub enum BindError {
    #[error(transparent)]
    Path(#[from] PathError),
    #[error("another process serves {}", .0.display())]
    Busy(std::path::PathBuf),
    #[error("cannot serve on {}: {source}", .path.display())]
    Io {
        path: std::path::PathBuf,
        source: io::Error,
    },
}

/// A running warm server; dropping it stops accepting, removes the socket and frees the lock.
pub struct WarmServer {
    path: SocketPath,
    stopping: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
    _lock: File,
}

impl WarmServer {
    /// Takes the socket of `path` and serves requests for `digest` from `source`.
    pub fn bind(
        path: SocketPath,
        digest: &str,
        source: Arc<dyn RenderSource>,
    ) -> Result<Self, BindError> {
        path.prepare_directory()?;
        let io_error = |source| BindError::Io {
            path: path.socket.clone(),
            source,
        };
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o600)
            .open(&path.lock)
            .map_err(io_error)?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => return Err(BindError::Busy(path.socket)),
            Err(std::fs::TryLockError::Error(error)) => return Err(io_error(error)),
        }
        // Holding the lock, any socket file left here belongs to a server that is gone.
        match std::fs::remove_file(&path.socket) {
            Ok(()) => {}
            Err(error) if error.kind() == io::ErrorKind::NotFound => {}
            Err(error) => return Err(io_error(error)),
        }
        let listener = UnixListener::bind(&path.socket).map_err(io_error)?;
        std::fs::set_permissions(&path.socket, std::fs::Permissions::from_mode(0o600))
            .map_err(io_error)?;
        let stopping = Arc::new(AtomicBool::new(false));
        let accept = {
            let stopping = Arc::clone(&stopping);
            let digest = digest.to_owned();
            std::thread::spawn(move || accept_loop(&listener, &stopping, &digest, &source))
        };
        Ok(Self {
            path,
            stopping,
            accept: Some(accept),
            _lock: lock,
        })
    }

    /// Where this server listens.
    pub fn path(&self) -> &SocketPath {
        &self.path
    }
}

impl Drop for WarmServer {
    fn drop(&mut self) {
        self.stopping.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag. Should the socket file be gone (someone
        // removed it), the loop cannot be woken: leave the thread rather than hang on it.
        if UnixStream::connect(&self.path.socket).is_ok()
            && let Some(accept) = self.accept.take()
        {
            let _ = accept.join();
        }
        let _ = std::fs::remove_file(&self.path.socket);
    }
}

fn accept_loop(
    listener: &UnixListener,
    stopping: &AtomicBool,
    digest: &str,
    source: &Arc<dyn RenderSource>,
) {
    for stream in listener.incoming() {
        if stopping.load(Ordering::SeqCst) {
            return;
        }
        let Ok(stream) = stream else {
            // Out of descriptors or similar: do not spin on a failing accept.
            std::thread::sleep(Duration::from_millis(10));
            continue;
        };
        let source = Arc::clone(source);
        let digest = digest.to_owned();
        std::thread::spawn(move || serve(stream, &digest, source.as_ref()));
    }
}

/// Serves one connection: check the peer, read the request, render it.
fn serve(mut stream: UnixStream, digest: &str, source: &dyn RenderSource) {
    let refuse = |stream: &mut UnixStream, refusal: WarmRefusal| {
        let _ = write_frame(stream, &refusal.to_frame());
    };
    let uid = current_uid();
    match peer_uid(&stream) {
        Ok(peer) if peer == uid => {}
        Ok(peer) => {
            return refuse(
                &mut stream,
                WarmRefusal::new("peer-uid", format!("uid {peer} may not use this socket")),
            );
        }
        Err(error) => {
            return refuse(
                &mut stream,
                WarmRefusal::new("peer-uid", format!("the peer is unknown: {error}")),
            );
        }
    }
    let _ = stream.set_read_timeout(Some(REQUEST_TIMEOUT));
    let request = match read_frame(&mut stream, MAX_REQUEST_BYTES) {
        Ok(Some(value)) => serde_json::from_value::<WarmRequest>(value)
            .map_err(|error| WarmRefusal::new("bad-request", error.to_string())),
        Ok(None) => return,
        Err(error) => Err(WarmRefusal::new("bad-request", error.to_string())),
    };
    let request = match request {
        Ok(request) if request.protocol != WARM_PROTOCOL => Err(WarmRefusal::new(
            "protocol",
            format!(
                "this server speaks protocol {WARM_PROTOCOL}, not {}",
                request.protocol
            ),
        )),
        Ok(request) if request.digest != digest => Err(WarmRefusal::new(
            "digest-mismatch",
            format!("this server serves artifact {digest}"),
        )),
        other => other,
    };
    let request = match request {
        Ok(request) => request,
        Err(refusal) => return refuse(&mut stream, refusal),
    };
    let deadline = Instant::now() + Duration::from_millis(request.deadline_ms).min(MAX_DEADLINE);
    let _ = stream.set_write_timeout(Some(deadline.saturating_duration_since(Instant::now())));
    source.render(&request, deadline, &mut |event| {
        serde_json::to_value(event)
            .ok()
            .is_some_and(|value| write_frame(&mut stream, &value).is_ok())
    });
}
