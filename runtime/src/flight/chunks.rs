//! The chunk table: what each row id resolved to, as rows arrive.
//!
//! Entry: [`Chunks::apply`]. Invariant: a chunk, once resolved, never changes (a second row for
//! the same id is a malformed stream), so snapshots built from the table only ever gain content.

use std::collections::HashMap;

use serde_json::Value;

use super::error::FlightError;
use super::rows::Row;
use crate::document::DocumentError;

/// What one row id resolved to.
#[derive(Debug, Clone, PartialEq)]
pub enum Chunk {
    /// A JSON model row, still carrying its `$` escapes.
    Model(Value),
    /// A `T` row: a long string.
    Text(String),
    /// A typed-array row: raw bytes.
    Bytes(Vec<u8>),
    /// An `E` row: the render of this chunk failed.
    Error(DocumentError),
    /// A stream or iterator row (`R`, `r`, `X`, `x`, `b`, `C`) the document cannot hold.
    Stream(char),
}

/// Resolved chunks by row id.
#[derive(Debug, Default)]
pub struct Chunks {
    resolved: HashMap<u32, Chunk>,
}

impl Chunks {
    /// The chunk of `id`, if its row has arrived.
    pub fn get(&self, id: u32) -> Option<&Chunk> {
        self.resolved.get(&id)
    }

    /// Records `row`; returns whether it resolved a chunk (hints and debug rows do not).
    pub fn apply(&mut self, row: Row) -> Result<bool, FlightError> {
        let chunk = match row.tag {
            None | Some(b'#') => {
                Chunk::Model(serde_json::from_slice(&row.payload).map_err(|error| {
                    FlightError::Malformed(format!("row {:x} is not valid JSON: {error}", row.id))
                })?)
            }
            Some(b'T') => Chunk::Text(String::from_utf8(row.payload).map_err(|_| {
                FlightError::Malformed(format!("text row {:x} is not valid UTF-8", row.id))
            })?),
            Some(b'E') => Chunk::Error(error_from_digest(&row.payload)),
            // A client module reference: Agent Documents have no client components, and a
            // stream that imports one is refused as it arrives (the decoder names the route).
            Some(b'I') => {
                return Err(FlightError::ClientComponent {
                    route: String::new(),
                });
            }
            // Hints and development-only rows carry nothing a document needs.
            Some(b'H' | b'D' | b'J' | b'W' | b'N') => return Ok(false),
            Some(tag @ (b'R' | b'r' | b'X' | b'x' | b'b' | b'C')) => Chunk::Stream(char::from(tag)),
            Some(
                b'A' | b'O' | b'o' | b'U' | b'S' | b's' | b'L' | b'l' | b'G' | b'g' | b'M' | b'm'
                | b'V',
            ) => Chunk::Bytes(row.payload),
            Some(tag) => {
                return Err(FlightError::Malformed(format!(
                    "row {:x} has the unknown tag `{}`",
                    row.id,
                    char::from(tag)
                )));
            }
        };
        if let Chunk::Stream(_) = chunk
            && self.resolved.contains_key(&row.id)
        {
            // Stream rows repeat their id for every value; the stream itself is refused on use.
            return Ok(false);
        }
        if self.resolved.insert(row.id, chunk).is_some() {
            return Err(FlightError::Malformed(format!(
                "row {:x} arrived twice",
                row.id
            )));
        }
        Ok(true)
    }
}

/// Reads the worker's digest convention: the digest is the JSON string `{code, message}`.
fn error_from_digest(payload: &[u8]) -> DocumentError {
    let digest = serde_json::from_slice::<Value>(payload)
        .ok()
        .and_then(|row| row.get("digest").and_then(Value::as_str).map(str::to_owned));
    let Some(digest) = digest else {
        return DocumentError::new("render-error", "the render failed without a digest");
    };
    match serde_json::from_str::<Value>(&digest) {
        Ok(Value::Object(fields)) => {
            let text = |key: &str| fields.get(key).and_then(Value::as_str).map(str::to_owned);
            DocumentError::new(
                text("code").unwrap_or_else(|| "render-error".into()),
                text("message").unwrap_or_else(|| "the render failed".into()),
            )
        }
        _ => DocumentError::new("render-error", digest),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: u32, tag: Option<u8>, payload: &str) -> Row {
        Row {
            id,
            tag,
            payload: payload.as_bytes().to_vec(),
        }
    }

    #[test]
    fn digests_carry_code_and_message() {
        let mut chunks = Chunks::default();
        chunks
            .apply(row(
                2,
                Some(b'E'),
                r#"{"digest":"{\"code\":\"index-locked\",\"message\":\"locked\"}"}"#,
            ))
            .unwrap();
        assert_eq!(
            chunks.get(2),
            Some(&Chunk::Error(DocumentError::new("index-locked", "locked")))
        );
        chunks
            .apply(row(3, Some(b'E'), r#"{"digest":"plain"}"#))
            .unwrap();
        assert_eq!(
            chunks.get(3),
            Some(&Chunk::Error(DocumentError::new("render-error", "plain")))
        );
    }

    #[test]
    fn duplicate_rows_and_bad_json_are_malformed() {
        let mut chunks = Chunks::default();
        chunks.apply(row(1, None, "1")).unwrap();
        assert_eq!(
            chunks.apply(row(1, None, "2")).unwrap_err().code(),
            "malformed-flight"
        );
        assert_eq!(
            chunks.apply(row(4, None, "[1,")).unwrap_err().code(),
            "malformed-flight"
        );
        assert!(!chunks.apply(row(0, Some(b'H'), "L[\"x\"]")).unwrap());
    }
}
