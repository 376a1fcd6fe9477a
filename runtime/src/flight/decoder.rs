//! The incremental decoder: Flight bytes in, render events out.
//!
//! Entry: [`FlightDecoder::push`]. After each complete row that a snapshot waited for, the document
//! is rebuilt and compared with the previous snapshot: the first snapshot whose root region is
//! complete is the `shell`; a boundary that became resolved is a `replace`; one that failed is an
//! `error`. Invariant: events depend only on the sequence of rows, never on how the bytes were
//! split, and nothing follows `complete`.

use std::collections::HashMap;

use serde_json::{Number, Value};

use super::chunks::Chunks;
use super::error::FlightError;
use super::pending::Waits;
use super::rows::{Row, RowReader};
use super::snapshot::{
    Snapshot, SnapshotCache, boundary_error, build_snapshot, flatten_boundaries, visible_boundaries,
};
use crate::document::{
    BoundaryState, Children, Document, DocumentError, DocumentLimits, LogLevel, Node, RenderEvent,
    RenderEventKind,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    AwaitingShell,
    Streaming,
    Complete,
}

/// Decodes one render's Flight stream into render events.
#[derive(Debug)]
pub struct FlightDecoder {
    rows: RowReader,
    chunks: Chunks,
    /// Boundary ids and converted regions, carried from one snapshot to the next.
    cache: SnapshotCache,
    limits: DocumentLimits,
    route: String,
    phase: Phase,
    /// Rows the pending regions wait for; only their arrival can change the document.
    waits: Waits,
    /// Boundary states of the last emitted snapshot.
    boundaries: BoundaryStates,
    /// The lists of children the last comparisons of boundary states read.
    compared: ComparedLists,
    /// How many boundaries the last comparison read: the next starts with room for as many.
    last_visible: usize,
    /// Whether a comparison skips the lists the last one read (off only to test that skipping
    /// changes nothing).
    skip_compared: bool,
    /// Whether every row that resolved a chunk rebuilds the document, whatever the wait table
    /// says (only to test that the rows it skips change nothing).
    #[cfg(test)]
    rebuild_always: bool,
    bytes: usize,
    sequence: u64,
}

impl FlightDecoder {
    /// A decoder for one render of `route` (used in error messages; may be empty).
    pub fn new(route: impl Into<String>, limits: DocumentLimits) -> Self {
        let route = route.into();
        Self {
            rows: RowReader::new(limits.max_bytes),
            chunks: Chunks::default(),
            cache: SnapshotCache::default(),
            limits,
            route: if route.is_empty() {
                String::new()
            } else {
                format!("route `{route}` ")
            },
            phase: Phase::AwaitingShell,
            waits: Waits::default(),
            boundaries: BoundaryStates::default(),
            compared: ComparedLists::default(),
            last_visible: 0,
            skip_compared: true,
            #[cfg(test)]
            rebuild_always: false,
            bytes: 0,
            sequence: 0,
        }
    }

    /// Whether `complete` has been emitted.
    pub fn is_complete(&self) -> bool {
        self.phase == Phase::Complete
    }

    /// Feeds Flight bytes; returns the events they cause.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<RenderEvent> {
        let mut events = Vec::new();
        if self.is_complete() {
            return events;
        }
        // Only the bytes within the limit are read, so the failure happens at the same stream
        // position (after the same rows) however the input was split.
        let allowed = self.limits.max_bytes.saturating_sub(self.bytes);
        let (within, beyond) = bytes.split_at(bytes.len().min(allowed));
        self.bytes += within.len();
        let mut rows = Vec::new();
        let framed = self.rows.push(within, &mut rows);
        for row in rows {
            self.row(row, &mut events);
            if self.is_complete() {
                return events;
            }
        }
        if let Err(error) = framed {
            self.fail_into(error.to_document_error(), &mut events);
        } else if !beyond.is_empty() {
            let error = FlightError::LimitExceeded(format!(
                "the Flight stream is longer than the {}-byte limit",
                self.limits.max_bytes
            ));
            self.fail_into(error.to_document_error(), &mut events);
        }
        events
    }

    /// A progress report from the worker.
    pub fn progress(
        &mut self,
        completed: Number,
        total: Option<Number>,
        message: Option<String>,
    ) -> Vec<RenderEvent> {
        let mut events = Vec::new();
        if !self.is_complete() {
            self.emit(
                RenderEventKind::Progress {
                    completed,
                    total,
                    message,
                },
                &mut events,
            );
        }
        events
    }

    /// A log record from the worker: an event in order with the rest, bounded by the same event
    /// limit, so a route that logs without end fails like one that streams without end.
    pub fn log(
        &mut self,
        level: LogLevel,
        message: String,
        data: Option<Value>,
    ) -> Vec<RenderEvent> {
        let mut events = Vec::new();
        if !self.is_complete() {
            self.emit(
                RenderEventKind::Log {
                    level,
                    message,
                    data,
                },
                &mut events,
            );
        }
        events
    }

    /// Ends the render with a failure that did not come from the stream (a worker error, a timeout).
    pub fn fail(&mut self, error: DocumentError) -> Vec<RenderEvent> {
        let mut events = Vec::new();
        if !self.is_complete() {
            self.fail_into(error, &mut events);
        }
        events
    }

    /// The stream ended: boundaries still waiting fail, and the final document is emitted.
    pub fn finish(&mut self) -> Vec<RenderEvent> {
        let mut events = Vec::new();
        if self.is_complete() {
            return events;
        }
        if let Err(error) = self.rows.finish() {
            self.fail_into(error.to_document_error(), &mut events);
            return events;
        }
        match build_snapshot(
            &self.chunks,
            &mut self.cache,
            &self.limits,
            &self.route,
            true,
        ) {
            Err(error) => self.fail_into(error.to_document_error(), &mut events),
            Ok(_) if self.chunks.get(0).is_none() => {
                let error =
                    FlightError::Incomplete("the Flight stream ended before its root row".into());
                self.fail_into(error.to_document_error(), &mut events);
            }
            Ok(snapshot) => {
                if self.phase == Phase::Streaming || snapshot.region.error.is_some() {
                    self.advance(&snapshot, &mut events);
                } else {
                    self.emit_shell(&snapshot, &mut events);
                }
                if !self.is_complete() {
                    let document = Document::new(flatten_boundaries(snapshot.root), snapshot.value)
                        .with_metadata(snapshot.metadata);
                    self.emit(RenderEventKind::Complete { document }, &mut events);
                }
            }
        }
        events
    }

    fn row(&mut self, row: Row, events: &mut Vec<RenderEvent>) {
        let id = row.id;
        match self.chunks.apply(row) {
            Err(FlightError::ClientComponent { .. }) => {
                let error = FlightError::ClientComponent {
                    route: self.route.clone(),
                };
                return self.fail_into(error.to_document_error(), events);
            }
            Err(error) => return self.fail_into(error.to_document_error(), events),
            Ok(false) => return,
            Ok(true) => {}
        }
        let rebuild = match self.chunks.get(id) {
            Some(chunk) => self.waits.arrived(id, chunk, &self.chunks),
            None => false,
        };
        #[cfg(test)]
        let rebuild = rebuild || self.rebuild_always;
        if !rebuild {
            return;
        }
        match build_snapshot(
            &self.chunks,
            &mut self.cache,
            &self.limits,
            &self.route,
            false,
        ) {
            Err(error) => self.fail_into(error.to_document_error(), events),
            Ok(mut snapshot) => {
                let (waits, groups) = self.waits.update(
                    std::mem::take(&mut snapshot.waits),
                    std::mem::take(&mut snapshot.wanted_by_path),
                    std::mem::take(&mut snapshot.groups),
                    &self.chunks,
                );
                self.cache.recycle(waits, groups);
                self.advance(&snapshot, events);
            }
        }
    }

    /// Emits what changed between the last snapshot and `snapshot`.
    fn advance(&mut self, snapshot: &Snapshot, events: &mut Vec<RenderEvent>) {
        if let Some(error) = &snapshot.region.error {
            return self.fail_into(error.clone(), events);
        }
        if snapshot.region.pending {
            return;
        }
        if self.phase == Phase::AwaitingShell {
            return self.emit_shell(snapshot, events);
        }
        let mut visible = Vec::with_capacity(self.last_visible);
        let compared = &mut self.compared;
        let skip = self.skip_compared;
        compared.begin(&snapshot.root);
        visible_boundaries(
            &snapshot.root,
            |children| compared.enter(children, skip),
            &mut visible,
        );
        self.last_visible = visible.len();
        for (id, state, children) in visible {
            let before = self.boundaries.get(id);
            if before == Some(state) {
                continue;
            }
            self.boundaries.insert(id, state);
            let error = (state == BoundaryState::Error)
                .then(|| boundary_error(children))
                .flatten();
            match (state, error) {
                (BoundaryState::Resolved, _) if before == Some(BoundaryState::Pending) => {
                    let document = snapshot_document(snapshot);
                    self.emit(
                        RenderEventKind::Replace {
                            boundary_id: id.to_owned(),
                            document,
                        },
                        events,
                    );
                }
                (BoundaryState::Error, Some(error)) => {
                    self.emit(
                        RenderEventKind::Error {
                            boundary_id: Some(id.to_owned()),
                            error,
                        },
                        events,
                    );
                }
                _ => {}
            }
            if self.is_complete() {
                return;
            }
        }
    }

    fn emit_shell(&mut self, snapshot: &Snapshot, events: &mut Vec<RenderEvent>) {
        let mut visible = Vec::with_capacity(self.last_visible);
        let compared = &mut self.compared;
        compared.begin(&snapshot.root);
        visible_boundaries(
            &snapshot.root,
            |children| compared.enter(children, false),
            &mut visible,
        );
        self.last_visible = visible.len();
        self.phase = Phase::Streaming;
        self.emit(
            RenderEventKind::Shell {
                document: snapshot_document(snapshot),
            },
            events,
        );
        for (id, state, children) in visible {
            self.boundaries.insert(id, state);
            if state == BoundaryState::Error
                && let Some(error) = boundary_error(children)
            {
                self.emit(
                    RenderEventKind::Error {
                        boundary_id: Some(id.to_owned()),
                        error,
                    },
                    events,
                );
            }
        }
    }

    fn fail_into(&mut self, error: DocumentError, events: &mut Vec<RenderEvent>) {
        let document = Document::failed(&error);
        self.push_event(
            RenderEventKind::Error {
                boundary_id: None,
                error,
            },
            events,
        );
        self.push_event(RenderEventKind::Complete { document }, events);
        self.phase = Phase::Complete;
    }

    /// Emits a non-final event, failing the render instead when the event budget would run out.
    fn emit(&mut self, kind: RenderEventKind, events: &mut Vec<RenderEvent>) {
        let is_complete = matches!(kind, RenderEventKind::Complete { .. });
        // Two events stay in reserve so an overflow can still be reported as error + complete.
        if !is_complete && self.sequence + 2 >= self.limits.max_events as u64 {
            let error = FlightError::LimitExceeded(format!(
                "the render emitted more than {} events",
                self.limits.max_events
            ));
            return self.fail_into(error.to_document_error(), events);
        }
        self.push_event(kind, events);
        if is_complete {
            self.phase = Phase::Complete;
        }
    }

    fn push_event(&mut self, kind: RenderEventKind, events: &mut Vec<RenderEvent>) {
        events.push(RenderEvent {
            sequence: self.sequence,
            kind,
        });
        self.sequence += 1;
    }
}

/// The state of each boundary as last emitted, by id. Ids are `b<n>` numbered from 1 in order
/// of discovery (`SnapshotCache`), so they index a vector: a snapshot compares every visible
/// boundary, and at a thousand boundaries a hash per lookup is most of an event's cost.
#[derive(Debug, Default)]
struct BoundaryStates {
    numbered: Vec<Option<BoundaryState>>,
    /// Any id not of that form (none today; kept so the table never depends on the naming).
    other: HashMap<String, BoundaryState>,
}

impl BoundaryStates {
    fn index(id: &str) -> Option<usize> {
        let digits = id.strip_prefix('b')?;
        if digits.starts_with('0') || digits.len() > 9 {
            return None;
        }
        digits.parse().ok()
    }

    fn get(&self, id: &str) -> Option<BoundaryState> {
        match Self::index(id) {
            Some(index) => self.numbered.get(index).copied().flatten(),
            None => self.other.get(id).copied(),
        }
    }

    fn insert(&mut self, id: &str, state: BoundaryState) {
        match Self::index(id) {
            Some(index) => {
                if self.numbered.len() <= index {
                    self.numbered.resize(index + 1, None);
                }
                self.numbered[index] = Some(state);
            }
            None => {
                self.other.insert(id.to_owned(), state);
            }
        }
    }
}

/// The lists of children whose boundaries the last comparisons read. A snapshot shares every
/// unchanged list with the one before, and a list is immutable: the boundaries of a list read
/// last time still have the states recorded then (all places of one boundary share its state
/// within a snapshot, since they are one Suspense element of one row), so the next comparison
/// skips it. That keeps an event's comparison proportional to what changed, not to every
/// boundary of the document.
///
/// A list is known by its identity, which is only its own while it is alive: the roots of the
/// last two comparisons are kept, and with them every list those comparisons met (each was
/// reached from its root), so no list of either can be freed and its identity taken by another.
/// Lists are recorded in a table of slots picked by identity, one list a slot, with room for
/// several times as many lists as a comparison meets: a list whose slot another list took since
/// is read again, which costs a read and never changes what the comparison finds, and the
/// look-up is a multiplication, not a hash table's probe.
#[derive(Debug, Default)]
struct ComparedLists {
    /// Each slot: the identity of the list that last took it, the comparison that last met
    /// that list, and whether the comparison before that one met it too.
    slots: Vec<(usize, u64, bool)>,
    /// The roots of the current comparison and of the previous one.
    root: Option<Node>,
    root_before: Option<Node>,
    /// How many lists the current comparison met.
    met: usize,
    /// The current comparison (from 1).
    comparison: u64,
}

/// A comparison's table has at least this many slots for each list the last one met.
const SLOTS_PER_LIST: usize = 4;

impl ComparedLists {
    /// Starts a comparison of the boundaries below `root`.
    fn begin(&mut self, root: &Node) {
        self.comparison += 1;
        self.root_before = self.root.replace(root.clone());
        let wanted = (SLOTS_PER_LIST * std::mem::take(&mut self.met))
            .max(64)
            .next_power_of_two();
        if self.slots.len() < wanted {
            // A new table knows no list: this comparison reads every list it meets.
            self.slots = vec![(0, 0, false); wanted];
        }
    }

    /// Records `children` as met; returns whether it must be read: always unless `skip`, else
    /// when the previous comparison did not meet it.
    fn enter(&mut self, children: &Children, skip: bool) -> bool {
        let now = self.comparison;
        let identity = children.identity();
        // Fibonacci hashing: the high bits of the product depend on every bit of the identity.
        let bits = self.slots.len().trailing_zeros();
        let slot = (identity as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (u64::BITS - bits);
        let (known, met, before) = &mut self.slots[slot as usize];
        if *known != identity || *met != now {
            *before = *known == identity && *met + 1 == now;
            *known = identity;
            *met = now;
            self.met += 1;
        }
        !(skip && *before)
    }
}

fn snapshot_document(snapshot: &Snapshot) -> Document {
    Document::new(snapshot.root.clone(), snapshot.value.clone())
        .with_metadata(snapshot.metadata.clone())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn decode(bytes: &[u8], piece: usize, limits: DocumentLimits, reuse: bool) -> Vec<RenderEvent> {
        decode_skipping(bytes, piece, limits, reuse, true)
    }

    /// `reuse`: settled conversions are reused; `skip_compared`: the boundary comparison skips
    /// the lists the previous one read.
    fn decode_skipping(
        bytes: &[u8],
        piece: usize,
        limits: DocumentLimits,
        reuse: bool,
        skip_compared: bool,
    ) -> Vec<RenderEvent> {
        let mut decoder = FlightDecoder::new("tool:fixtures/case", limits);
        if !reuse {
            decoder.cache = SnapshotCache::without_reuse();
        }
        decoder.skip_compared = skip_compared;
        let mut events = Vec::new();
        for part in bytes.chunks(piece.max(1)) {
            events.extend(decoder.push(part));
        }
        events.extend(decoder.finish());
        events
    }

    fn files(directory: &str, extension: Option<&str>) -> Vec<std::path::PathBuf> {
        let directory = Path::new(env!("CARGO_MANIFEST_DIR")).join(directory);
        let mut files: Vec<_> = std::fs::read_dir(&directory)
            .unwrap_or_else(|error| panic!("reading {}: {error}", directory.display()))
            .filter_map(|entry| entry.ok().map(|entry| entry.path()))
            .filter(|path| {
                extension.is_none_or(|extension| {
                    path.extension().is_some_and(|found| found == extension)
                })
            })
            .collect();
        files.sort();
        files
    }

    /// Reusing settled regions and skipping the lists of children already compared are
    /// optimisations only: every recorded stream and every fuzz input gives the same events with
    /// them as when every snapshot converts everything again and compares every boundary, also
    /// under node limits tight enough to fail part-way (the replayed counts must fail at
    /// the same place), and whatever the pieces the bytes arrive in.
    #[test]
    fn reusing_settled_regions_changes_no_event() {
        let mut inputs = files("../fixtures/flight", Some("flight"));
        assert!(
            inputs.len() >= 40,
            "fixtures/flight holds the recorded cases"
        );
        let corpus = files("../fuzz/corpus/flight_decoder", None);
        assert!(corpus.len() >= 40, "the fuzz corpus is there");
        inputs.extend(corpus);
        let limits = [
            DocumentLimits::default(),
            DocumentLimits {
                max_nodes: 12,
                ..DocumentLimits::default()
            },
            DocumentLimits {
                max_nodes: 60,
                max_depth: 9,
                ..DocumentLimits::default()
            },
        ];
        for input in &inputs {
            let bytes = std::fs::read(input).expect("the input reads");
            for limits in limits {
                for piece in [bytes.len(), 7] {
                    let reference = decode_skipping(&bytes, piece, limits, false, false);
                    assert_eq!(
                        decode(&bytes, piece, limits, true),
                        reference,
                        "{} in pieces of {piece} bytes, limits {limits:?}",
                        input.display()
                    );
                    assert_eq!(
                        decode(&bytes, piece, limits, false),
                        reference,
                        "{} in pieces of {piece} bytes, limits {limits:?}",
                        input.display()
                    );
                }
            }
        }
    }

    /// The wait table only skips rebuilds that would change nothing: rebuilding after every row
    /// gives the same events, over every recorded stream, every fuzz input and out-of-order
    /// streams with many boundaries, whatever the pieces (a table that missed a wait would hold
    /// a replace back, or lose it). A stream that fails may fail earlier, and differently, when
    /// every row is converted at once (a malformed row nothing waited for yet is read sooner):
    /// there both must fail.
    #[test]
    fn the_rows_the_wait_table_skips_change_no_event() {
        let mut inputs: Vec<Vec<u8>> = files("../fixtures/flight", Some("flight"))
            .into_iter()
            .chain(files("../fuzz/corpus/flight_decoder", None))
            .map(|path| std::fs::read(path).expect("the input reads"))
            .collect();
        inputs.extend([3, 40, 100].map(out_of_order_stream));
        let limits = DocumentLimits::default();
        let failed = |events: &[RenderEvent]| {
            matches!(
                events.last().map(|event| &event.kind),
                Some(RenderEventKind::Complete { document })
                    if document.status == crate::document::Status::Failed
            )
        };
        let mut compared = 0;
        for bytes in &inputs {
            for piece in [bytes.len(), 7] {
                let mut decoder = FlightDecoder::new("tool:fixtures/case", limits);
                decoder.rebuild_always = true;
                let mut every_row = Vec::new();
                for part in bytes.chunks(piece) {
                    every_row.extend(decoder.push(part));
                }
                every_row.extend(decoder.finish());
                let events = decode(bytes, piece, limits, true);
                let stream = String::from_utf8_lossy(&bytes[..bytes.len().min(200)]);
                if failed(&every_row) {
                    assert!(failed(&events), "{stream} in pieces of {piece} bytes");
                } else {
                    assert_eq!(events, every_row, "{stream} in pieces of {piece} bytes");
                    compared += 1;
                }
            }
        }
        assert!(compared >= 80, "{compared} decodes compared event by event");
    }

    /// The same row met at the same depth inside and outside an `<Agent.Result>` converts
    /// differently (a result inside a result merges into it), so the two are never confused.
    #[test]
    fn a_row_reused_inside_and_outside_a_result_keeps_both_forms() {
        let stream = concat!(
            "1:[\"$\",\"agent-result\",null,{\"children\":\"x\"}]\n",
            "0:[[\"$\",\"agent-result\",null,{\"children\":\"$1\"}],[\"$1\"]]\n",
        );
        let events = decode(
            stream.as_bytes(),
            stream.len(),
            DocumentLimits::default(),
            true,
        );
        assert_eq!(
            events,
            decode(
                stream.as_bytes(),
                stream.len(),
                DocumentLimits::default(),
                false
            )
        );
        let Some(RenderEventKind::Complete { document }) = events.last().map(|event| &event.kind)
        else {
            panic!("the render completes: {events:?}");
        };
        let x = || crate::document::Node::Text { text: "x".into() };
        let result = crate::document::Node::Result {
            children: vec![x()].into(),
        };
        assert_eq!(
            document.root,
            crate::document::Node::Result {
                children: vec![result.clone(), result].into(),
            }
        );
    }

    /// A stream shaped to exercise reuse where the recorded ones do not: a list of boundaries
    /// long enough to be converted in blocks, content arriving out of order, boundaries nested in
    /// content, a path reference to a row still to come, and a failed row.
    fn out_of_order_stream(boundaries: u32) -> Vec<u8> {
        let suspense = |id: u32, fallback: &str, content: &str| {
            format!(
                r#"["$","$1","{id}",{{"fallback":["$","agent-progress",null,{{"message":"{fallback}"}}],"children":"{content}"}}]"#
            )
        };
        let content_row = |index: u32| 0x100 + index;
        let list: Vec<String> = (0..boundaries)
            .map(|index| {
                suspense(
                    index,
                    &format!("wait {index}"),
                    &format!("$L{:x}", content_row(index)),
                )
            })
            .collect();
        let mut rows = vec![
            r#"1:"$Sreact.suspense""#.to_owned(),
            format!(
                r#"0:["$","agent-result",null,{{"children":[["$","agent-text",null,{{"children":"top"}}],[{}]]}}]"#,
                list.join(",")
            ),
        ];
        // A deterministic shuffle of the content rows.
        let mut order: Vec<u32> = (0..boundaries).collect();
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        for index in (1..order.len()).rev() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            order.swap(index, (state % (index as u64 + 1)) as usize);
        }
        for index in order {
            let id = content_row(index);
            let row = match index % 5 {
                // Content holding a boundary of its own, whose content comes later.
                0 => format!(
                    r#"{id:x}:[["$","agent-text",null,{{"children":"section {index}"}}],{}]"#,
                    suspense(1000 + index, "inner", &format!("$L{:x}", 0x800 + index))
                ),
                // Content reaching into a row still to come by path.
                1 => format!(r#"{id:x}:"${:x}:props:children""#, 0x800 + index),
                2 if index % 3 == 0 => format!(r#"{id:x}:E{{"digest":"section {index} failed"}}"#),
                _ => format!(
                    r#"{id:x}:["$","agent-json",null,{{"value":{{"section":{index},"items":[1,2,3]}}}}]"#
                ),
            };
            rows.push(row);
            if index % 5 == 0 || index % 5 == 1 {
                rows.push(format!(
                    r#"{:x}:["$","agent-markdown",null,{{"children":"late {index}"}}]"#,
                    0x800 + index
                ));
            }
        }
        let mut stream = rows.join("\n");
        stream.push('\n');
        stream.into_bytes()
    }

    #[test]
    fn reuse_across_blocks_nesting_and_out_of_order_rows_changes_no_event() {
        // 600: a list whose blocks of 512 could not be kept, so it is split in blocks of 64.
        for boundaries in [3, 40, 100, 600] {
            let bytes = out_of_order_stream(boundaries);
            let limits = DocumentLimits::default();
            let events = decode(&bytes, bytes.len(), limits, true);
            assert!(
                events
                    .iter()
                    .filter(|event| matches!(event.kind, RenderEventKind::Replace { .. }))
                    .count()
                    >= boundaries as usize / 2,
                "boundaries resolve one by one: {}",
                events.len()
            );
            assert!(events.last().is_some_and(RenderEvent::is_complete));
            for piece in [bytes.len(), 13] {
                assert_eq!(
                    events,
                    decode_skipping(&bytes, piece, limits, false, false),
                    "{boundaries} boundaries, pieces of {piece}, every boundary compared"
                );
                assert_eq!(
                    events,
                    decode(&bytes, piece, limits, false),
                    "{boundaries} boundaries, pieces of {piece}"
                );
                assert_eq!(
                    events,
                    decode(&bytes, piece, limits, true),
                    "{boundaries} boundaries, pieces of {piece}"
                );
            }
            for max_nodes in [50, 400] {
                let limits = DocumentLimits {
                    max_nodes,
                    ..limits
                };
                assert_eq!(
                    decode(&bytes, 29, limits, true),
                    decode(&bytes, 29, limits, false),
                    "max_nodes {max_nodes}"
                );
            }
        }
    }
}
