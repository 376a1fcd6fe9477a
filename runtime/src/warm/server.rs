//! The serving side of the warm socket.
//!
//! Entry: [`WarmServer::bind`] (or [`WarmServer::bind_with`] and its [`ServeLimits`]).
//! Invariants: one server per socket (an exclusive flock on the lock file, held for the server's
//! life; whoever holds it replaces a stale socket file, anyone else gets [`BindError::Busy`] and
//! leaves the socket alone); a peer of another uid gets one refusal frame and nothing else; each
//! connection renders one request, bounded by its deadline.
//!
//! Connections are bounded, so idle or slow clients cannot make the server grow: a fixed number
//! of handler threads take accepted connections from a bounded backlog; a connection accepted
//! while `handlers + backlog` connections are held (served or waiting) is refused at once
//! (`busy`, so its hook takes its fallback instead of waiting), and one that sends no request
//! within the idle timeout, counted from when it was accepted, is closed with a refusal. The
//! bound counts held connections, not the backlog queue's length, so a burst is not refused
//! early while a handler is still waking to take the connection it was handed.
//!
//! Who starts and ends what: `bind` starts the accept thread and the handlers. Dropping the
//! server stops the accept thread (joined), which closes the backlog; each handler then ends
//! after the connection it serves, whose render stops once its client is gone or its deadline
//! passes. The socket file is removed by its owner only: by the server that holds the lock, when
//! it is dropped or when its process ends on a signal ([`remove_owned_sockets`], called by
//! `abgen-host`'s exit-signal path: Claude Code ends its MCP servers with SIGINT), or by the next
//! owner, which replaces the file a killed one left behind.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
use std::os::unix::net::{UnixListener, UnixStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, TrySendError};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::document::RenderEvent;

use super::frame::{MAX_FRAME_BYTES, read_frame, write_frame};
use super::path::{PathError, SocketPath, current_uid, peer_uid};
use super::protocol::{WARM_PROTOCOL, WarmRefusal, WarmRequest};

/// The largest request frame a server reads: an event's props hold a tool input whole, up to the
/// host matrix's 8 MiB payload budget, so twice that leaves room for the props around it.
const MAX_REQUEST_BYTES: usize = MAX_FRAME_BYTES;
/// The longest deadline a request may ask for.
const MAX_DEADLINE: Duration = Duration::from_secs(600);
/// How long a refusal may take to write to a client that does not read.
const REFUSAL_WRITE_TIMEOUT: Duration = Duration::from_millis(100);

/// How many connections a server serves at once and holds waiting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServeLimits {
    /// Handler threads: connections served at once (each renders through the source, whose own
    /// queue bounds the renders).
    pub handlers: usize,
    /// Accepted connections waiting for a handler; one more is refused `busy` at once.
    pub backlog: usize,
    /// How long a connection may take, from its accept, to send its request (a hook sends it at
    /// once; a client that does not is closed).
    pub idle_timeout: Duration,
}

impl Default for ServeLimits {
    fn default() -> Self {
        Self {
            handlers: 8,
            backlog: 64,
            idle_timeout: Duration::from_secs(1),
        }
    }
}

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

/// A connection waiting for a handler, when it was accepted, and its place in the bound.
type Accepted = (UnixStream, Instant, HeldSlot);

/// One connection counted against `handlers + backlog` from its accept until its handler is
/// done with it (or it is dropped unserved when the server stops).
struct HeldSlot(Arc<AtomicUsize>);

impl Drop for HeldSlot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The socket files this process's servers own now (each server's lock held).
static OWNED: Mutex<Vec<std::path::PathBuf>> = Mutex::new(Vec::new());

/// Removes the socket file of every server of this process, for a process about to end without
/// dropping them (on an exit signal). Each is removed while its lock is still held, so it is this
/// process's file, never a successor's; later hooks find no socket rather than a dead one.
pub fn remove_owned_sockets() {
    let owned = OWNED.lock().unwrap_or_else(PoisonError::into_inner);
    for socket in owned.iter() {
        let _ = std::fs::remove_file(socket);
    }
}

impl WarmServer {
    /// Takes the socket of `path` and serves requests for `digest` from `source`, within the
    /// default [`ServeLimits`].
    pub fn bind(
        path: SocketPath,
        digest: &str,
        source: Arc<dyn RenderSource>,
    ) -> Result<Self, BindError> {
        Self::bind_with(path, digest, source, ServeLimits::default())
    }

    /// [`Self::bind`] within `limits`.
    pub fn bind_with(
        path: SocketPath,
        digest: &str,
        source: Arc<dyn RenderSource>,
        limits: ServeLimits,
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
        let capacity = limits.handlers.max(1) + limits.backlog;
        // Room for every held connection, so handing one over never fails: the bound is `held`.
        let (backlog, waiting) = mpsc::sync_channel::<Accepted>(capacity);
        let waiting = Arc::new(Mutex::new(waiting));
        for index in 0..limits.handlers.max(1) {
            let waiting = Arc::clone(&waiting);
            let source = Arc::clone(&source);
            let digest = digest.to_owned();
            std::thread::Builder::new()
                .name(format!("abgen-warm-{index}"))
                .spawn(move || handle(&waiting, &digest, source.as_ref(), limits.idle_timeout))
                .map_err(io_error)?;
        }
        let accept = {
            let stopping = Arc::clone(&stopping);
            std::thread::Builder::new()
                .name("abgen-warm-accept".into())
                .spawn(move || accept_loop(&listener, &stopping, &backlog, capacity))
                .map_err(io_error)?
        };
        OWNED
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(path.socket.clone());
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
        let mut owned = OWNED.lock().unwrap_or_else(PoisonError::into_inner);
        owned.retain(|socket| socket != &self.path.socket);
        let _ = std::fs::remove_file(&self.path.socket);
    }
}

/// Accepts connections and hands them to the handlers; one accepted while `capacity`
/// connections are held is refused at once. Returns (closing the backlog) once the server is
/// stopping.
fn accept_loop(
    listener: &UnixListener,
    stopping: &AtomicBool,
    backlog: &mpsc::SyncSender<Accepted>,
    capacity: usize,
) {
    let held = Arc::new(AtomicUsize::new(0));
    for stream in listener.incoming() {
        if stopping.load(Ordering::SeqCst) {
            return;
        }
        let Ok(stream) = stream else {
            // Out of descriptors or similar: do not spin on a failing accept.
            std::thread::sleep(Duration::from_millis(10));
            continue;
        };
        if held.load(Ordering::SeqCst) >= capacity {
            refuse_busy(stream);
            continue;
        }
        held.fetch_add(1, Ordering::SeqCst);
        // The channel has room for every held connection, so only a stopped server fails here.
        if let Err(TrySendError::Full((stream, ..)) | TrySendError::Disconnected((stream, ..))) =
            backlog.try_send((stream, Instant::now(), HeldSlot(Arc::clone(&held))))
        {
            refuse_busy(stream);
        }
    }
}

/// The answer to a connection the server cannot hold.
fn refuse_busy(mut stream: UnixStream) {
    let _ = stream.set_write_timeout(Some(REFUSAL_WRITE_TIMEOUT));
    let refusal = WarmRefusal::new(
        "busy",
        "the warm runtime has as many connections waiting as it holds; try again shortly",
    );
    let _ = write_frame(&mut stream, &refusal.to_frame());
}

/// One handler thread: serves waiting connections until the backlog closes.
fn handle(
    waiting: &Mutex<Receiver<Accepted>>,
    digest: &str,
    source: &dyn RenderSource,
    idle_timeout: Duration,
) {
    loop {
        let next = waiting
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .recv();
        let Ok((stream, accepted, _held)) = next else {
            return;
        };
        serve(stream, accepted + idle_timeout, digest, source);
    }
}

/// Serves one connection: check the peer, read the request (which must arrive before
/// `idle_until`), render it.
fn serve(mut stream: UnixStream, idle_until: Instant, digest: &str, source: &dyn RenderSource) {
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
    let idle = idle_until.saturating_duration_since(Instant::now());
    if idle.is_zero() {
        return refuse(&mut stream, idle_refusal());
    }
    let _ = stream.set_read_timeout(Some(idle));
    let request = match read_frame(&mut stream, MAX_REQUEST_BYTES) {
        Ok(Some(value)) => serde_json::from_value::<WarmRequest>(value)
            .map_err(|error| WarmRefusal::new("bad-request", error.to_string())),
        Ok(None) => return,
        Err(error)
            if matches!(
                error.kind(),
                io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
            ) =>
        {
            Err(idle_refusal())
        }
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

/// The refusal of a connection that sent no request in time.
fn idle_refusal() -> WarmRefusal {
    WarmRefusal::new(
        "idle",
        "no request arrived in time; a client sends its request as soon as it connects",
    )
}
