//! Snapshots: the document as the chunks received so far describe it.
//!
//! Entry: [`build_snapshot`]. A Suspense element becomes a boundary node: pending (children = its
//! fallback) while a chunk its content needs is missing, error when one of them failed, resolved
//! otherwise. Missing or failed chunks outside every boundary mark the root region, which holds the
//! shell back or fails the invocation. Invariant: boundary ids depend only on where the Suspense
//! element sits in the stream (row id and path), so they are stable from one snapshot to the next.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use foldhash::fast::RandomState;

use serde_json::{Map, Number, Value};

use super::chunks::{Chunk, Chunks};
use super::error::FlightError;
use super::model::{Fields, Model};
use super::values::{Escape, is_element, parse_escape, truncate};
use crate::document::{
    BoundaryState, Children, ChildrenBuilder, DocumentError, DocumentLimits, NearBoundaries, Node,
    PartStack, StackedList,
};

/// What the content of the root or of one boundary still waits for or failed on.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Region {
    pub pending: bool,
    pub error: Option<DocumentError>,
}

/// What one snapshot leaves to the next: boundary ids and the regions already converted.
#[derive(Debug)]
pub struct SnapshotCache {
    /// Boundary numbers (1, 2, …: ids `b1`, `b2`, …) by the place of their Suspense element, in
    /// order of discovery. A boundary's number is also the key of its region in the waits.
    ids: HashMap<(u32, PathId), usize, RandomState>,
    /// The id of boundary `n` at index `n - 1`.
    names: Vec<String>,
    /// Every path met inside a row, by its parent and last step.
    paths: HashMap<(PathId, Step), PathId, RandomState>,
    /// The path of the `children` prop below each path, by the path's id (ids are dense): an
    /// element's children are reached with every snapshot that builds it.
    children_paths: Vec<PathId>,
    /// The paths of the items of a list, by the list's path, as far as they were needed.
    items: HashMap<PathId, Vec<PathId>, RandomState>,
    /// The paths of the blocks of a long list, by the list's path and length.
    blocks: HashMap<(PathId, usize), Box<[PathId]>, RandomState>,
    /// Converted lists, list blocks and elements, by their place.
    converted: HashMap<Place, Converted, RandomState>,
    /// How many waits and groups the last snapshot reported: the next one starts with room
    /// for as many, since consecutive snapshots report nearly the same.
    last_counts: (usize, usize),
    /// Whether settled regions are kept and reused (off only to test that reuse changes nothing).
    reuse: bool,
    /// The stacks of the last snapshot, emptied, kept for their room.
    stack: PartStack,
    path_stack: Vec<PathId>,
    /// The waits and groups vectors of an earlier snapshot, emptied by the wait table, kept
    /// for their room.
    spare_waits: Vec<(u32, usize)>,
    spare_groups: Vec<Group>,
}

impl Default for SnapshotCache {
    fn default() -> Self {
        Self {
            ids: HashMap::default(),
            names: Vec::new(),
            paths: HashMap::default(),
            children_paths: Vec::new(),
            items: HashMap::default(),
            blocks: HashMap::default(),
            converted: HashMap::default(),
            last_counts: (0, 0),
            reuse: true,
            stack: PartStack::default(),
            path_stack: Vec::new(),
            spare_waits: Vec::new(),
            spare_groups: Vec::new(),
        }
    }
}

/// A path inside a row, interned: one id per distinct path for the whole render, so a place
/// costs no string and compares in one step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct PathId(usize);

/// The root of a row.
const ROW_ROOT: PathId = PathId(0);

/// One step of a path below its parent.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Step {
    /// The `children` prop of an element.
    Children,
    /// The `fallback` prop of a Suspense element.
    Fallback,
    /// One item of a list.
    Item(usize),
    /// The items `start..end` of a long list, converted as one block.
    Block(usize, usize),
    /// Where a path reference (`$<id>:a:b`) leads, from its row's root.
    Reference(Box<str>),
}

/// Where a model sits in the stream, and what else its conversion depends on.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Place {
    chunk: u32,
    path: PathId,
    depth: usize,
    /// Inside an `<Agent.Result>`, which merges the results it holds.
    in_result: bool,
}

/// A place hashes as one word: every walk looks places up part by part, and two places that
/// share the word still differ to the comparison.
impl Hash for Place {
    fn hash<H: Hasher>(&self, state: &mut H) {
        let depth = ((self.depth as u64) << 1 | u64::from(self.in_result)).rotate_right(16);
        state.write_u64(self.path.0 as u64 ^ u64::from(self.chunk) << 32 ^ depth);
    }
}

/// Lists and blocks longer than this are converted, and kept, in blocks.
const BLOCK_ITEMS: usize = 8;

/// A long list is split in at most this many blocks, each split again while longer than
/// [`BLOCK_ITEMS`]: a snapshot after one item changed rebuilds the blocks on that item's way down
/// (this many parts each, and the item's block of at most [`BLOCK_ITEMS`]) and reuses the rest.
const BLOCK_FANOUT: usize = 8;

/// Up to this many arrivals since a kept conversion was last checked, the check scans its
/// missing rows for each of them; past it, it looks its missing rows up instead.
const SCANNED_ARRIVALS: usize = 4;

/// How many items each block of a list or block of `len` items holds: [`BLOCK_ITEMS`] times a
/// power of [`BLOCK_FANOUT`], the smallest that makes at most [`BLOCK_FANOUT`] blocks; but when
/// those blocks are too long to be kept ([`MAX_KEPT_WAITS`]) and blocks a level smaller make at
/// most twice as many, those: a level of blocks that is never kept is rebuilt with every change
/// below it, so a list of 1,000 is 16 kept blocks of 64 rather than 2 blocks of 512 rebuilt
/// every time around them.
fn block_items(len: usize) -> usize {
    let mut block = BLOCK_ITEMS;
    while len.div_ceil(block) > BLOCK_FANOUT {
        block *= BLOCK_FANOUT;
    }
    let smaller = block / BLOCK_FANOUT;
    if block > MAX_KEPT_WAITS && len.div_ceil(smaller) <= 2 * BLOCK_FANOUT {
        smaller
    } else {
        block
    }
}

/// A conversion is kept only while it waits for at most this many rows: its waits are copied
/// into its group each time it is rebuilt, and any of them arriving rebuilds it. Blocks of 64
/// items stay under it (a list of 1,000 boundaries: 16 blocks of 8 leaves of 8, the blocks of
/// 64 kept); a list or block that waits for more is rebuilt around its kept blocks.
const MAX_KEPT_WAITS: usize = BLOCK_ITEMS * BLOCK_FANOUT;

/// What [`SnapshotBuilder::converted_or_built`] converts.
#[derive(Clone, Copy)]
enum Convert<'a> {
    /// An element tuple.
    Element(&'a [Model]),
    /// `items`, the items of a list from index `start` on; `block` is the path of their
    /// block when they are one block of a long list.
    Items {
        start: usize,
        items: &'a [Model],
        block: Option<PathId>,
    },
}

/// A converted list, block or element: its nodes (shared with every snapshot that holds them)
/// and what its conversion did besides, to replay when it is reused.
#[derive(Debug)]
struct Converted {
    children: Children,
    /// Nodes and values counted against the limits.
    counted: usize,
    /// How many of the chunks' arrivals it was last found valid after: it stays valid while
    /// none of the arrivals since is one of the rows it found missing.
    checked_at: usize,
    /// The waits it recorded, one for each row it found missing, in the order met (a row may
    /// repeat); `None` once settled (it found none).
    waits: Option<Arc<GroupWaits>>,
}

/// The waits a kept conversion recorded, shared by every snapshot that reuses it: a snapshot
/// reports a reused conversion's waits as one [`Group`], not wait by wait, so the wait table
/// (`pending.rs`) only reads them when the group is new to it.
#[derive(Debug)]
pub struct GroupWaits {
    /// The waits, in order.
    entries: Box<[(u32, WaitingRegion)]>,
    /// The lowest and highest row of `entries`: a row outside them is none of its rows, which
    /// settles most reuse checks without a scan (React numbers the rows of neighbouring content
    /// close together, so a block's rows are near one another and far from most others).
    span: (u32, u32),
    /// Whether one of them is in the enclosing region.
    encloses: bool,
    /// The missing rows it reached through a path reference.
    by_path: Box<[u32]>,
}

/// Which region a recorded wait belongs to.
#[derive(Debug, Clone, Copy)]
enum WaitingRegion {
    /// The region the conversion sat in.
    Enclosing,
    /// The region of the boundary of this number, held inside the conversion.
    Held(usize),
}

/// The waits of one reused conversion in one snapshot: its recorded waits, in the region it sat in.
#[derive(Debug, Clone)]
pub struct Group {
    waits: Arc<GroupWaits>,
    /// The region the conversion sat in.
    enclosing: usize,
}

impl Group {
    /// Identifies the group while it is alive: the same recorded waits in the same region.
    pub fn key(&self) -> (usize, usize) {
        (Arc::as_ptr(&self.waits) as usize, self.enclosing)
    }

    /// Its waits: `(row, region)`.
    pub fn waits(&self) -> impl Iterator<Item = (u32, usize)> + '_ {
        self.waits.entries.iter().map(|&(id, region)| {
            let region = match region {
                WaitingRegion::Enclosing => self.enclosing,
                WaitingRegion::Held(region) => region,
            };
            (id, region)
        })
    }

    /// The missing rows it reached through a path reference.
    pub fn by_path(&self) -> &[u32] {
        &self.waits.by_path
    }
}

impl SnapshotCache {
    /// A cache that converts every region again for every snapshot, as the decoder once did.
    #[cfg(test)]
    pub fn without_reuse() -> Self {
        Self {
            reuse: false,
            ..Self::default()
        }
    }

    /// The number and id of the boundary whose Suspense element sits at `path` in `chunk`.
    fn id_for(&mut self, chunk: u32, path: PathId) -> (usize, String) {
        let next = self.names.len() + 1;
        let number = *self.ids.entry((chunk, path)).or_insert(next);
        if number == next {
            self.names.push(format!("b{next}"));
        }
        (number, self.names[number - 1].clone())
    }

    /// Keeps a snapshot's `waits` and `groups` vectors, emptied by the wait table's update
    /// (`Waits::update`), for a later one.
    pub fn recycle(&mut self, waits: Vec<(u32, usize)>, groups: Vec<Group>) {
        debug_assert!(waits.is_empty() && groups.is_empty());
        self.spare_waits = waits;
        self.spare_groups = groups;
    }

    /// The path `step` below `parent`.
    fn path(&mut self, parent: PathId, step: Step) -> PathId {
        let next = PathId(self.paths.len() + 1);
        *self.paths.entry((parent, step)).or_insert(next)
    }

    /// The path of the `children` prop below `parent` (in the table, [`ROW_ROOT`] stands for
    /// not known yet: it is below no path).
    fn children_path(&mut self, parent: PathId) -> PathId {
        if let Some(&known) = self.children_paths.get(parent.0)
            && known != ROW_ROOT
        {
            return known;
        }
        let path = self.path(parent, Step::Children);
        if self.children_paths.len() <= parent.0 {
            self.children_paths.resize(parent.0 + 1, ROW_ROOT);
        }
        self.children_paths[parent.0] = path;
        path
    }

    /// The paths of the items `0..end` of the list at `list`: one look-up for a whole list.
    fn item_paths(&mut self, list: PathId, end: usize) -> &[PathId] {
        let known = self.items.entry(list).or_default();
        while known.len() < end {
            let next = PathId(self.paths.len() + 1);
            let step = Step::Item(known.len());
            known.push(*self.paths.entry((list, step)).or_insert(next));
        }
        &known[..end]
    }

    /// The paths of the blocks of `block` items that the list at `list`, `len` items long,
    /// is converted in.
    fn block_paths(&mut self, list: PathId, len: usize, block: usize) -> &[PathId] {
        let paths = &mut self.paths;
        self.blocks.entry((list, len)).or_insert_with(|| {
            (0..len)
                .step_by(block)
                .map(|first| {
                    let next = PathId(paths.len() + 1);
                    let step = Step::Block(first, len.min(first + block));
                    *paths.entry((list, step)).or_insert(next)
                })
                .collect()
        })
    }
}

/// One snapshot of the document.
#[derive(Debug)]
pub struct Snapshot {
    /// Always a result node.
    pub root: Node,
    /// The `value` of the first `<Agent.Result>` that has one.
    pub value: Option<Value>,
    /// The `metadata` of every `<Agent.Result>`, merged key by key, the outermost winning.
    pub metadata: Option<Map<String, Value>>,
    /// The state of everything outside boundaries.
    pub region: Region,
    /// The rows of `waits` reached through a path reference (those of `groups` aside).
    pub wanted_by_path: Vec<u32>,
    /// Each wanted row with the region waiting for it: 0 is the root region, `n` the content of
    /// boundary `bn`; the waits of reused conversions aside, which are in `groups`.
    pub waits: Vec<(u32, usize)>,
    /// The waits of the reused conversions, one group each.
    pub groups: Vec<Group>,
}

/// Builds the snapshot of `chunks`. With `closed`, missing chunks count as failed (the stream ended).
pub fn build_snapshot(
    chunks: &Chunks,
    cache: &mut SnapshotCache,
    limits: &DocumentLimits,
    route: &str,
    closed: bool,
) -> Result<Snapshot, FlightError> {
    let (last_waits, last_groups) = cache.last_counts;
    let stack = std::mem::take(&mut cache.stack);
    let path_stack = std::mem::take(&mut cache.path_stack);
    let mut waits = std::mem::take(&mut cache.spare_waits);
    waits.reserve(last_waits);
    let mut groups = std::mem::take(&mut cache.spare_groups);
    groups.reserve(last_groups);
    let mut builder = SnapshotBuilder {
        chunks,
        limits,
        route,
        closed,
        cache,
        region: Region::default(),
        by_path: Vec::new(),
        waits,
        groups,
        wait_count: 0,
        region_index: 0,
        nodes: 0,
        value: None,
        metadata: None,
        results: 0,
        result_props: 0,
        stack,
        path_stack,
    };
    // A build that failed part-way left its lists and paths behind.
    builder.stack.clear();
    builder.path_stack.clear();
    let mut top = builder.stack.open();
    if builder.chunk(0).is_some() {
        builder.children_of_chunk(0, 0, &mut top)?;
    }
    // The root is most often the one result node the route renders, taken as it is rather
    // than finished into a list of its own and copied out of it.
    let root = match builder.stack.take_only_node(top) {
        Ok(root @ Node::Result { .. }) => root,
        Ok(node) => Node::Result {
            children: Children::from(vec![node]),
        },
        Err(top) => {
            let top = builder.stack.finish(top);
            match top.first() {
                Some(root @ Node::Result { .. }) if top.len() == 1 => root.clone(),
                _ => Node::Result { children: top },
            }
        }
    };
    builder.cache.stack = std::mem::take(&mut builder.stack);
    builder.cache.path_stack = std::mem::take(&mut builder.path_stack);
    builder.cache.last_counts = (builder.waits.len(), builder.groups.len());
    Ok(Snapshot {
        root,
        value: builder.value,
        metadata: builder.metadata,
        region: builder.region,
        wanted_by_path: builder.by_path,
        waits: builder.waits,
        groups: builder.groups,
    })
}

/// The walk over chunks that builds one snapshot.
pub struct SnapshotBuilder<'a> {
    chunks: &'a Chunks,
    cache: &'a mut SnapshotCache,
    limits: &'a DocumentLimits,
    route: &'a str,
    closed: bool,
    region: Region,
    /// Every missing row reached through a path reference, in order, so a conversion can tell
    /// which were its own (those of reused conversions are in `groups`).
    by_path: Vec<u32>,
    /// Waits recorded by this walk, `(row, region)`, in order.
    waits: Vec<(u32, usize)>,
    /// The waits of the reused conversions, in order.
    groups: Vec<Group>,
    /// How many waits `waits` and `groups` hold together.
    wait_count: usize,
    /// The region being built: 0 for the root, else the number of its boundary.
    region_index: usize,
    nodes: usize,
    value: Option<Value>,
    metadata: Option<Map<String, Value>>,
    /// How many `<Agent.Result>` elements enclose the element being built.
    results: usize,
    /// How many `<Agent.Result>` elements with a `value` or `metadata` were met: those set the
    /// snapshot's own value and metadata, so a region holding one is never reused.
    result_props: usize,
    /// The parts of the lists being built.
    stack: PartStack,
    /// The paths of the items or blocks of the lists being built, one list above the other.
    path_stack: Vec<PathId>,
}

impl<'a> SnapshotBuilder<'a> {
    /// The chunk `id`, or `None` after marking the region pending (or failed, once the stream closed).
    pub fn chunk(&mut self, id: u32) -> Option<&'a Chunk> {
        let chunk = self.chunks.get(id);
        if chunk.is_none() {
            if self.closed {
                self.region_error(DocumentError::new(
                    "stream-incomplete",
                    format!("the Flight stream ended before row {id:x} arrived"),
                ));
            } else {
                self.region.pending = true;
                self.waits.push((id, self.region_index));
                self.wait_count += 1;
            }
        }
        chunk
    }

    /// Marks a missing row as reached through a path reference (see `pending`). A row that
    /// failed, or that is missing once the stream closed, is no wait.
    pub fn wanted_by_path(&mut self, id: u32) {
        if !self.closed && self.chunks.get(id).is_none() {
            self.by_path.push(id);
        }
    }

    /// Records a failure of the current region (the first one wins).
    pub fn region_error(&mut self, error: DocumentError) {
        self.region.error.get_or_insert(error);
    }

    /// Counts one node or value against the limits.
    pub fn count_node(&mut self, depth: usize) -> Result<(), FlightError> {
        self.nodes += 1;
        self.check_node_count()?;
        if depth > self.limits.max_depth {
            return Err(FlightError::LimitExceeded(format!(
                "the document nests deeper than {} levels",
                self.limits.max_depth
            )));
        }
        Ok(())
    }

    fn check_node_count(&self) -> Result<(), FlightError> {
        if self.nodes > self.limits.max_nodes {
            return Err(FlightError::LimitExceeded(format!(
                "the document has more than {} nodes and values",
                self.limits.max_nodes
            )));
        }
        Ok(())
    }

    fn children_of_chunk(
        &mut self,
        id: u32,
        depth: usize,
        out: &mut StackedList,
    ) -> Result<(), FlightError> {
        match self.chunk(id) {
            None => {}
            Some(Chunk::Model(model)) => self.children(model, id, ROW_ROOT, depth + 1, out)?,
            Some(Chunk::Text(text)) => self.push_text(text, depth, out)?,
            Some(Chunk::Error(error)) => self.region_error(error.clone()),
            Some(Chunk::Bytes(_) | Chunk::Stream(_)) => {
                return Err(FlightError::Unsupported(format!(
                    "row {id:x} is binary data or a stream, which cannot be a document child"
                )));
            }
        }
        Ok(())
    }

    /// Appends the nodes that `model` (a React node: element, text, list, reference) stands for.
    fn children(
        &mut self,
        model: &'a Model,
        chunk: u32,
        path: PathId,
        depth: usize,
        out: &mut StackedList,
    ) -> Result<(), FlightError> {
        self.count_node(depth)?;
        match model {
            Model::Null | Model::Bool(_) => Ok(()),
            Model::Number(number) => self.push_text(&number.to_string(), depth, out),
            Model::String(text) => match parse_escape(text) {
                None => self.push_text(text, depth, out),
                Some(Escape::Literal(literal)) => self.push_text(literal, depth, out),
                Some(Escape::Undefined) => Ok(()),
                Some(Escape::Chunk { id, path: None } | Escape::Lazy(id)) => {
                    self.children_of_chunk(id, depth, out)
                }
                Some(Escape::Chunk {
                    id,
                    path: Some(inner),
                }) => match self.follow_path(id, inner)? {
                    Some(model) => {
                        let path = self.cache.path(ROW_ROOT, Step::Reference(inner.into()));
                        self.children(model, id, path, depth + 1, out)
                    }
                    None => Ok(()),
                },
                Some(_) => Err(FlightError::Unsupported(format!(
                    "the Flight value `{}` cannot be rendered as a document child",
                    truncate(text)
                ))),
            },
            Model::Array(items) if is_element(items) => {
                self.converted_or_built(Convert::Element(items), chunk, path, depth, out)
            }
            Model::Array(items) => {
                let what = Convert::Items {
                    start: 0,
                    items,
                    block: None,
                };
                self.converted_or_built(what, chunk, path, depth, out)
            }
            Model::Object(_) => Err(FlightError::Unsupported(
                "an object is not a valid document child; wrap data in <Agent.Json value={…}>"
                    .into(),
            )),
        }
    }

    /// Appends the nodes of a list or element: reused from an earlier snapshot when that
    /// conversion is still valid, else converted here and kept for later snapshots.
    ///
    /// A conversion reads immutable chunks, and probes rows that had not arrived; it stays valid
    /// while every row it found missing is still missing (a settled one found none). It is kept
    /// unless it set a region error or a result value or metadata (effects beyond its own nodes
    /// and waits). Reusing it replays what the walk would have done: its node count (so the
    /// limits fail at the same size), its waits (in the enclosing region or in the boundaries it
    /// holds) and the rows it reached by path, reported as one group. Once
    /// the stream has closed, missing rows are failures, so only settled conversions are reused.
    fn converted_or_built(
        &mut self,
        what: Convert<'a>,
        chunk: u32,
        path: PathId,
        depth: usize,
        out: &mut StackedList,
    ) -> Result<(), FlightError> {
        let place = self.place(
            chunk,
            match what {
                Convert::Items {
                    block: Some(block), ..
                } => block,
                _ => path,
            },
            depth,
        );
        match self.reused(&place, out) {
            Some(done) => done,
            None => self.built(what, place, chunk, path, depth, out),
        }
    }

    /// The place of a conversion at `path` of `chunk`, at `depth`, where the walk is now.
    #[inline(always)]
    fn place(&self, chunk: u32, path: PathId, depth: usize) -> Place {
        Place {
            chunk,
            path,
            depth,
            in_result: self.results > 0,
        }
    }

    /// Appends the conversion kept at `place` when it is still valid, replaying what building
    /// it did; `None` when there is none to reuse.
    #[inline(always)]
    fn reused(&mut self, place: &Place, out: &mut StackedList) -> Option<Result<(), FlightError>> {
        if !self.cache.reuse {
            return None;
        }
        let converted = self.cache.converted.get_mut(place)?;
        if converted.waits.is_some() && (self.closed || !still_missing(converted, self.chunks)) {
            return None;
        }
        if let Some(waits) = &converted.waits {
            self.region.pending |= waits.encloses;
            self.wait_count += waits.entries.len();
            self.groups.push(Group {
                waits: waits.clone(),
                enclosing: self.region_index,
            });
        }
        self.stack.append(out, &converted.children);
        self.nodes += converted.counted;
        Some(self.check_node_count())
    }

    /// Converts `what`, which sits at `place`, and keeps the conversion when it can be reused.
    fn built(
        &mut self,
        what: Convert<'a>,
        place: Place,
        chunk: u32,
        path: PathId,
        depth: usize,
        out: &mut StackedList,
    ) -> Result<(), FlightError> {
        let before = (
            self.waits.len(),
            self.groups.len(),
            self.wait_count,
            self.nodes,
            self.result_props,
            self.by_path.len(),
        );
        let mut built = self.stack.open();
        match what {
            Convert::Element(items) => self.element(items, chunk, path, depth, &mut built)?,
            Convert::Items {
                start,
                items,
                block: parent,
            } if items.len() > BLOCK_ITEMS => {
                // A long list is converted in blocks, and a long block in blocks again, each
                // kept on its own, so a snapshot after one item changed walks the blocks on
                // that item's way down and reuses the others.
                let block_len = block_items(items.len());
                let parent = parent.unwrap_or(path);
                let base = self.path_stack.len();
                let blocks = self.cache.block_paths(parent, items.len(), block_len);
                self.path_stack.extend_from_slice(blocks);
                for (index, first) in (0..items.len()).step_by(block_len).enumerate() {
                    // Most blocks are reused: they are looked up here, without a call each.
                    let block = self.path_stack[base + index];
                    let place = self.place(chunk, block, depth);
                    if let Some(done) = self.reused(&place, &mut built) {
                        done?;
                        continue;
                    }
                    let what = Convert::Items {
                        start: start + first,
                        items: &items[first..items.len().min(first + block_len)],
                        block: Some(block),
                    };
                    self.built(what, place, chunk, path, depth, &mut built)?;
                }
                self.path_stack.truncate(base);
            }
            Convert::Items { start, items, .. } => {
                let base = self.path_stack.len();
                let paths = self.cache.item_paths(path, start + items.len());
                self.path_stack.extend_from_slice(&paths[start..]);
                for (index, item) in items.iter().enumerate() {
                    let path = self.path_stack[base + index];
                    // Most elements of a list are reused: they are counted and looked up here,
                    // as `children` would, without two calls each.
                    if let Model::Array(tuple) = item
                        && is_element(tuple)
                    {
                        self.count_node(depth + 1)?;
                        let place = self.place(chunk, path, depth + 1);
                        match self.reused(&place, &mut built) {
                            Some(done) => done?,
                            None => {
                                let what = Convert::Element(tuple);
                                self.built(what, place, chunk, path, depth + 1, &mut built)?;
                            }
                        }
                        continue;
                    }
                    self.children(item, chunk, path, depth + 1, &mut built)?;
                }
                self.path_stack.truncate(base);
            }
        }
        let (waits, groups, wait_count, nodes, result_props, by_path) = before;
        // A conversion that waits for many rows is not kept: any of them arriving invalidates
        // it, and keeping it copies all its waits into its group each time, for a reuse that
        // rarely comes, while rebuilding it reuses its blocks and elements, which are kept.
        let keep = self.cache.reuse
            && !self.closed
            && self.region.error.is_none()
            && self.result_props == result_props
            && self.wait_count - wait_count <= MAX_KEPT_WAITS;
        if !keep {
            // Nothing will share it, so it needs no list of its own: its parts join the list
            // it is part of (no allocation, and one level less for every walk that reads it).
            self.stack.absorb(out, built);
            return Ok(());
        }
        let children = self.stack.finish(built);
        self.stack.append(out, &children);
        // Its waits, its own and those of the conversions it reused, become one group for
        // the snapshots that reuse it. This one reports them as they came (the reused
        // conversions' groups and the waits found now): a snapshot after one row arrived
        // rebuilds the conversions around that row, and reporting their waits through the
        // groups they reused, which the table holds already, keeps its update to what
        // changed.
        let enclosing = self.region_index;
        let relative = |index: usize| {
            if index == enclosing {
                WaitingRegion::Enclosing
            } else {
                WaitingRegion::Held(index)
            }
        };
        let mut entries = Vec::with_capacity(self.wait_count - wait_count);
        let mut by_path_rows = self.by_path[by_path..].to_vec();
        entries.extend(
            self.waits[waits..]
                .iter()
                .map(|&(id, index)| (id, relative(index))),
        );
        for group in &self.groups[groups..] {
            entries.extend(group.waits().map(|(id, index)| (id, relative(index))));
            by_path_rows.extend_from_slice(group.by_path());
        }
        let waits = (!entries.is_empty()).then(|| {
            let span = entries.iter().fold((u32::MAX, 0), |(low, high), &(id, _)| {
                (low.min(id), high.max(id))
            });
            Arc::new(GroupWaits {
                span,
                encloses: entries
                    .iter()
                    .any(|(_, region)| matches!(region, WaitingRegion::Enclosing)),
                entries: entries.into(),
                by_path: by_path_rows.into(),
            })
        });
        let converted = Converted {
            children,
            counted: self.nodes - nodes,
            checked_at: self.chunks.arrivals().len(),
            waits,
        };
        self.cache.converted.insert(place, converted);
        Ok(())
    }

    fn element(
        &mut self,
        items: &'a [Model],
        chunk: u32,
        path: PathId,
        depth: usize,
        out: &mut StackedList,
    ) -> Result<(), FlightError> {
        let [_, element_type, _key, props] = items else {
            return Err(if items.len() == 7 {
                FlightError::DevelopmentStream
            } else {
                FlightError::Malformed(format!(
                    "an element tuple has {} slots instead of 4",
                    items.len()
                ))
            });
        };
        let props = match props {
            Model::Object(props) => props,
            _ => {
                return Err(FlightError::Malformed(
                    "element props are not an object".into(),
                ));
            }
        };
        let Model::String(tag) = element_type else {
            return Err(FlightError::Malformed(
                "an element type is not a string".into(),
            ));
        };
        match parse_escape(tag) {
            None => self.agent_element(tag, props, chunk, path, depth, out),
            Some(Escape::Chunk { id, path: None }) => {
                let Some(symbol) = self.chunk(id) else {
                    return Ok(());
                };
                match symbol {
                    Chunk::Model(Model::String(text)) => match parse_escape(text) {
                        Some(Escape::Symbol("react.suspense")) => {
                            self.suspense(props, chunk, path, depth, out)
                        }
                        Some(Escape::Symbol(
                            "react.fragment" | "react.activity" | "react.profiler"
                            | "react.strict_mode",
                        )) => self.prop_children(props, chunk, path, depth, out),
                        _ => Err(FlightError::Unsupported(format!(
                            "the element type `{}` is not supported in Agent Documents",
                            truncate(text)
                        ))),
                    },
                    _ => Err(FlightError::Malformed(format!(
                        "element type row {id:x} is not a symbol"
                    ))),
                }
            }
            Some(Escape::Lazy(_)) => Err(FlightError::ClientComponent {
                route: self.route.to_owned(),
            }),
            Some(_) => Err(FlightError::UnknownElement {
                element: truncate(tag),
                route: self.route.to_owned(),
            }),
        }
    }

    fn prop_children(
        &mut self,
        props: &'a Fields,
        chunk: u32,
        path: PathId,
        depth: usize,
        out: &mut StackedList,
    ) -> Result<(), FlightError> {
        match props.get("children") {
            Some(children) => {
                let path = self.cache.children_path(path);
                self.children(children, chunk, path, depth + 1, out)
            }
            None => Ok(()),
        }
    }

    fn suspense(
        &mut self,
        props: &'a Fields,
        chunk: u32,
        path: PathId,
        depth: usize,
        out: &mut StackedList,
    ) -> Result<(), FlightError> {
        let (number, id) = self.cache.id_for(chunk, path);
        let outer = std::mem::take(&mut self.region);
        let outer_index = std::mem::replace(&mut self.region_index, number);
        let mut content = self.stack.open();
        let built = self.prop_children(props, chunk, path, depth, &mut content);
        let inner = std::mem::replace(&mut self.region, outer);
        self.region_index = outer_index;
        built?;
        let (state, children) = if let Some(error) = inner.error {
            self.stack.discard(content);
            (
                BoundaryState::Error,
                Children::from(vec![Node::error(&error)]),
            )
        } else if inner.pending {
            // The fallback is built above the content, which is then dropped.
            let mut fallback = self.stack.open();
            if let Some(model) = props.get("fallback") {
                let path = self.cache.path(path, Step::Fallback);
                self.children(model, chunk, path, depth + 1, &mut fallback)?;
            }
            let fallback = self.stack.finish(fallback);
            self.stack.discard(content);
            (BoundaryState::Pending, fallback)
        } else {
            (BoundaryState::Resolved, self.stack.finish(content))
        };
        self.push(
            Node::Boundary {
                id,
                state,
                children,
            },
            depth,
            out,
        )
    }

    fn agent_element(
        &mut self,
        tag: &str,
        props: &'a Fields,
        chunk: u32,
        path: PathId,
        depth: usize,
        out: &mut StackedList,
    ) -> Result<(), FlightError> {
        let node = match tag {
            "agent-result" => {
                if props.contains_key("value") || props.contains_key("metadata") {
                    self.result_props += 1;
                }
                if self.value.is_none()
                    && let Some(value) = props.get("value")
                {
                    self.value = self.value(value, depth + 1)?;
                }
                self.merge_metadata(props, depth)?;
                let mut children = self.stack.open();
                self.results += 1;
                let built = self.prop_children(props, chunk, path, depth, &mut children);
                self.results -= 1;
                built?;
                let children = self.stack.finish(children);
                // Seed 002: a result inside a result (a layout's container around the route's
                // own) is merged into it, so the document has one result, the root.
                if self.results > 0 {
                    self.stack.append(out, &children);
                    return Ok(());
                }
                Node::Result { children }
            }
            "agent-markdown" => Node::Markdown {
                text: self.text_prop(tag, props, depth)?,
            },
            "agent-text" => Node::Text {
                text: self.text_prop(tag, props, depth)?,
            },
            "agent-context" => Node::Context {
                text: self.text_prop(tag, props, depth)?,
            },
            "agent-notice" => Node::Notice {
                text: self.text_prop(tag, props, depth)?,
            },
            "agent-json" => Node::Json {
                value: match props.get("value") {
                    Some(value) => self.value(value, depth + 1)?.unwrap_or(Value::Null),
                    None => Value::Null,
                },
            },
            "agent-progress" => Node::Progress {
                completed: self.number_prop(tag, props, "completed", depth)?,
                total: self.number_prop(tag, props, "total", depth)?,
                message: self.string_prop(tag, props, "message", depth)?,
            },
            "agent-deny" => Node::Deny {
                reason: self
                    .string_prop(tag, props, "reason", depth)?
                    .ok_or_else(|| missing(tag, "reason"))?,
            },
            "agent-error" => Node::Error {
                code: self
                    .string_prop(tag, props, "code", depth)?
                    .ok_or_else(|| missing(tag, "code"))?,
                // `<Agent.Error code="…">{text}</Agent.Error>`: the children are the message.
                message: match self.string_prop(tag, props, "message", depth)? {
                    Some(message) => message,
                    None if props.contains_key("children") => self.text_prop(tag, props, depth)?,
                    None => {
                        return Err(FlightError::Unsupported(format!(
                            "`<{tag}>` needs a `message` prop or text children"
                        )));
                    }
                },
            },
            "agent-image" | "agent-audio" => {
                let data = self.bytes_prop(tag, props, depth)?;
                let mime_type = self
                    .string_prop(tag, props, "mimeType", depth)?
                    .ok_or_else(|| missing(tag, "mimeType"))?;
                if tag == "agent-image" {
                    Node::Image { data, mime_type }
                } else {
                    Node::Audio { data, mime_type }
                }
            }
            "agent-resource" => Node::Resource {
                uri: self
                    .string_prop(tag, props, "uri", depth)?
                    .ok_or_else(|| missing(tag, "uri"))?,
                name: self.string_prop(tag, props, "name", depth)?,
                mime_type: self.string_prop(tag, props, "mimeType", depth)?,
                text: self.string_prop(tag, props, "text", depth)?,
            },
            other => {
                return Err(FlightError::UnknownElement {
                    element: truncate(other),
                    route: self.route.to_owned(),
                });
            }
        };
        self.push(node, depth, out)
    }

    /// Merges a result's `metadata` object into the document's: a key already there (from an
    /// enclosing result, met first) is kept, so the container wins.
    fn merge_metadata(&mut self, props: &'a Fields, depth: usize) -> Result<(), FlightError> {
        let Some(model) = props.get("metadata") else {
            return Ok(());
        };
        match self.value(model, depth + 1)? {
            None | Some(Value::Null) => Ok(()),
            Some(Value::Object(entries)) => {
                let metadata = self.metadata.get_or_insert_with(Map::new);
                for (key, value) in entries {
                    metadata.entry(key).or_insert(value);
                }
                Ok(())
            }
            Some(_) => Err(FlightError::Unsupported(
                "`<agent-result>` needs an object `metadata`".into(),
            )),
        }
    }

    /// The text of Markdown, Text, Context and Notice: strings and numbers, concatenated.
    fn text_prop(
        &mut self,
        tag: &str,
        props: &'a Fields,
        depth: usize,
    ) -> Result<String, FlightError> {
        let mut text = String::new();
        if let Some(children) = props.get("children") {
            self.collect_text(tag, children, depth + 1, &mut text)?;
        }
        Ok(text)
    }

    fn collect_text(
        &mut self,
        tag: &str,
        model: &'a Model,
        depth: usize,
        text: &mut String,
    ) -> Result<(), FlightError> {
        self.count_node(depth)?;
        match model {
            Model::Null | Model::Bool(_) => {}
            Model::Number(number) => text.push_str(&number.to_string()),
            Model::Array(items) if !is_element(items) => {
                for item in items {
                    self.collect_text(tag, item, depth + 1, text)?;
                }
            }
            Model::String(_) => match self.value(model, depth)? {
                Some(Value::String(part)) => text.push_str(&part),
                Some(Value::Null) | None => {}
                Some(_) => return Err(not_text(tag)),
            },
            _ => return Err(not_text(tag)),
        }
        Ok(())
    }

    fn string_prop(
        &mut self,
        tag: &str,
        props: &'a Fields,
        key: &str,
        depth: usize,
    ) -> Result<Option<String>, FlightError> {
        match props.get(key) {
            None => Ok(None),
            Some(model) => match self.value(model, depth + 1)? {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(text)) => Ok(Some(text)),
                Some(_) => Err(FlightError::Unsupported(format!(
                    "`<{tag}>` needs a string `{key}`"
                ))),
            },
        }
    }

    fn number_prop(
        &mut self,
        tag: &str,
        props: &'a Fields,
        key: &str,
        depth: usize,
    ) -> Result<Option<Number>, FlightError> {
        match props.get(key) {
            None => Ok(None),
            Some(model) => match self.value(model, depth + 1)? {
                None | Some(Value::Null) => Ok(None),
                Some(Value::Number(number)) => Ok(Some(number)),
                Some(_) => Err(FlightError::Unsupported(format!(
                    "`<{tag}>` needs a numeric `{key}`"
                ))),
            },
        }
    }

    /// `data` of Image and Audio: a base64 string as given, or a typed array encoded to base64.
    fn bytes_prop(
        &mut self,
        tag: &str,
        props: &'a Fields,
        depth: usize,
    ) -> Result<String, FlightError> {
        if let Some(Model::String(text)) = props.get("data")
            && let Some(Escape::Chunk { id, path: None }) = parse_escape(text)
            && let Some(Chunk::Bytes(bytes)) = self.chunks.get(id)
        {
            return Ok(bytes.clone());
        }
        self.string_prop(tag, props, "data", depth)?
            .ok_or_else(|| missing(tag, "data"))
    }

    fn push_text(
        &mut self,
        text: &str,
        depth: usize,
        out: &mut StackedList,
    ) -> Result<(), FlightError> {
        if text.is_empty() {
            return Ok(());
        }
        self.push(
            Node::Text {
                text: text.to_owned(),
            },
            depth,
            out,
        )
    }

    fn push(&mut self, node: Node, depth: usize, out: &mut StackedList) -> Result<(), FlightError> {
        self.count_node(depth)?;
        self.stack.push(out, node);
        Ok(())
    }
}

/// Whether every row `converted` found missing is still missing. Rows only arrive, so only the
/// arrivals since it was last found valid are read, each searched for among its missing rows
/// (one scan of a short vector; when several rows arrived, its missing rows are looked up in
/// the chunks instead): a snapshot after one row arrived checks a kept block in one scan, not
/// one look-up per row.
fn still_missing(converted: &mut Converted, chunks: &Chunks) -> bool {
    let arrivals = chunks.arrivals();
    let new = &arrivals[converted.checked_at.min(arrivals.len())..];
    let (entries, (low, high)): (&[(u32, WaitingRegion)], _) = converted
        .waits
        .as_ref()
        .map_or((&[], (1, 0)), |waits| (&waits.entries, waits.span));
    let missing = || entries.iter().map(|&(id, _)| id);
    let valid = if new.len() < SCANNED_ARRIVALS {
        new.iter()
            .all(|&arrived| !(low..=high).contains(&arrived) || missing().all(|id| id != arrived))
    } else {
        missing().all(|id| chunks.get(id).is_none())
    };
    debug_assert_eq!(
        valid,
        missing().all(|id| chunks.get(id).is_none()),
        "the arrivals since a conversion was checked tell its validity as its rows do"
    );
    if valid {
        converted.checked_at = arrivals.len();
    }
    valid
}

fn missing(tag: &str, key: &str) -> FlightError {
    FlightError::Unsupported(format!("`<{tag}>` is missing its `{key}` prop"))
}

fn not_text(tag: &str) -> FlightError {
    FlightError::Unsupported(format!(
        "the children of `<{tag}>` must be text (strings and numbers)"
    ))
}

/// The final form of a snapshot's tree: resolved boundaries flattened into their parent, failed
/// ones replaced by their error node. A still-pending boundary cannot reach here (see `closed`).
pub fn flatten_boundaries(node: Node) -> Node {
    match node {
        Node::Result { children } => {
            let mut flat = ChildrenBuilder::default();
            children.flatten_into(&mut flat);
            Node::Result {
                children: flat.finish(),
            }
        }
        other => other,
    }
}

/// The boundaries visible in `node`, in document order, with their state and children.
/// Borrowed: a snapshot after the first holds mostly boundaries that did not change. A list of
/// children is only read when `enter` accepts it.
pub fn visible_boundaries<'n>(
    node: &'n Node,
    enter: impl FnMut(&'n Children) -> bool,
    out: &mut Vec<(&'n str, BoundaryState, &'n Children)>,
) {
    VisibleBoundaries { enter, out }.visit(node);
}

struct VisibleBoundaries<'n, 'o, F> {
    enter: F,
    out: &'o mut Vec<(&'n str, BoundaryState, &'n Children)>,
}

impl<'n, F: FnMut(&'n Children) -> bool> NearBoundaries<'n> for VisibleBoundaries<'n, '_, F> {
    fn enter(&mut self, children: &'n Children) -> bool {
        (self.enter)(children)
    }

    fn visit(&mut self, node: &'n Node) {
        let children = match node {
            Node::Result { children } => children,
            Node::Boundary {
                id,
                state,
                children,
            } => {
                self.out.push((id, *state, children));
                children
            }
            _ => return,
        };
        if children.holds_boundary() && self.enter(children) {
            children.for_each_near_boundaries(self);
        }
    }
}

/// The error of a failed boundary: its error node.
pub fn boundary_error(children: &Children) -> Option<DocumentError> {
    children.iter().find_map(|child| match child {
        Node::Error { code, message } => Some(DocumentError::new(code.clone(), message.clone())),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lists split in at most 8 blocks a level, leaves of 8; a level of blocks too long to be
    /// kept gives way to blocks of the kept size when that makes at most 16 of them.
    #[test]
    fn long_lists_split_in_kept_blocks_where_they_can() {
        let layout = |len: usize| (block_items(len), len.div_ceil(block_items(len)));
        assert_eq!(layout(9), (8, 2));
        assert_eq!(layout(64), (8, 8));
        assert_eq!(
            layout(100),
            (64, 2),
            "blocks of 64 are kept: no reason to split finer"
        );
        assert_eq!(layout(512), (64, 8));
        assert_eq!(layout(513), (64, 9), "blocks of 512 would not be kept");
        assert_eq!(layout(1000), (64, 16));
        assert_eq!(layout(1025), (512, 3), "more than 16 blocks of 64");
        assert_eq!(layout(4096), (512, 8));
    }
}
