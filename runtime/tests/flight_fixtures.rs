//! Decodes every Flight stream recorded from the pinned React (fixtures/flight/<case>.flight,
//! rendered from <case>.tsx by packages/runtime/scripts/record-flight.mjs) and snapshots its
//! render events beside it. Every event is validated against schemas/agent-document.schema.json,
//! and decoding every stream split anywhere (at every byte offset for small streams, at 1,000
//! random places for large ones) must give the same events.

use std::path::{Path, PathBuf};

use abgen_runtime::document::{DocumentLimits, RenderEvent};
use abgen_runtime::flight::FlightDecoder;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn fixture(case: &str) -> Vec<u8> {
    let path = repo_root()
        .join("fixtures/flight")
        .join(format!("{case}.flight"));
    std::fs::read(&path).unwrap_or_else(|error| panic!("reading {}: {error}", path.display()))
}

/// Decodes `bytes` fed in the given pieces.
fn decode<'b>(pieces: impl IntoIterator<Item = &'b [u8]>) -> Vec<RenderEvent> {
    let mut decoder = FlightDecoder::new("tool:fixtures/case", DocumentLimits::default());
    let mut events = Vec::new();
    for piece in pieces {
        events.extend(decoder.push(piece));
    }
    events.extend(decoder.finish());
    events
}

/// Every `<case>.flight` under fixtures/flight, sorted.
fn recorded_cases() -> Vec<String> {
    let directory = repo_root().join("fixtures/flight");
    let mut cases: Vec<String> = std::fs::read_dir(&directory)
        .expect("fixtures/flight exists")
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            let stem = path.file_stem()?.to_str()?.to_owned();
            (path.extension()? == "flight").then_some(stem)
        })
        .collect();
    cases.sort();
    assert!(
        cases.len() >= 40,
        "fixtures/flight holds the recorded cases"
    );
    cases
}

fn ndjson(events: &[RenderEvent]) -> String {
    events
        .iter()
        .map(|event| serde_json::to_string(event).expect("events serialize") + "\n")
        .collect()
}

fn schema_validator() -> jsonschema::Validator {
    let path = repo_root().join("schemas/agent-document.schema.json");
    let schema = serde_json::from_str(&std::fs::read_to_string(path).expect("schema file"))
        .expect("schema JSON");
    jsonschema::validator_for(&schema).expect("the schema compiles")
}

fn assert_contract(case: &str, events: &[RenderEvent]) {
    let validator = schema_validator();
    for event in events {
        let value = serde_json::to_value(event).expect("events serialize");
        let errors: Vec<String> = validator
            .iter_errors(&value)
            .map(|error| error.to_string())
            .collect();
        assert!(
            errors.is_empty(),
            "{case}: event {} breaks the schema: {errors:?}",
            event.sequence
        );
    }
    for (index, event) in events.iter().enumerate() {
        assert_eq!(
            event.sequence, index as u64,
            "{case}: sequence numbers count from 0"
        );
    }
    let last = events.last().expect("a render has events");
    assert!(last.is_complete(), "{case}: the last event is complete");
    assert_eq!(
        events.iter().filter(|event| event.is_complete()).count(),
        1,
        "{case}: one complete"
    );
}

#[test]
fn recorded_streams_decode_to_the_snapshotted_events() {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(repo_root().join("fixtures/flight"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| {
        for case in recorded_cases() {
            let events = decode([fixture(&case).as_slice()]);
            assert_contract(&case, &events);
            insta::assert_snapshot!(case.as_str(), ndjson(&events));
        }
    });
}

/// Streams up to this size are split at every byte; larger ones at random places.
const EXHAUSTIVE_SPLIT_BYTES: usize = 4096;
/// Random splits tried on a large stream.
const RANDOM_SPLITS: usize = 1000;

/// A small deterministic generator (xorshift64), so a failing split can be replayed.
struct Splits(u64);

impl Splits {
    fn next_below(&mut self, bound: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % bound as u64) as usize
    }

    /// Up to four sorted cut points in `0..=len`.
    fn cuts(&mut self, len: usize) -> Vec<usize> {
        let count = 1 + self.next_below(4);
        let mut cuts: Vec<usize> = (0..count).map(|_| self.next_below(len + 1)).collect();
        cuts.sort_unstable();
        cuts
    }
}

fn pieces<'b>(bytes: &'b [u8], cuts: &[usize]) -> Vec<&'b [u8]> {
    let mut pieces = Vec::with_capacity(cuts.len() + 1);
    let mut start = 0;
    for &cut in cuts {
        pieces.push(&bytes[start..cut]);
        start = cut;
    }
    pieces.push(&bytes[start..]);
    pieces
}

#[test]
fn splitting_the_stream_at_any_byte_changes_nothing() {
    for case in recorded_cases() {
        let bytes = fixture(&case);
        let whole = decode([bytes.as_slice()]);
        if bytes.len() <= EXHAUSTIVE_SPLIT_BYTES {
            for offset in 0..=bytes.len() {
                let (head, tail) = bytes.split_at(offset);
                assert_eq!(decode([head, tail]), whole, "{case} split at byte {offset}");
            }
            assert_eq!(
                decode(bytes.chunks(1)),
                whole,
                "{case} fed one byte at a time"
            );
        } else {
            let mut splits = Splits(0x9e37_79b9_7f4a_7c15 ^ bytes.len() as u64);
            for _ in 0..RANDOM_SPLITS {
                let cuts = splits.cuts(bytes.len());
                assert_eq!(
                    decode(pieces(&bytes, &cuts)),
                    whole,
                    "{case} split at bytes {cuts:?}"
                );
            }
        }
    }
}

#[test]
fn a_pending_lazy_outside_suspense_holds_the_shell_back() {
    let bytes = fixture("async-no-suspense");
    let first_row_end = bytes.iter().position(|&b| b == b'\n').expect("a row") + 1;
    let mut decoder = FlightDecoder::new("", DocumentLimits::default());
    assert!(
        decoder.push(&bytes[..first_row_end]).is_empty(),
        "no shell while $L1 and $L2 are missing"
    );
    let events = decoder.push(&bytes[first_row_end..]);
    assert!(matches!(
        events[0].kind,
        abgen_runtime::document::RenderEventKind::Shell { .. }
    ));
}

#[test]
fn a_client_module_row_is_refused_as_it_arrives_naming_the_route() {
    let mut decoder = FlightDecoder::new("tool:library/search", DocumentLimits::default());
    let events = decoder.push(b"1:I[\"./button.js\",[],\"Button\"]\n");
    let [error, complete] = events.as_slice() else {
        panic!("{events:?}")
    };
    let abgen_runtime::document::RenderEventKind::Error {
        boundary_id: None,
        error,
    } = &error.kind
    else {
        panic!("{events:?}")
    };
    assert_eq!(error.code, "client-component");
    assert!(
        error.message.contains("tool:library/search") && error.message.contains("'use client'"),
        "{}",
        error.message
    );
    assert!(complete.is_complete());
    assert!(decoder.push(b"0:[\"$\",\"$L1\",null,{}]\n").is_empty());
    assert!(decoder.finish().is_empty());
}
