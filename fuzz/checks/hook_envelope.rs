//! The property the `hook_envelope` fuzz target checks, shared with `cargo test`, which replays
//! its corpus through it (`runtime/tests/hook_fuzz_corpus.rs`).
//!
//! The first byte picks a decoder of any host; the rest is the payload, decoded for the native
//! event it names (so decoding reaches past the event check). No panic, and an event that comes
//! out is its decoder's host's, serializes, keeps nesting within the depth limit and has no
//! string longer than the payload it came from (native fields are bounded tighter; the tool
//! input and the prompt are kept whole).

use abgen_runtime::hosts::{self, DecodeInput, Decoded, Decoder};
use serde_json::Value;

/// The depth limit the check decodes with (the host matrix's `payload_max_depth`).
const MAX_DEPTH: usize = 64;

/// Every decoder of every host, in table order.
fn decoders() -> Vec<&'static Decoder> {
    hosts::HOSTS.iter().flat_map(|host| host.decoders).collect()
}

pub fn hook_envelope(data: &[u8]) {
    let Some((&pick, payload)) = data.split_first() else {
        return;
    };
    let decoders = decoders();
    let decoder = decoders[usize::from(pick) % decoders.len()];
    let native_event = serde_json::from_slice::<Value>(payload)
        .ok()
        .and_then(|value| value.get("hook_event_name")?.as_str().map(str::to_owned))
        .unwrap_or_else(|| "PreToolUse".to_owned());
    let opt_in = vec!["tool_response".to_owned(), "user_email".to_owned()];
    let env = |_: &str| None;
    let decoded = decoder.decode(&DecodeInput {
        payload,
        event: "tool/before",
        native_event: &native_event,
        opt_in: &opt_in,
        env: &env,
        max_depth: MAX_DEPTH,
    });
    let Decoded::Event(event) = decoded else {
        return;
    };
    assert_eq!(event.host, decoder.envelope.host);
    let value = serde_json::to_value(&event).expect("a canonical event serializes");
    assert_bounded(&value, 0, payload.len());
}

/// No string longer than the payload (plus the runtime's own short texts), no nesting past the
/// depth limit.
fn assert_bounded(value: &Value, depth: usize, payload_len: usize) {
    // The event's own wrapping (`tool.input`, `native.<field>`) adds a few levels.
    assert!(depth <= MAX_DEPTH + 4, "nested {depth} deep");
    // The runtime's own strings (the idempotency key, an axis's reason) are short sentences.
    let longest = payload_len + 256;
    match value {
        Value::String(text) => assert!(text.len() <= longest),
        Value::Array(items) => items
            .iter()
            .for_each(|item| assert_bounded(item, depth + 1, payload_len)),
        Value::Object(fields) => fields.iter().for_each(|(key, field)| {
            assert!(key.len() <= longest);
            assert_bounded(field, depth + 1, payload_len);
        }),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}
