//! Decoder limits over recorded streams: each bound of `DocumentLimits` (bytes, nodes, depth,
//! events) ends a render that passes it with one `limit-exceeded` failure naming the bound, and
//! nothing after `complete`, however the bytes are split.

use std::path::{Path, PathBuf};

use abgen_runtime::document::{DocumentLimits, RenderEvent, RenderEventKind, Status};
use abgen_runtime::flight::FlightDecoder;

fn fixture(case: &str) -> Vec<u8> {
    let path: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/flight")
        .join(format!("{case}.flight"));
    std::fs::read(&path).unwrap_or_else(|error| panic!("reading {}: {error}", path.display()))
}

fn decode(bytes: &[u8], piece: usize, limits: DocumentLimits) -> Vec<RenderEvent> {
    let mut decoder = FlightDecoder::new("tool:limits/case", limits);
    let mut events = Vec::new();
    for chunk in bytes.chunks(piece) {
        events.extend(decoder.push(chunk));
    }
    events.extend(decoder.finish());
    events
}

/// Asserts the render failed on a limit whose message contains `needle`, for several splits.
fn assert_limited(case: &str, limits: DocumentLimits, needle: &str) {
    let bytes = fixture(case);
    let reference = decode(&bytes, bytes.len().max(1), limits);
    for piece in [1, 7, 64, 4096] {
        let events = decode(&bytes, piece, limits);
        assert_eq!(events, reference, "{case}: split into {piece}-byte pieces");
    }
    assert!(
        reference.len() <= limits.max_events,
        "{case}: {reference:?}"
    );
    let [.., error, complete] = reference.as_slice() else {
        panic!("{case}: {reference:?}")
    };
    let RenderEventKind::Error {
        boundary_id: None,
        error,
    } = &error.kind
    else {
        panic!("{case}: {reference:?}")
    };
    assert_eq!(error.code, "limit-exceeded", "{case}: {error:?}");
    assert!(error.message.contains(needle), "{case}: {}", error.message);
    let RenderEventKind::Complete { document } = &complete.kind else {
        panic!("{case}: {reference:?}")
    };
    assert_eq!(document.status, Status::Failed);
}

#[test]
fn a_stream_longer_than_the_byte_limit_fails() {
    let limits = DocumentLimits {
        max_bytes: 4096,
        ..DocumentLimits::default()
    };
    assert_limited("long-list", limits, "4096-byte limit");
    assert_limited("image-large-bytes", limits, "4096-byte limit");
}

#[test]
fn a_document_with_too_many_nodes_fails() {
    let limits = DocumentLimits {
        max_nodes: 200,
        ..DocumentLimits::default()
    };
    assert_limited("long-list", limits, "more than 200 nodes");
    assert_limited("json-300-items", limits, "more than 200 nodes");
}

#[test]
fn a_document_nested_too_deep_fails() {
    let limits = DocumentLimits {
        max_depth: 6,
        ..DocumentLimits::default()
    };
    assert_limited("deep-nesting", limits, "deeper than 6 levels");
}

#[test]
fn a_render_with_too_many_events_fails_within_the_budget() {
    let limits = DocumentLimits {
        max_events: 3,
        ..DocumentLimits::default()
    };
    assert_limited("suspense-siblings", limits, "more than 3 events");
}

#[test]
fn the_default_limits_accept_every_recorded_case() {
    for case in [
        "long-list",
        "list-300-in-suspense",
        "deep-nesting",
        "image-large-bytes",
    ] {
        let events = decode(&fixture(case), 1024, DocumentLimits::default());
        let Some(RenderEventKind::Complete { document }) = events.last().map(|event| &event.kind)
        else {
            panic!("{case}: {events:?}")
        };
        assert_ne!(document.status, Status::Failed, "{case}: {document:?}");
    }
}
