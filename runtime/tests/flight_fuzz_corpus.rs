//! Replays the fuzz corpus of the Flight decoder (fuzz/corpus/flight_decoder, grown by
//! `cargo fuzz run flight_decoder --sanitizer none`) under the fuzz target's own property: no
//! panic, one final `complete`, the event budget kept, the same events however the input is split.

use std::path::Path;

use abgen_runtime::document::{DocumentLimits, RenderEvent};
use abgen_runtime::flight::FlightDecoder;

/// The fuzz target's limits (fuzz/fuzz_targets/flight_decoder.rs).
const LIMITS: DocumentLimits = DocumentLimits {
    max_bytes: 1 << 16,
    max_nodes: 2_000,
    max_depth: 48,
    max_events: 64,
};

fn decode(pieces: &[&[u8]]) -> Vec<RenderEvent> {
    let mut decoder = FlightDecoder::new("fuzz:route", LIMITS);
    let mut events = Vec::new();
    for piece in pieces {
        events.extend(decoder.push(piece));
    }
    events.extend(decoder.finish());
    events
}

#[test]
fn every_fuzz_corpus_input_keeps_the_decoder_invariants() {
    let directory = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/flight_decoder");
    let mut inputs: Vec<_> = std::fs::read_dir(&directory)
        .expect("fuzz/corpus/flight_decoder exists")
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .collect();
    inputs.sort();
    assert!(
        inputs.len() >= 40,
        "the corpus holds {} inputs",
        inputs.len()
    );
    for path in inputs {
        let data = std::fs::read(&path).expect("reading a corpus input");
        let Some((&split, bytes)) = data.split_first() else {
            continue;
        };
        let name = path.display();
        let whole = decode(&[bytes]);
        let cut = usize::from(split) * bytes.len() / 255;
        let (head, tail) = bytes.split_at(cut);
        assert_eq!(decode(&[head, tail]), whole, "{name} split at {cut}");
        assert!(whole.len() <= LIMITS.max_events, "{name}");
        assert_eq!(
            whole.iter().filter(|event| event.is_complete()).count(),
            1,
            "{name}"
        );
        assert!(whole.last().is_some_and(RenderEvent::is_complete), "{name}");
    }
}
