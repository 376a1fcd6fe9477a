//! The chunk table: what each row id resolved to, as rows arrive.
//!
//! Entry: [`Chunks::apply`]. Invariant: a chunk, once resolved, never changes (a second row for
//! the same id is a malformed stream), so snapshots built from the table only ever gain content.
//! The table also records the order in which ids arrived, so a snapshot can tell what arrived
//! since an earlier one without reading the whole table.
//!
//! React numbers rows densely from 0, so most ids index a vector directly; an id far beyond the
//! rows seen so far (legal, but never written by React) goes to a map, which keeps the table's
//! memory proportional to the rows that arrived whatever ids a hostile stream picks.

use std::collections::HashMap;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde_json::Value;

use super::error::FlightError;
use super::model::{Model, Scratch};
use super::rows::Row;
use crate::document::DocumentError;

/// What one row id resolved to.
#[derive(Debug, Clone, PartialEq)]
pub enum Chunk {
    /// A JSON model row, still carrying its `$` escapes.
    Model(Model),
    /// A `T` row: a long string.
    Text(String),
    /// A typed-array row, as the document holds bytes: base64, encoded once on arrival.
    Bytes(String),
    /// An `E` row: the render of this chunk failed.
    Error(DocumentError),
    /// A stream or iterator row (`R`, `r`, `X`, `x`, `b`, `C`) the document cannot hold.
    Stream(char),
}

/// Ids below this many slots more than the rows received go to the dense vector.
const DENSE_SLACK: usize = 4096;

/// Resolved chunks by row id.
#[derive(Debug, Default)]
pub struct Chunks {
    /// Chunks of small ids, indexed by id.
    dense: Vec<Option<Chunk>>,
    /// Chunks of ids too far beyond the dense vector.
    sparse: HashMap<u32, Chunk>,
    count: usize,
    /// Every id stored, in order of arrival (snapshots read what arrived since the last one).
    arrivals: Vec<u32>,
    /// Reused by every model row's parse.
    scratch: Scratch,
}

impl Chunks {
    /// The chunk of `id`, if its row has arrived.
    pub fn get(&self, id: u32) -> Option<&Chunk> {
        match self.dense.get(id as usize) {
            Some(slot) => slot.as_ref(),
            None => self.sparse.get(&id),
        }
    }

    /// Every id resolved so far, in order of arrival.
    pub fn arrivals(&self) -> &[u32] {
        &self.arrivals
    }

    fn contains(&self, id: u32) -> bool {
        self.get(id).is_some()
    }

    /// Stores `chunk` under `id`; returns whether the id already had one.
    fn insert(&mut self, id: u32, chunk: Chunk) -> bool {
        let index = id as usize;
        let limit = (self.count * 2).max(self.dense.len()) + DENSE_SLACK;
        if index >= self.dense.len() && index < limit {
            // Doubling keeps the moves below rare: the vector grows a logarithmic number of times.
            let grown = (index + 1).next_power_of_two().clamp(index + 1, limit);
            self.dense.resize_with(grown, || None);
            // Ids now within the vector's range leave the map, so each id lives in one place.
            if !self.sparse.is_empty() {
                let moved: Vec<u32> = self
                    .sparse
                    .keys()
                    .copied()
                    .filter(|&key| (key as usize) < grown)
                    .collect();
                for key in moved {
                    self.dense[key as usize] = self.sparse.remove(&key);
                }
            }
        }
        self.count += 1;
        self.arrivals.push(id);
        match self.dense.get_mut(index) {
            Some(slot) => slot.replace(chunk).is_some(),
            None => self.sparse.insert(id, chunk).is_some(),
        }
    }

    /// Records `row`; returns whether it resolved a chunk (hints and debug rows do not).
    pub fn apply(&mut self, row: Row) -> Result<bool, FlightError> {
        let chunk = match row.tag {
            None | Some(b'#') => Chunk::Model(
                Model::parse(&row.payload, &mut self.scratch).map_err(|error| {
                    FlightError::Malformed(format!("row {:x} is not valid JSON: {error}", row.id))
                })?,
            ),
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
            ) => Chunk::Bytes(BASE64.encode(&row.payload)),
            Some(tag) => {
                return Err(FlightError::Malformed(format!(
                    "row {:x} has the unknown tag `{}`",
                    row.id,
                    char::from(tag)
                )));
            }
        };
        if let Chunk::Stream(_) = chunk
            && self.contains(row.id)
        {
            // Stream rows repeat their id for every value; the stream itself is refused on use.
            return Ok(false);
        }
        if self.insert(row.id, chunk) {
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

    /// Ids far beyond the rows seen go to the map, then move into the vector once it reaches
    /// them; every chunk stays readable and a repeated id stays refused wherever it lives.
    #[test]
    fn far_ids_are_kept_in_the_map_and_found_after_the_vector_grows() {
        let mut chunks = Chunks::default();
        chunks.apply(row(0xffff_ffff, None, "\"far\"")).unwrap();
        chunks.apply(row(9000, None, "\"later\"")).unwrap();
        assert!(chunks.dense.len() <= DENSE_SLACK);
        for id in 0..5000 {
            chunks.apply(row(id, None, &id.to_string())).unwrap();
        }
        chunks.apply(row(8999, None, "1")).unwrap();
        assert!(chunks.dense.len() > 9000, "the vector grew over id 9000");
        assert_eq!(
            chunks.get(9000),
            Some(&Chunk::Model(Model::String("later".into())))
        );
        assert_eq!(
            chunks.get(0xffff_ffff),
            Some(&Chunk::Model(Model::String("far".into())))
        );
        assert_eq!(
            chunks.get(4999),
            Some(&Chunk::Model(Model::Number(4999.into())))
        );
        assert_eq!(chunks.get(5000), None);
        assert_eq!(
            chunks.apply(row(9000, None, "2")).unwrap_err().code(),
            "malformed-flight"
        );
        assert_eq!(
            chunks
                .apply(row(0xffff_ffff, None, "2"))
                .unwrap_err()
                .code(),
            "malformed-flight"
        );
    }
}
