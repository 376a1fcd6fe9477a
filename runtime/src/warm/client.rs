//! The hook side of the warm socket: one request, the render's events back, before a deadline.
//!
//! Entry: [`request`]. Invariant: it returns by `deadline` whatever the server does (every read
//! and write carries the time left), and it talks only to a server of the same uid in a
//! directory that passed the ownership check; anything else is a [`WarmError`] the caller turns
//! into the route's fallback. Its messages name no paths, so a hook's stderr line reads the
//! same on every machine.

use std::io::{self, Read};
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::document::{Document, Node, RenderEvent, RenderEventKind, Status};

use super::frame::{MAX_FRAME_BYTES, read_frame, write_frame};
use super::path::{PathError, SocketPath, current_uid, peer_uid};
use super::protocol::{WarmRefusal, WarmRequest};

/// The most events one reply may hold.
const MAX_EVENTS: usize = 100_000;

/// Why the warm runtime did not answer.
#[derive(Debug, thiserror::Error)]
pub enum WarmError {
    #[error("no warm runtime is running ({0})")]
    NoRuntime(String),
    #[error("the warm runtime's socket cannot be used: {0}")]
    Path(PathError),
    #[error("the warm runtime runs as uid {0}, not as this user")]
    PeerUid(u32),
    #[error("the warm runtime refused ({}): {}", .0.code, .0.message)]
    Refused(WarmRefusal),
    #[error("the warm runtime did not finish before the deadline")]
    Timeout,
    #[error("the warm runtime stopped before the render completed")]
    Crashed,
    #[error("the warm runtime's reply is not valid: {0}")]
    Protocol(String),
    /// The runtime answered, but could not render: the failure is its own, not the route's.
    #[error("the warm runtime could not render it: {message}")]
    Unavailable { code: &'static str, message: String },
    #[error("talking to the warm runtime failed: {0}")]
    Io(io::Error),
}

impl WarmError {
    /// A short code for the one stderr line a fallback prints.
    pub fn code(&self) -> &'static str {
        match self {
            WarmError::NoRuntime(_) => "no-runtime",
            WarmError::Path(_) => "socket-path",
            WarmError::PeerUid(_) => "peer-uid",
            WarmError::Refused(refusal) if refusal.code == "digest-mismatch" => "digest-mismatch",
            WarmError::Refused(_) => "refused",
            WarmError::Timeout => "timeout",
            WarmError::Crashed => "crashed",
            WarmError::Protocol(_) => "protocol",
            WarmError::Unavailable { code, .. } => code,
            WarmError::Io(_) => "io",
        }
    }
}

/// The failure codes of a render the warm runtime could not run, by the code the runtime
/// reports: its queue was full or its deadline passed in the queue (`busy`), it is stopping, its
/// worker cannot start (`worker-unavailable`), or its worker is of another artifact than the one
/// on disk now (`worker-identity`: the artifact was rebuilt under a running server). A standalone
/// render may well succeed then; any other failure is the route's own answer.
const RUNTIME_FAILURES: [(&str, &str); 4] = [
    ("busy", "busy"),
    ("stopped", "stopped"),
    ("worker-unavailable", "worker-unavailable"),
    ("worker-identity", "other-epoch"),
];

/// The final document of a warm reply, or, when the runtime itself could not render it, the
/// [`WarmError::Unavailable`] that sends the hook to its fallback.
pub fn final_document(events: Vec<RenderEvent>) -> Result<Document, WarmError> {
    let document = events
        .into_iter()
        .rev()
        .find_map(|event| match event.kind {
            RenderEventKind::Complete { document } => Some(document),
            _ => None,
        })
        .ok_or(WarmError::Crashed)?;
    if document.status == Status::Failed
        && let Node::Error { code, message } = &document.root
        && let Some((_, ours)) = RUNTIME_FAILURES.iter().find(|(theirs, _)| theirs == code)
    {
        return Err(WarmError::Unavailable {
            code: ours,
            message: message.clone(),
        });
    }
    Ok(document)
}

/// Sends `request` to the first of `paths` where a server runs (see [`request`]); with none,
/// the first one's [`WarmError::NoRuntime`], which names the place a server is expected.
pub fn request_first(
    paths: &[SocketPath],
    request: &WarmRequest,
    deadline: Instant,
) -> Result<Vec<RenderEvent>, WarmError> {
    let mut first = None;
    for path in paths {
        match self::request(path, request, deadline) {
            Err(WarmError::NoRuntime(reason)) => {
                first.get_or_insert(WarmError::NoRuntime(reason));
            }
            answer => return answer,
        }
    }
    Err(first.unwrap_or_else(|| WarmError::NoRuntime("no socket directory".into())))
}

/// Sends `request` to the server at `path` and collects its events up to `complete`.
pub fn request(
    path: &SocketPath,
    request: &WarmRequest,
    deadline: Instant,
) -> Result<Vec<RenderEvent>, WarmError> {
    match path.check_directory() {
        Ok(()) => {}
        Err(PathError::Missing(_)) => {
            return Err(WarmError::NoRuntime("its directory does not exist".into()));
        }
        Err(error) => return Err(WarmError::Path(error)),
    }
    let mut stream = match UnixStream::connect(&path.socket) {
        Ok(stream) => stream,
        Err(error)
            if matches!(
                error.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::ConnectionRefused
            ) =>
        {
            return Err(WarmError::NoRuntime("nothing listens on its socket".into()));
        }
        Err(error) => return Err(WarmError::Io(error)),
    };
    let server = peer_uid(&stream).map_err(WarmError::Io)?;
    if server != current_uid() {
        return Err(WarmError::PeerUid(server));
    }
    let frame =
        serde_json::to_value(request).map_err(|error| WarmError::Protocol(error.to_string()))?;
    stream
        .set_write_timeout(Some(time_left(deadline)?))
        .map_err(WarmError::Io)?;
    let written = write_frame(&mut stream, &frame);
    // A clone shares the socket, and with it the receive timeout set before each read.
    let timer = stream.try_clone().map_err(WarmError::Io)?;
    let reply = read_reply(&mut stream, || {
        timer
            .set_read_timeout(Some(time_left(deadline)?))
            .map_err(WarmError::Io)
    });
    match written {
        Ok(()) => reply,
        // A server that refuses a connection before reading it (it is busy) closes it, so the
        // request may meet a closed socket; its refusal is still there to read, and is the
        // honest answer.
        Err(_) if matches!(reply, Err(WarmError::Refused(_))) => reply,
        Err(error) => Err(io_or_timeout(error)),
    }
}

/// Reads a server's reply: render events numbered from 0, up to and including `complete`, or
/// one refusal. `before_read` runs before each frame (the socket sets its timeout there).
pub fn read_reply(
    reader: &mut impl Read,
    mut before_read: impl FnMut() -> Result<(), WarmError>,
) -> Result<Vec<RenderEvent>, WarmError> {
    let mut events = Vec::new();
    loop {
        before_read()?;
        let Some(frame) = read_frame(reader, MAX_FRAME_BYTES).map_err(io_or_timeout)? else {
            return Err(WarmError::Crashed);
        };
        if frame.get("type").and_then(Value::as_str) == Some("refused") {
            let refusal = serde_json::from_value(frame)
                .map_err(|error| WarmError::Protocol(error.to_string()))?;
            return Err(WarmError::Refused(refusal));
        }
        let event: RenderEvent = serde_json::from_value(frame)
            .map_err(|error| WarmError::Protocol(error.to_string()))?;
        if event.sequence != events.len() as u64 {
            return Err(WarmError::Protocol(format!(
                "event {} arrived as number {}",
                events.len(),
                event.sequence
            )));
        }
        let complete = matches!(event.kind, RenderEventKind::Complete { .. });
        events.push(event);
        if complete {
            return Ok(events);
        }
        if events.len() >= MAX_EVENTS {
            return Err(WarmError::Protocol(format!(
                "more than {MAX_EVENTS} events"
            )));
        }
    }
}

/// The time left, or a timeout when none is (a zero timeout would mean "wait forever").
fn time_left(deadline: Instant) -> Result<Duration, WarmError> {
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        Err(WarmError::Timeout)
    } else {
        Ok(left)
    }
}

fn io_or_timeout(error: io::Error) -> WarmError {
    match error.kind() {
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => WarmError::Timeout,
        io::ErrorKind::UnexpectedEof => WarmError::Crashed,
        io::ErrorKind::InvalidData => WarmError::Protocol(error.to_string()),
        _ => WarmError::Io(error),
    }
}
