//! Whether a newly arrived row can change the document at all, decided without a rebuild.
//!
//! Entry: [`Waits::arrived`]. Each pending region (the root, or a Suspense boundary's content)
//! waits for a set of rows. A row that arrives leaves its regions pending while each still waits
//! for another row — a sibling not yet arrived, or one the new row refers to directly (outside
//! any Suspense content): no snapshot can differ yet, so the decoder only updates the sets instead
//! of rebuilding the document, which keeps decoding linear in the number of rows. Invariant: this
//! only skips work whose result is known; an error row, a row reached through a path reference
//! (`$<id>:a:b`, which may need only part of the row) and a region whose set empties always
//! lead to a rebuild.

use std::collections::{BTreeSet, HashMap};

use serde_json::Value;

use super::chunks::{Chunk, Chunks};
use super::values::{Escape, is_element, parse_escape};

/// Which regions wait for which rows, as of the last snapshot and the rows since.
#[derive(Debug)]
pub struct Waits {
    /// Row id → the regions waiting for it (0 is the root region).
    regions_of: HashMap<u32, BTreeSet<usize>>,
    /// Region → how many distinct rows it still waits for.
    outstanding: HashMap<usize, usize>,
    /// Rows reached through a path reference.
    by_path: BTreeSet<u32>,
}

impl Default for Waits {
    /// Before any row: the root region waits for row 0.
    fn default() -> Self {
        Self::from_snapshot(&[(0, 0)], &BTreeSet::new())
    }
}

impl Waits {
    /// The waits a snapshot reported.
    pub fn from_snapshot(waits: &[(u32, usize)], by_path: &BTreeSet<u32>) -> Self {
        let mut this = Self {
            regions_of: HashMap::new(),
            outstanding: HashMap::new(),
            by_path: by_path.clone(),
        };
        for &(id, region) in waits {
            this.wait(id, region);
        }
        this
    }

    /// Row `id` (with `chunk`) arrived; returns whether a region could now change, so the document
    /// must be rebuilt.
    pub fn arrived(&mut self, id: u32, chunk: &Chunk, chunks: &Chunks) -> bool {
        let Some(regions) = self.regions_of.remove(&id) else {
            return false;
        };
        let mut missing = Vec::new();
        match chunk {
            Chunk::Model(model) => missing_references(model, chunks, &mut missing),
            Chunk::Text(_) | Chunk::Bytes(_) => {}
            Chunk::Error(_) | Chunk::Stream(_) => return true,
        }
        if self.by_path.contains(&id) || missing.iter().any(|missing| missing.by_path) {
            return true;
        }
        let mut changed = false;
        for region in regions {
            if let Some(count) = self.outstanding.get_mut(&region) {
                *count = count.saturating_sub(1);
            }
            for missing in &missing {
                self.wait(missing.id, region);
            }
            changed |= self
                .outstanding
                .get(&region)
                .is_none_or(|count| *count == 0);
        }
        changed
    }

    fn wait(&mut self, id: u32, region: usize) {
        if self.regions_of.entry(id).or_default().insert(region) {
            *self.outstanding.entry(region).or_default() += 1;
        }
    }
}

/// A row `model` refers to that has not arrived, and whether the reference is a path reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Missing {
    pub id: u32,
    pub by_path: bool,
}

/// Appends the rows `model` refers to directly that have not arrived, skipping Suspense content
/// (a boundary's pending content does not hold its region back; its fallback does).
pub fn missing_references(model: &Value, chunks: &Chunks, out: &mut Vec<Missing>) {
    match model {
        Value::String(text) => {
            let reference = match parse_escape(text) {
                Some(Escape::Chunk { id, path }) => Some((id, path.is_some())),
                Some(Escape::Lazy(id) | Escape::Map(id) | Escape::Set(id)) => Some((id, false)),
                _ => None,
            };
            if let Some((id, by_path)) = reference
                && chunks.get(id).is_none()
            {
                out.push(Missing { id, by_path });
            }
        }
        Value::Array(items) if is_element(items) && is_suspense(items, chunks) => {
            if let Some(Value::Object(props)) = items.get(3) {
                props
                    .iter()
                    .filter(|(key, _)| key.as_str() != "children")
                    .for_each(|(_, value)| missing_references(value, chunks, out));
            }
        }
        Value::Array(items) => items
            .iter()
            .for_each(|item| missing_references(item, chunks, out)),
        Value::Object(fields) => fields
            .values()
            .for_each(|value| missing_references(value, chunks, out)),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// Whether the element tuple `items` is a Suspense element (its type row is `$Sreact.suspense`).
fn is_suspense(items: &[Value], chunks: &Chunks) -> bool {
    let Some(Value::String(tag)) = items.get(1) else {
        return false;
    };
    let Some(Escape::Chunk { id, path: None }) = parse_escape(tag) else {
        return false;
    };
    matches!(
        chunks.get(id),
        Some(Chunk::Model(Value::String(symbol))) if symbol == "$Sreact.suspense"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flight::rows::Row;

    fn chunks(rows: &[(u32, &str)]) -> Chunks {
        let mut chunks = Chunks::default();
        for (id, payload) in rows {
            chunks
                .apply(Row {
                    id: *id,
                    tag: None,
                    payload: payload.as_bytes().to_vec(),
                })
                .unwrap();
        }
        chunks
    }

    fn missing(model: &str, chunks: &Chunks) -> Vec<(u32, bool)> {
        let mut out = Vec::new();
        missing_references(&serde_json::from_str(model).unwrap(), chunks, &mut out);
        out.into_iter().map(|m| (m.id, m.by_path)).collect()
    }

    #[test]
    fn suspense_content_does_not_count_but_its_fallback_does() {
        let table = chunks(&[(1, r#""$Sreact.suspense""#)]);
        let model = r#"["$","$1",null,{"fallback":"$L5","children":"$L2"}]"#;
        assert_eq!(missing(model, &table), [(5, false)]);
        assert_eq!(
            missing(r#"["$L3","$4:props",{"v":"$Q6"}]"#, &table),
            [(3, false), (4, true), (6, false)]
        );
        assert_eq!(missing(r#"["$1","$$L9","plain"]"#, &table), []);
    }
}
