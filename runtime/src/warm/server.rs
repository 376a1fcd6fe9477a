//! The serving side of the warm socket.
//!
//! Entry: [`WarmServer::bind`] (or [`WarmServer::bind_with`] and its [`ServeLimits`]).
//! Invariants: one server per socket (an exclusive flock on the lock file, held for the server's
//! life; whoever holds it replaces a stale socket file, anyone else gets [`BindError::Busy`] and
//! leaves the socket alone); a lock counts only on the file that is at the lock path when it is
//! taken (an owner removes its lock file as it stops, so a lock taken on a file opened before
//! that is taken again on the path's new file); a peer of another uid gets one refusal frame and
//! nothing else; each connection renders one request, bounded by its deadline.
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
//! passes. The socket file and the lock file are removed by their owner only: by the server that
//! holds the lock, when it is dropped or when its process ends on a signal
//! ([`remove_owned_sockets`], called by `abgen-host`'s exit-signal path: Claude Code ends its MCP
//! servers with SIGINT), so a server that stops leaves nothing in the socket directory. A killed
//! server leaves both; the next owner takes that lock file, replaces the socket file, and removes
//! both when it stops.

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

/// The socket and lock files this process's servers own now (each server's lock held).
static OWNED: Mutex<Vec<SocketPath>> = Mutex::new(Vec::new());

/// Removes the socket file and the lock file of every server of this process, for a process
/// about to end without dropping them (on an exit signal). Each is removed while its lock is
/// still held, so it is this process's file, never a successor's; later hooks find no socket
/// rather than a dead one.
pub fn remove_owned_sockets() {
    let owned = OWNED.lock().unwrap_or_else(PoisonError::into_inner);
    for path in owned.iter() {
        remove_owned_files(path);
    }
}

/// Removes the socket file, then the lock file, of a server that holds the lock of `path`.
fn remove_owned_files(path: &SocketPath) {
    let _ = std::fs::remove_file(&path.socket);
    let _ = std::fs::remove_file(&path.lock);
}

/// How many times [`take_lock`] opens the lock path again after taking a lock on a file that
/// its owner removed meanwhile: each time, an owner started and stopped within one open and one
/// flock call, so a few mean a path that keeps changing rather than a race.
const LOCK_ATTEMPTS: usize = 8;

/// The lock of `path`, taken on the file at `path.lock` (made if missing), or `Busy` while
/// another server holds it.
fn take_lock(path: &SocketPath) -> Result<File, BindError> {
    let io_error = |source| BindError::Io {
        path: path.lock.clone(),
        source,
    };
    for _ in 0..LOCK_ATTEMPTS {
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o600)
            .open(&path.lock)
            .map_err(io_error)?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(BindError::Busy(path.socket.clone()));
            }
            Err(std::fs::TryLockError::Error(error)) => return Err(io_error(error)),
        }
        if holds_file_at(&lock, &path.lock).map_err(io_error)? {
            return Ok(lock);
        }
        // The file was opened just before its owner removed it as it stopped: a lock on it
        // excludes no one who opens the path now.
    }
    Err(io_error(io::Error::other(format!(
        "the lock file changed under each of {LOCK_ATTEMPTS} attempts to lock it"
    ))))
}

/// Whether `file` is the file at `path` now (not one removed or replaced since it was opened).
fn holds_file_at(file: &File, path: &std::path::Path) -> io::Result<bool> {
    use std::os::unix::fs::MetadataExt as _;
    let held = file.metadata()?;
    match std::fs::metadata(path) {
        Ok(now) => Ok(now.dev() == held.dev() && now.ino() == held.ino()),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(error) => Err(error),
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
        let lock = take_lock(&path)?;
        let (stopping, accept) = match listen(&path, digest, source, limits) {
            Ok(listening) => listening,
            Err(error) => {
                // The lock is still held, so the files are this server's to remove.
                remove_owned_files(&path);
                return Err(error);
            }
        };
        OWNED
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(path.clone());
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

/// Binds the socket of `path`, whose lock the caller holds, and starts the handlers and the
/// accept thread; the stop flag and the accept thread, for the server to own.
fn listen(
    path: &SocketPath,
    digest: &str,
    source: Arc<dyn RenderSource>,
    limits: ServeLimits,
) -> Result<(Arc<AtomicBool>, JoinHandle<()>), BindError> {
    let io_error = |source| BindError::Io {
        path: path.socket.clone(),
        source,
    };
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
    Ok((stopping, accept))
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
        owned.retain(|path| path != &self.path);
        // The lock is still held: it is released when `_lock` drops, after this.
        remove_owned_files(&self.path);
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

#[cfg(test)]
mod tests {
    use std::fs::File;
    use std::path::Path;

    use super::{BindError, SocketPath, holds_file_at, remove_owned_files, take_lock};

    #[test]
    fn a_lock_counts_only_on_the_file_at_the_lock_path() {
        let base = tempfile::tempdir().unwrap();
        let path =
            SocketPath::in_directory(&base.path().join("abgen"), Path::new("/plugins/p"), "d")
                .unwrap();
        path.prepare_directory().unwrap();
        let owner = take_lock(&path).unwrap();
        // Opened while the owner serves, as a waiting server's bind may open it.
        let opened_early = File::options().write(true).open(&path.lock).unwrap();
        assert!(matches!(take_lock(&path), Err(BindError::Busy(_))));
        // The owner stops: its files go, then its lock. A server that starts now makes the
        // path's new file and takes its lock.
        remove_owned_files(&path);
        drop(owner);
        let next = take_lock(&path).unwrap();
        assert!(holds_file_at(&next, &path.lock).unwrap());
        // The removed file's lock is free as well, and excludes no one: it is not the path's.
        opened_early.try_lock().unwrap();
        assert!(!holds_file_at(&opened_early, &path.lock).unwrap());
        drop(opened_early);
        assert!(matches!(take_lock(&path), Err(BindError::Busy(_))));
        drop(next);
        assert!(take_lock(&path).is_ok());
    }
}
