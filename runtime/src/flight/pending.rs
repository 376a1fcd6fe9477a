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
//!
//! The table lives for the whole render and each snapshot updates it by difference
//! ([`Waits::update`]): a snapshot reports the waits of the conversions it reused as groups
//! shared with the snapshot before, so only the groups that are new to the table, or gone from
//! it, and the snapshot's own waits are read. Regions are keyed by boundary number (stable from
//! one snapshot to the next), so a group's waits mean the same in every snapshot that holds it.

use std::collections::{BTreeSet, HashMap};

use foldhash::fast::RandomState;

use super::chunks::{Chunk, Chunks};
use super::model::Model;
use super::snapshot::Group;
use super::values::{Escape, is_element, parse_escape};

/// Which regions wait for which rows, as of the last snapshot and the rows since.
///
/// Every wait is counted once per source that reports it (the snapshot's own waits, each group,
/// each wait added by an arriving row), so a source that goes takes exactly its own waits away.
/// A row arrives at most once (a second row for an id is malformed): when it does, its waits
/// leave the table, and a source that still names it later takes nothing away for it.
#[derive(Debug)]
pub struct Waits {
    /// Missing row → the regions waiting for it, each with how many sources report the wait.
    rows: HashMap<u32, Vec<(usize, u32)>, RandomState>,
    /// Region → how many distinct rows it still waits for (0 is the root region, `n` the content
    /// of boundary `bn`).
    outstanding: Vec<usize>,
    /// Missing rows reached through a path reference, with how many sources report them.
    by_path: HashMap<u32, u32, RandomState>,
    /// The last snapshot's own waits and rows reached by path.
    own: Vec<(u32, usize)>,
    own_by_path: Vec<u32>,
    /// The last snapshot's groups, sorted by key.
    groups: Vec<Group>,
    /// Waits added since, by rows that arrived and refer to rows still missing.
    added: Vec<(u32, usize)>,
}

impl Default for Waits {
    /// Before any row: the root region waits for row 0.
    fn default() -> Self {
        Self::from_snapshot(vec![(0, 0)], BTreeSet::new())
    }
}

impl Waits {
    /// The waits of a snapshot that reused nothing.
    pub fn from_snapshot(waits: Vec<(u32, usize)>, by_path: BTreeSet<u32>) -> Self {
        let mut table = Self {
            rows: HashMap::default(),
            outstanding: Vec::new(),
            by_path: HashMap::default(),
            own: Vec::new(),
            own_by_path: Vec::new(),
            groups: Vec::new(),
            added: Vec::new(),
        };
        table.update(
            waits,
            by_path.into_iter().collect(),
            Vec::new(),
            &Chunks::default(),
        );
        table
    }

    /// Replaces what the last snapshot reported with what a new one reports: its own `waits`
    /// and `by_path` rows, and its `groups`. A group the last snapshot held too costs nothing;
    /// `chunks` tells which rows arrived since (their waits already left). Returns the last
    /// snapshot's waits and groups vectors, emptied, for a later snapshot to fill.
    pub fn update(
        &mut self,
        waits: Vec<(u32, usize)>,
        by_path: Vec<u32>,
        mut groups: Vec<Group>,
        chunks: &Chunks,
    ) -> (Vec<(u32, usize)>, Vec<Group>) {
        // New waits first, then the old ones go: a wait both report never leaves the table.
        for &(id, region) in &waits {
            self.add(id, region);
        }
        for &id in &by_path {
            *self.by_path.entry(id).or_default() += 1;
        }
        groups.sort_unstable_by_key(Group::key);
        let mut old = std::mem::take(&mut self.groups);
        let mut gone = Vec::new();
        let (mut i, mut j) = (0, 0);
        while i < old.len() || j < groups.len() {
            let before = old.get(i).map(Group::key);
            let now = groups.get(j).map(Group::key);
            match (before, now) {
                (Some(before), Some(now)) if before == now => {
                    i += 1;
                    j += 1;
                }
                (Some(before), now) if now.is_none_or(|now| before < now) => {
                    gone.push(i);
                    i += 1;
                }
                _ => {
                    self.add_group(&groups[j]);
                    j += 1;
                }
            }
        }
        for i in gone {
            self.remove_group(&old[i], chunks);
        }
        let mut own = std::mem::replace(&mut self.own, waits);
        for &(id, region) in &own {
            self.remove(id, region, chunks);
        }
        for (id, region) in std::mem::take(&mut self.added) {
            self.remove(id, region, chunks);
        }
        for id in std::mem::replace(&mut self.own_by_path, by_path) {
            self.remove_by_path(id, chunks);
        }
        self.groups = groups;
        #[cfg(test)]
        self.check(chunks);
        own.clear();
        old.clear();
        (own, old)
    }

    /// Row `id` (with `chunk`) arrived; returns whether a region could now change, so the document
    /// must be rebuilt.
    pub fn arrived(&mut self, id: u32, chunk: &Chunk, chunks: &Chunks) -> bool {
        let by_path = self.by_path.remove(&id).is_some();
        let Some(regions) = self.rows.remove(&id) else {
            return false;
        };
        for &(region, _) in &regions {
            self.outstanding[region] -= 1;
        }
        let mut missing = Vec::new();
        match chunk {
            Chunk::Model(model) => missing_references(model, chunks, &mut missing),
            Chunk::Text(_) | Chunk::Bytes(_) => {}
            Chunk::Error(_) | Chunk::Stream(_) => return true,
        }
        if by_path || missing.iter().any(|missing| missing.by_path) {
            return true;
        }
        let mut changed = false;
        for (region, _) in regions {
            for missing in &missing {
                self.wait(missing.id, region);
            }
            changed |= self.outstanding[region] == 0;
        }
        changed
    }

    /// Region `region` now also waits for row `id` (once, however often it is met).
    fn wait(&mut self, id: u32, region: usize) {
        let known = self
            .rows
            .get(&id)
            .is_some_and(|regions| regions.iter().any(|&(known, _)| known == region));
        if !known {
            self.add(id, region);
            self.added.push((id, region));
        }
    }

    fn add(&mut self, id: u32, region: usize) {
        let regions = self.rows.entry(id).or_default();
        match regions.iter_mut().find(|(known, _)| *known == region) {
            Some((_, sources)) => *sources += 1,
            None => {
                regions.push((region, 1));
                if self.outstanding.len() <= region {
                    self.outstanding.resize(region + 1, 0);
                }
                self.outstanding[region] += 1;
            }
        }
    }

    fn remove(&mut self, id: u32, region: usize, chunks: &Chunks) {
        if chunks.get(id).is_some() {
            return;
        }
        let Some(regions) = self.rows.get_mut(&id) else {
            return;
        };
        let Some(at) = regions.iter().position(|&(known, _)| known == region) else {
            return;
        };
        regions[at].1 -= 1;
        if regions[at].1 == 0 {
            regions.swap_remove(at);
            self.outstanding[region] -= 1;
            if regions.is_empty() {
                self.rows.remove(&id);
            }
        }
    }

    fn remove_by_path(&mut self, id: u32, chunks: &Chunks) {
        if chunks.get(id).is_some() {
            return;
        }
        if let Some(sources) = self.by_path.get_mut(&id) {
            *sources -= 1;
            if *sources == 0 {
                self.by_path.remove(&id);
            }
        }
    }

    fn add_group(&mut self, group: &Group) {
        for (id, region) in group.waits() {
            self.add(id, region);
        }
        for &id in group.by_path() {
            *self.by_path.entry(id).or_default() += 1;
        }
    }

    fn remove_group(&mut self, group: &Group, chunks: &Chunks) {
        for (id, region) in group.waits() {
            self.remove(id, region, chunks);
        }
        for &id in group.by_path() {
            self.remove_by_path(id, chunks);
        }
    }

    /// The table is exactly what its sources report, counted from scratch.
    #[cfg(test)]
    fn check(&self, chunks: &Chunks) {
        let mut rows: HashMap<u32, HashMap<usize, u32>> = HashMap::new();
        let mut by_path: HashMap<u32, u32> = HashMap::new();
        let waits = self
            .own
            .iter()
            .copied()
            .chain(self.groups.iter().flat_map(Group::waits));
        for (id, region) in waits {
            assert!(chunks.get(id).is_none(), "row {id:x} arrived");
            *rows.entry(id).or_default().entry(region).or_default() += 1;
        }
        let paths = self
            .own_by_path
            .iter()
            .chain(self.groups.iter().flat_map(Group::by_path));
        for &id in paths {
            *by_path.entry(id).or_default() += 1;
        }
        let table: HashMap<u32, HashMap<usize, u32>> = self
            .rows
            .iter()
            .map(|(&id, regions)| (id, regions.iter().copied().collect()))
            .collect();
        assert_eq!(table, rows, "the waits by row");
        assert_eq!(
            self.by_path
                .iter()
                .map(|(&id, &n)| (id, n))
                .collect::<HashMap<_, _>>(),
            by_path,
            "the rows reached by path"
        );
        let mut outstanding = vec![0; self.outstanding.len()];
        for regions in rows.values() {
            for &region in regions.keys() {
                outstanding[region] += 1;
            }
        }
        assert_eq!(
            self.outstanding, outstanding,
            "the rows each region waits for"
        );
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
