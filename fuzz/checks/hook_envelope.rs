//! The property the `hook_envelope` fuzz target checks, shared with `cargo test`, which replays
//! its corpus through it (`runtime/tests/hook_fuzz_corpus.rs`).
//!
//! The first byte picks a decoder of any host; the rest is the payload, decoded for the native
//! event it names (so decoding reaches past the event check). No panic, and an event that comes
//! out is its decoder's host's, serializes, and keeps every string bounded.

use abgen_runtime::canonical::Bounds;
use abgen_runtime::hosts::{self, DecodeInput, Decoded, Decoder};
use serde_json::Value;

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
    });
    let Decoded::Event(event) = decoded else {
        return;
    };
    assert_eq!(event.host, decoder.envelope.host);
    let value = serde_json::to_value(&event).expect("a canonical event serializes");
    assert_bounded(&value, 0);
}

/// No string past the content bound (plus its `…`), no nesting past the content depth.
fn assert_bounded(value: &Value, depth: usize) {
    // The event's own wrapping (`tool.input`, `native.<field>`) adds a few levels.
    assert!(
        depth <= Bounds::CONTENT.max_depth + 4,
        "nested {depth} deep"
    );
    match value {
        Value::String(text) => {
            assert!(text.len() <= Bounds::CONTENT.max_string_bytes + '…'.len_utf8());
        }
        Value::Array(items) => items
            .iter()
            .for_each(|item| assert_bounded(item, depth + 1)),
        Value::Object(fields) => fields.iter().for_each(|(key, field)| {
            assert!(key.len() <= Bounds::CONTENT.max_string_bytes + '…'.len_utf8());
            assert_bounded(field, depth + 1);
        }),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}
