//! The MCP stdio transport: one JSON-RPC message per line in each direction.
//!
//! Invariant: a line that is not a JSON message — not JSON, not UTF-8, or longer than the
//! per-message byte limit — becomes a parse error (-32700) answered with a null id, never a
//! reason to stop serving; only the end of the input stream ends the server. An over-long line is
//! dropped as it is read: at most the limit is ever buffered, however long the line.

use std::io::{self, BufRead, Write};

use serde_json::{Value, json};

/// JSON-RPC error codes this server answers with.
pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;

/// The default bound on one incoming message (its line, newline excluded): 8 MiB, as much as one
/// render may produce by default.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 8 * 1024 * 1024;

/// One read from the input stream.
pub enum Incoming {
    Message(Value),
    /// A line that is not a JSON message, with the reason.
    Malformed(String),
    /// Nothing left to read.
    End,
}

/// Reads the next non-blank line of at most `max_bytes`; a read error ends the stream like EOF,
/// since nothing more can arrive on it.
pub fn read_message(input: &mut impl BufRead, max_bytes: usize) -> Incoming {
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

/// Writes one message as a line and flushes it, so the client sees it at once.
pub fn write_message(output: &mut impl Write, message: &Value) -> io::Result<()> {
    let mut line = serde_json::to_string(message).map_err(io::Error::other)?;
    line.push('\n');
    output.write_all(line.as_bytes())?;
    output.flush()
}

pub fn result(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

pub fn error(id: &Value, code: i64, message: impl Into<String>) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message.into()}})
}

pub fn notification(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": method, "params": params})
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
