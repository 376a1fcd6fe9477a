//! The MCP stdio transport: one JSON-RPC message per line in each direction.
//!
//! Invariant: a line that is not JSON becomes a parse error (-32700) answered with a null id,
//! never a reason to stop serving; only the end of the input stream ends the server.

use std::io::{self, BufRead, Write};

use serde_json::{Value, json};

/// JSON-RPC error codes this server answers with.
pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;

/// One read from the input stream.
pub enum Incoming {
    Message(Value),
    /// A line that is not JSON, with the parser's reason.
    Malformed(String),
    /// Nothing left to read.
    End,
}

/// Reads the next non-blank line; a read error ends the stream like EOF, since nothing more can
/// arrive on it.
pub fn read_message(input: &mut impl BufRead) -> Incoming {
    let mut line = String::new();
    loop {
        line.clear();
        match input.read_line(&mut line) {
            Ok(0) | Err(_) => return Incoming::End,
            Ok(_) if line.trim().is_empty() => continue,
            Ok(_) => {
                return match serde_json::from_str(line.trim()) {
                    Ok(value) => Incoming::Message(value),
                    Err(error) => Incoming::Malformed(error.to_string()),
                };
            }
        }
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
