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

use super::chunks::{Chunk, Chunks};
use super::model::Model;
use super::values::{Escape, is_element, parse_escape};

/// Which regions wait for which rows, as of the last snapshot and the rows since.
///
/// Built once per snapshot from the waits it reported, which is O(waits) with no allocation
/// per row: a sorted vector searched by row id, plus a small map for the waits the rows
/// arriving since added. A row arrives at most once (a second row for an id is malformed).
#[derive(Debug)]
pub struct Waits {
    /// `(row, region)` pairs the last snapshot reported, sorted and without repeats (0 is the
    /// root region).
    reported: Vec<(u32, usize)>,
    /// Waits added since, by rows that arrived and refer to rows still missing.
    added: HashMap<u32, Vec<usize>>,
    /// Region → how many distinct rows it still waits for.
    outstanding: Vec<usize>,
    /// Rows reached through a path reference.
    by_path: BTreeSet<u32>,
}

impl Default for Waits {
    /// Before any row: the root region waits for row 0.
    fn default() -> Self {
        Self::from_snapshot(vec![(0, 0)], BTreeSet::new())
    }
}

impl Waits {
    /// The waits a snapshot reported.
    pub fn from_snapshot(mut waits: Vec<(u32, usize)>, by_path: BTreeSet<u32>) -> Self {
        waits.sort_unstable();
        waits.dedup();
        let mut outstanding = Vec::new();
        for &(_, region) in &waits {
            if outstanding.len() <= region {
                outstanding.resize(region + 1, 0);
            }
            outstanding[region] += 1;
        }
        Self {
            reported: waits,
            added: HashMap::new(),
            outstanding,
            by_path,
        }
    }

    /// Row `id` (with `chunk`) arrived; returns whether a region could now change, so the document
    /// must be rebuilt.
    pub fn arrived(&mut self, id: u32, chunk: &Chunk, chunks: &Chunks) -> bool {
        let first = self.reported.partition_point(|&(row, _)| row < id);
        let last = first + self.reported[first..].partition_point(|&(row, _)| row == id);
        let mut regions: Vec<usize> = self.reported[first..last]
            .iter()
            .map(|&(_, region)| region)
            .collect();
        if let Some(added) = self.added.remove(&id) {
            regions.extend(added);
        }
        if regions.is_empty() {
            return false;
        }
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
            let count = self.count_of(region);
            *count = count.saturating_sub(1);
            for missing in &missing {
                self.wait(missing.id, region);
            }
            changed |= *self.count_of(region) == 0;
        }
        changed
    }

    fn count_of(&mut self, region: usize) -> &mut usize {
        if self.outstanding.len() <= region {
            self.outstanding.resize(region + 1, 0);
        }
        &mut self.outstanding[region]
    }

    /// Region `region` now also waits for row `id` (once, however often it is met).
    fn wait(&mut self, id: u32, region: usize) {
        if self.reported.binary_search(&(id, region)).is_ok() {
            return;
        }
        let regions = self.added.entry(id).or_default();
        if !regions.contains(&region) {
            regions.push(region);
            *self.count_of(region) += 1;
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
pub fn missing_references(model: &Model, chunks: &Chunks, out: &mut Vec<Missing>) {
    match model {
        Model::String(text) => {
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
        Model::Array(items) if is_element(items) && is_suspense(items, chunks) => {
            if let Some(Model::Object(props)) = items.get(3) {
                props
                    .iter()
                    .filter(|(key, _)| *key != "children")
                    .for_each(|(_, value)| missing_references(value, chunks, out));
            }
        }
        Model::Array(items) => items
            .iter()
            .for_each(|item| missing_references(item, chunks, out)),
        Model::Object(fields) => fields
            .values()
            .for_each(|value| missing_references(value, chunks, out)),
        Model::Null | Model::Bool(_) | Model::Number(_) => {}
    }
}

/// Whether the element tuple `items` is a Suspense element (its type row is `$Sreact.suspense`).
fn is_suspense(items: &[Model], chunks: &Chunks) -> bool {
    let Some(Model::String(tag)) = items.get(1) else {
        return false;
    };
    let Some(Escape::Chunk { id, path: None }) = parse_escape(tag) else {
        return false;
    };
    matches!(
        chunks.get(id),
        Some(Chunk::Model(Model::String(symbol))) if &**symbol == "$Sreact.suspense"
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

    fn arrive(waits: &mut Waits, table: &mut Chunks, id: u32, payload: &str) -> bool {
        table
            .apply(Row {
                id,
                tag: None,
                payload: payload.as_bytes().to_vec(),
            })
            .unwrap();
        let chunk = table.get(id).unwrap().clone();
        waits.arrived(id, &chunk, table)
    }

    /// A region changes only once the last row it waits for arrives, counting the rows that the
    /// arriving ones refer to; a row two regions wait for counts for both, and a row nothing
    /// waits for changes nothing.
    #[test]
    fn a_region_is_rebuilt_when_its_last_wait_arrives() {
        let mut table = Chunks::default();
        let mut waits = Waits::from_snapshot(vec![(3, 1), (2, 1), (2, 2), (2, 1)], BTreeSet::new());
        assert!(
            !arrive(&mut waits, &mut table, 9, "1"),
            "nothing waits for row 9"
        );
        assert!(
            arrive(&mut waits, &mut table, 2, "1"),
            "region 2 waited only for row 2"
        );
        assert!(
            !arrive(&mut waits, &mut table, 3, r#"["$L5"]"#),
            "region 1 now waits for row 5"
        );
        assert!(
            arrive(&mut waits, &mut table, 5, "1"),
            "region 1's last wait"
        );
        let mut waits = Waits::from_snapshot(vec![(4, 0)], BTreeSet::from([4]));
        assert!(
            arrive(&mut waits, &mut table, 4, "1"),
            "a row reached by path always rebuilds"
        );
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
