//! Fuzzes the Flight decoder: any bytes, split anywhere, must decode without a panic, end in
//! exactly one `complete`, stay within the limits, and give the same events however they are split.
//!
//! Input: the first byte picks where the rest is split (0 = at the start, 255 = at the end).
//! Run: `cargo fuzz run flight_decoder --sanitizer none` from this directory (stable Rust).

#![no_main]

use abgen_runtime::document::{DocumentLimits, RenderEvent};
use abgen_runtime::flight::FlightDecoder;
use libfuzzer_sys::fuzz_target;

/// Small limits, so the fuzzer reaches them.
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

fuzz_target!(|data: &[u8]| {
    let Some((&split, bytes)) = data.split_first() else {
        return;
    };
    let whole = decode(&[bytes]);
    let cut = usize::from(split) * bytes.len() / 255;
    let (head, tail) = bytes.split_at(cut);
    assert_eq!(decode(&[head, tail]), whole, "split at {cut}");
    assert!(whole.len() <= LIMITS.max_events);
    assert_eq!(whole.iter().filter(|event| event.is_complete()).count(), 1);
    assert!(whole.last().is_some_and(RenderEvent::is_complete));
});
