//! The MCP stdio transport: one JSON-RPC message per line in each direction, read and written
//! here and served by rmcp ([`LineTransport`]).
//!
//! Invariant: a line that is not a JSON message — not JSON, not UTF-8, or longer than the
//! per-message byte limit — becomes a parse error (-32700) answered with a null id, never a
//! reason to stop serving; only the end of the input stream ends the server. An over-long line is
//! dropped as it is read: at most the limit is ever buffered, however long the line.

use std::collections::{HashMap, HashSet};
use std::io::{self, BufRead, Write};
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::service::RoleServer;
use rmcp::transport::Transport;

use super::server::ClientGone;
use super::tasks;
use serde_json::{Value, json};

/// JSON-RPC error codes the transport answers with (rmcp answers the rest).
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const INVALID_PARAMS: i64 = -32602;

/// The default bound on one incoming message (its line, newline excluded): 8 MiB, as much as one
/// render may produce by default.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 8 * 1024 * 1024;

/// One read from the input stream.
enum Incoming {
    Message(Value),
    /// A line that is not a JSON message, with the reason.
    Malformed(String),
    /// Nothing left to read.
    End,
}

/// Reads the next non-blank line of at most `max_bytes`; a read error ends the stream like EOF,
/// since nothing more can arrive on it.
fn read_message(input: &mut impl BufRead, max_bytes: usize) -> Incoming {
    loop {
        let line = match read_line(input, max_bytes) {
            Line::End => return Incoming::End,
            Line::TooLong => {
                return Incoming::Malformed(format!(
                    "the message is longer than {max_bytes} bytes (the limit set by \
                     --max-message-bytes) and was discarded"
                ));
            }
            Line::Bytes(line) => line,
        };
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let text = match std::str::from_utf8(&line) {
            Ok(text) => text,
            Err(error) => return Incoming::Malformed(format!("the message is not UTF-8: {error}")),
        };
        return match serde_json::from_str(text.trim()) {
            Ok(value) => Incoming::Message(value),
            Err(error) => Incoming::Malformed(error.to_string()),
        };
    }
}

/// One line of input, without its newline.
enum Line {
    Bytes(Vec<u8>),
    /// Longer than the limit; read to its end and dropped.
    TooLong,
    End,
}

/// Reads up to the next `\n` (or the end of the stream), keeping at most `max_bytes`.
fn read_line(input: &mut impl BufRead, max_bytes: usize) -> Line {
    let mut line = Vec::new();
    let mut too_long = false;
    let mut read_any = false;
    loop {
        let available = match input.fill_buf() {
            Ok(available) => available,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => return Line::End,
        };
        if available.is_empty() {
            // The end of the stream also ends a last line that has no newline.
            break;
        }
        read_any = true;
        let newline = available.iter().position(|byte| *byte == b'\n');
        let chunk = &available[..newline.unwrap_or(available.len())];
        if !too_long {
            if line.len() + chunk.len() > max_bytes {
                too_long = true;
                line = Vec::new();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        let used = chunk.len() + usize::from(newline.is_some());
        input.consume(used);
        if newline.is_some() {
            break;
        }
    }
    match (read_any, too_long) {
        (false, _) => Line::End,
        (true, true) => Line::TooLong,
        (true, false) => Line::Bytes(line),
    }
}

/// What the output can say about its client: how much it has not read yet, and whether it
/// closed its end. Only a pipe or a Unix socket can say; see [`OutputProbe::of`].
#[derive(Debug)]
pub struct OutputProbe {
    output: std::os::fd::OwnedFd,
}

impl OutputProbe {
    /// A probe of `output` (a duplicate of its descriptor), if it is a pipe or a Unix socket.
    pub fn of(output: std::os::fd::BorrowedFd<'_>) -> Option<Self> {
        unread_output(output)?;
        Some(Self {
            output: output.try_clone_to_owned().ok()?,
        })
    }

    fn unread(&self) -> Option<u64> {
        unread_output(std::os::fd::AsFd::as_fd(&self.output))
    }

    /// Waits up to `bound` for the client to close its end of the output (a pipe reports an
    /// error, a socket a hang-up); whether it did.
    fn hung_up_within(&self, bound: std::time::Duration) -> bool {
        use rustix::event::{PollFd, PollFlags, Timespec};
        // No events asked for: poll reports only the hang-up and the error it always reports.
        let mut fds = [PollFd::new(&self.output, PollFlags::empty())];
        let bound = Timespec {
            tv_sec: i64::try_from(bound.as_secs()).unwrap_or(i64::MAX),
            tv_nsec: i64::from(bound.subsec_nanos()),
        };
        rustix::event::poll(&mut fds, Some(&bound)).is_ok()
            && fds[0].revents().intersects(PollFlags::HUP | PollFlags::ERR)
    }
}

/// How long after the end of its input a session watches for the client closing its output
/// too: longer than rmcp's drain of the calls in flight, which it cuts short.
const HANG_UP_WATCH: std::time::Duration = std::time::Duration::from_secs(10);

/// What a client has not yet read of what was written to `output`: the bytes in a pipe
/// (FIONREAD answers for either end of a pipe), or the data still queued on a Unix socket
/// (SIOCOUTQ; Node gives a child's stdio a socket pair). `None` for any other output.
fn unread_output(output: std::os::fd::BorrowedFd<'_>) -> Option<u64> {
    let file_type = rustix::fs::FileType::from_raw_mode(rustix::fs::fstat(output).ok()?.st_mode);
    if file_type.is_fifo() {
        return rustix::io::ioctl_fionread(output).ok();
    }
    if file_type.is_socket() {
        return socket_unread(output);
    }
    None
}

#[cfg(any(target_os = "linux", target_os = "android"))]
#[expect(
    unsafe_code,
    reason = "rustix has no safe SIOCOUTQ; the ioctl only writes one c_int the Getter owns"
)]
fn socket_unread(socket: std::os::fd::BorrowedFd<'_>) -> Option<u64> {
    // SIOCOUTQ, the same number as TIOCOUTQ on Linux.
    const SIOCOUTQ: rustix::ioctl::Opcode = 0x5411;
    // SAFETY: SIOCOUTQ is a getter whose kernel side writes one `int`, the Getter's output type.
    let queued = unsafe {
        rustix::ioctl::ioctl(
            socket,
            rustix::ioctl::Getter::<SIOCOUTQ, std::ffi::c_int>::new(),
        )
    };
    queued.ok().and_then(|queued| u64::try_from(queued).ok())
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn socket_unread(_socket: std::os::fd::BorrowedFd<'_>) -> Option<u64> {
    None
}

/// The longest a response waits for the client to read its progress or log records first: a client
/// that reads nothing for this long gets the result anyway.
const PROGRESS_READ_WAIT: std::time::Duration = std::time::Duration::from_millis(250);

/// Waits until the client has read everything written (or [`PROGRESS_READ_WAIT`] has passed);
/// `false` when the output cannot say what is unread, so no later write needs to wait either.
fn wait_until_read(probe: &OutputProbe) -> bool {
    let started = std::time::Instant::now();
    let mut pause = std::time::Duration::from_micros(20);
    loop {
        match probe.unread() {
            None => return false,
            Some(0) => return true,
            Some(_) if started.elapsed() >= PROGRESS_READ_WAIT => return true,
            Some(_) => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(std::time::Duration::from_millis(2));
            }
        }
    }
}

/// Writes one message as a line and flushes it, so the client sees it at once.
fn write_message(output: &mut impl Write, message: &Value) -> io::Result<()> {
    let mut line = serde_json::to_string(message).map_err(io::Error::other)?;
    line.push('\n');
    output.write_all(line.as_bytes())?;
    output.flush()
}

/// A JSON-RPC error response written by the transport itself, for a line rmcp never sees.
fn error(id: &Value, code: i64, message: impl Into<String>) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message.into()}})
}

/// The stdio transport rmcp serves over: a reader thread and a writer thread around the
/// blocking streams, and the async ends rmcp drives.
///
/// Why not rmcp's own stdio codec: it skips a line that is not JSON without answering it, and
/// ends the session on an over-long line; seed 002 wants a parse error (-32700, null id) and the
/// next message served. So lines are read here ([`read_message`]) and only well-formed messages
/// reach rmcp.
///
/// Invariant: nothing of a request is written once its `notifications/cancelled` has been read,
/// neither its progress nor its response. The reader records the cancel before rmcp hears of it,
/// and the writer checks that record for every message ([`CancelGate`]).
///
/// Invariant: a result is written only once the client has read the progress notifications
/// written for its request, when the output can say (a pipe or a socket, [`OutputProbe`]). The wire order
/// alone is not enough: the TypeScript SDK (and the hosts built on it) handles a notification a
/// microtask after it reads it but a response at once, so a progress notification read in the
/// same chunk as its result finds its request already answered, and the SDK reports it as an
/// error ("a progress notification for an unknown token"; Claude Code ends the session on it).
pub struct LineTransport {
    incoming: tokio::sync::mpsc::Receiver<ClientJsonRpcMessage>,
    outgoing: Option<std::sync::mpsc::Sender<Value>>,
    output_broken: Arc<tokio::sync::Notify>,
    /// Whether the server serves tasks: its initialize result then names the capability, which
    /// rmcp's types cannot carry (`tasks.rs`).
    offers_tasks: bool,
}

/// The threads behind a [`LineTransport`]: who started them, and how they end.
pub struct LineThreads {
    /// Ends at the end of the input, or at the next message once rmcp has stopped listening.
    /// Joined only when it has ended (a session ends at the input's end, so it has): a reader
    /// blocked on a read is ended by the input's end or the process's exit.
    reader: std::thread::JoinHandle<()>,
    /// Ends when the transport is closed or dropped, after writing what was queued.
    writer: std::thread::JoinHandle<()>,
    broken: Arc<Mutex<Option<io::Error>>>,
}

impl LineThreads {
    /// Once the transport is dropped: waits for the writer (everything queued is written) and
    /// for a reader that has ended; returns the write error, if any.
    pub fn finish(self) -> io::Result<()> {
        let _ = self.writer.join();
        if self.reader.is_finished() {
            let _ = self.reader.join();
        }
        self.broken
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
            .map_or(Ok(()), Err)
    }
}

/// How many well-formed messages may wait for rmcp before the reader stops reading.
const INCOMING_CAPACITY: usize = 64;

impl LineTransport {
    /// Starts the reader and writer threads over `input` and `output`.
    pub fn start(
        input: impl BufRead + Send + 'static,
        output: impl Write + Send + 'static,
        probe: Option<OutputProbe>,
        gone: ClientGone,
        max_message_bytes: usize,
        offers_tasks: bool,
    ) -> io::Result<(Self, LineThreads)> {
        let probe = probe.map(Arc::new);
        let (incoming_sender, incoming) = tokio::sync::mpsc::channel(INCOMING_CAPACITY);
        let (outgoing, to_write) = std::sync::mpsc::channel::<Value>();
        let gate = Arc::new(Mutex::new(CancelGate::default()));
        let output_broken = Arc::new(tokio::sync::Notify::new());
        let broken = Arc::new(Mutex::new(None));
        let writer = std::thread::Builder::new()
            .name("abgen-mcp-writer".into())
            .spawn({
                let gate = Arc::clone(&gate);
                let output_broken = Arc::clone(&output_broken);
                let broken = Arc::clone(&broken);
                let probe = probe.clone();
                let gone = gone.clone();
                move || {
                    write_all(to_write, output, probe.as_deref(), &gate, &broken);
                    if broken
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .is_some()
                    {
                        gone.mark();
                    }
                    output_broken.notify_one();
                }
            })?;
        let reader = std::thread::Builder::new()
            .name("abgen-mcp-reader".into())
            .spawn({
                let outgoing = outgoing.clone();
                move || {
                    read_all(
                        input,
                        max_message_bytes,
                        offers_tasks,
                        &incoming_sender,
                        &outgoing,
                        &gate,
                    );
                    // rmcp hears of the input's end now, not after the watch below.
                    drop(incoming_sender);
                    drop(outgoing);
                    // The input ended: once the client closes the output too, nobody is left
                    // to read the answers of calls in flight.
                    if probe.is_some_and(|probe| probe.hung_up_within(HANG_UP_WATCH)) {
                        gone.mark();
                    }
                }
            })?;
        Ok((
            Self {
                incoming,
                outgoing: Some(outgoing),
                output_broken,
                offers_tasks,
            },
            LineThreads {
                reader,
                writer,
                broken,
            },
        ))
    }
}

impl Transport<RoleServer> for LineTransport {
    type Error = io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let sent = match (&self.outgoing, serde_json::to_value(&item)) {
            (Some(outgoing), Ok(mut message)) => {
                if self.offers_tasks {
                    tasks::advertise_tasks(&mut message);
                }
                outgoing.send(message)
            }
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the output is closed")),
            (None, _) => Err(io::Error::new(
                io::ErrorKind::NotConnected,
                "the transport is closed",
            )),
            (_, Err(error)) => Err(io::Error::other(error)),
        };
        std::future::ready(sent)
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        tokio::select! {
            message = self.incoming.recv() => message,
            // A client that stopped reading has ended the session too.
            () = self.output_broken.notified() => None,
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.end_output();
        Ok(())
    }
}

impl LineTransport {
    /// Tells the writer to stop once it has written what is queued (the reader holds a sender too,
    /// so the channel alone would not end it).
    fn end_output(&mut self) {
        if let Some(outgoing) = self.outgoing.take() {
            let _ = outgoing.send(Value::Null);
        }
    }
}

impl Drop for LineTransport {
    fn drop(&mut self) {
        self.end_output();
    }
}

/// The reader thread: one line after another until the input ends.
fn read_all(
    mut input: impl BufRead,
    max_message_bytes: usize,
    offers_tasks: bool,
    incoming: &tokio::sync::mpsc::Sender<ClientJsonRpcMessage>,
    outgoing: &std::sync::mpsc::Sender<Value>,
    gate: &Mutex<CancelGate>,
) {
    // rmcp ends the session on a notification or response before the lifecycle starts; JSON-RPC
    // lets a server ignore those, so they are dropped until the first request that starts it.
    let mut lifecycle_started = false;
    loop {
        let message = match read_message(&mut input, max_message_bytes) {
            Incoming::End => return,
            Incoming::Malformed(reason) => {
                let _ = outgoing.send(error(
                    &Value::Null,
                    PARSE_ERROR,
                    format!("parse error: {reason}"),
                ));
                continue;
            }
            Incoming::Message(mut message) => {
                if offers_tasks {
                    tasks::route(&mut message);
                }
                message
            }
        };
        let method = message.get("method").and_then(Value::as_str);
        let is_request = method.is_some() && message.get("id").is_some();
        if !lifecycle_started && !is_request {
            continue;
        }
        lifecycle_started |= is_request && starts_lifecycle(&message);
        gate.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .on_incoming(&message);
        match serde_json::from_value::<ClientJsonRpcMessage>(message.clone()) {
            Ok(parsed) => {
                if incoming.blocking_send(parsed).is_err() {
                    return;
                }
            }
            Err(reason) => {
                if let Some(reply) = unreadable_message(&message, &reason) {
                    let _ = outgoing.send(reply);
                }
            }
        }
    }
}

/// Whether rmcp takes this request as the start of a session: `initialize`, or (the 2026-07-28
/// lifecycle) any request but `server/discover` whose `_meta` names the protocol, the client and
/// its capabilities.
fn starts_lifecycle(request: &Value) -> bool {
    const INLINE_KEYS: [&str; 3] = [
        "io.modelcontextprotocol/protocolVersion",
        "io.modelcontextprotocol/clientInfo",
        "io.modelcontextprotocol/clientCapabilities",
    ];
    match request["method"].as_str() {
        Some("initialize") => true,
        Some("server/discover") => false,
        _ => INLINE_KEYS
            .iter()
            .all(|key| request["params"]["_meta"].get(key).is_some()),
    }
}

/// The answer to JSON that is not a message rmcp reads: invalid params for a request of a known
/// shape whose params do not fit, invalid request for anything else that has an id; nothing for
/// a notification or response (JSON-RPC answers neither).
fn unreadable_message(message: &Value, reason: &serde_json::Error) -> Option<Value> {
    let id = message.get("id")?;
    if message.get("result").is_some() || message.get("error").is_some() {
        return None;
    }
    Some(match message.get("method").and_then(Value::as_str) {
        Some(method) => error(
            id,
            INVALID_PARAMS,
            format!("invalid params for {method}: {reason}"),
        ),
        None => error(id, INVALID_REQUEST, "a request needs a method"),
    })
}

/// The writer thread: writes each message unless the gate holds it back, until the transport
/// ends it (`null`); on a write error it records the error and stops. A result whose request
/// has progress the client may not have read yet, and any response after a log record the
/// client may not have read yet, waits for the client to read it first: the SDK handles a
/// response at once but a notification read with it a microtask later (typescript-sdk#2580).
fn write_all(
    to_write: std::sync::mpsc::Receiver<Value>,
    mut output: impl Write,
    mut probe: Option<&OutputProbe>,
    gate: &Mutex<CancelGate>,
    broken: &Mutex<Option<io::Error>>,
) {
    // The progress tokens written since the client was last seen to have read everything.
    let mut progress_unread = HashSet::new();
    // Whether a log record (`notifications/message`, which names no request) was written since.
    let mut log_unread = false;
    for message in to_write {
        if message.is_null() {
            return;
        }
        let (lets_out, token) = {
            let mut gate = gate.lock().unwrap_or_else(PoisonError::into_inner);
            let token = gate.progress_token(&message);
            (gate.lets_out(&message), token)
        };
        if !lets_out {
            continue;
        }
        let method = message.get("method").and_then(Value::as_str);
        let waits = match (method, token) {
            (Some("notifications/progress"), Some(token)) => {
                progress_unread.insert(token);
                false
            }
            (Some("notifications/message"), _) => {
                log_unread = true;
                false
            }
            (Some(_), _) => false,
            (None, Some(token)) if progress_unread.contains(&token) => true,
            (None, _) => log_unread && message.get("id").is_some(),
        };
        if waits {
            if let Some(watched) = probe
                && !wait_until_read(watched)
            {
                probe = None;
            }
            progress_unread.clear();
            log_unread = false;
        }
        if probe.is_none() {
            progress_unread.clear();
            log_unread = false;
        }
        if let Err(error) = write_message(&mut output, &message) {
            *broken.lock().unwrap_or_else(PoisonError::into_inner) = Some(error);
            return;
        }
    }
}

/// Which requests are in flight, which of them the client cancelled, and which progress token
/// belongs to which request. Keys are the JSON text of ids and tokens.
#[derive(Debug, Default)]
struct CancelGate {
    /// Request id → its progress token, if it has one.
    in_flight: HashMap<String, Option<String>>,
    cancelled: HashSet<String>,
    cancelled_tokens: HashSet<String>,
}

impl CancelGate {
    fn on_incoming(&mut self, message: &Value) {
        match (
            message.get("method").and_then(Value::as_str),
            message.get("id"),
        ) {
            (Some("notifications/cancelled"), None) => {
                let Some(request) = message["params"].get("requestId") else {
                    return;
                };
                let request = request.to_string();
                if let Some(token) = self.in_flight.get(&request) {
                    if let Some(token) = token {
                        self.cancelled_tokens.insert(token.clone());
                    }
                    self.cancelled.insert(request);
                }
            }
            (Some(_), Some(id)) => {
                let token = message["params"]["_meta"]
                    .get("progressToken")
                    .map(Value::to_string);
                self.in_flight.insert(id.to_string(), token);
            }
            _ => {}
        }
    }

    /// The progress token `message` is about: a progress notification's own, or the token of
    /// the request a response answers.
    fn progress_token(&self, message: &Value) -> Option<String> {
        if message.get("method").and_then(Value::as_str) == Some("notifications/progress") {
            return message["params"].get("progressToken").map(Value::to_string);
        }
        let id = message
            .get("id")
            .filter(|_| message.get("method").is_none())?;
        self.in_flight.get(&id.to_string()).cloned().flatten()
    }

    /// Whether `message` may be written; a response ends its request's record.
    fn lets_out(&mut self, message: &Value) -> bool {
        if message.get("method").and_then(Value::as_str) == Some("notifications/progress") {
            let token = message["params"]
                .get("progressToken")
                .map(Value::to_string)
                .unwrap_or_default();
            return !self.cancelled_tokens.contains(&token);
        }
        let Some(id) = message
            .get("id")
            .filter(|_| message.get("method").is_none())
        else {
            return true;
        };
        let id = id.to_string();
        if let Some(Some(token)) = self.in_flight.remove(&id) {
            self.cancelled_tokens.remove(&token);
        }
        !self.cancelled.remove(&id)
    }
}

#[cfg(test)]
mod tests {
    use std::io::{BufReader, Cursor};

    use super::*;

    fn messages(input: &[u8], max_bytes: usize, capacity: usize) -> Vec<String> {
        // A small buffer splits lines across reads, as a pipe does.
        let mut input = BufReader::with_capacity(capacity, Cursor::new(input.to_vec()));
        let mut read = Vec::new();
        loop {
            match read_message(&mut input, max_bytes) {
                Incoming::End => return read,
                Incoming::Message(value) => read.push(value.to_string()),
                Incoming::Malformed(reason) => read.push(format!("malformed: {reason}")),
            }
        }
    }

    #[test]
    fn a_line_of_exactly_the_limit_is_read_and_one_byte_more_is_dropped() {
        for capacity in [1, 3, 64] {
            let read = messages(b"[1,2]\n\n[1,22]\n[3]", 5, capacity);
            assert_eq!(read.len(), 3, "{read:?}");
            assert_eq!(read[0], "[1,2]");
            assert!(read[1].starts_with("malformed: the message is longer than 5 bytes"));
            assert_eq!(read[2], "[3]", "a last line without a newline still counts");
        }
    }

    #[test]
    fn a_line_that_is_not_utf8_is_malformed_and_reading_goes_on() {
        let read = messages(b"\xff\n{\"a\":1}\r\n", 100, 2);
        assert_eq!(read.len(), 2, "{read:?}");
        assert!(
            read[0].starts_with("malformed: the message is not UTF-8"),
            "{read:?}"
        );
        assert_eq!(read[1], r#"{"a":1}"#);
    }
}
