//! The property the `warm_reply` fuzz target checks, shared with `cargo test`, which replays its
//! corpus through it (`runtime/tests/hook_fuzz_corpus.rs`).
//!
//! The bytes are a warm server's reply stream. No panic, and an accepted reply is events
//! numbered from 0 that end with exactly one `complete`.

use abgen_runtime::document::RenderEvent;
use abgen_runtime::warm;

pub fn warm_reply(data: &[u8]) {
    let mut reader = data;
    let Ok(events) = warm::read_reply(&mut reader, || Ok(())) else {
        return;
    };
    assert!(events.last().is_some_and(RenderEvent::is_complete));
    assert_eq!(events.iter().filter(|event| event.is_complete()).count(), 1);
    for (index, event) in events.iter().enumerate() {
        assert_eq!(event.sequence, index as u64);
    }
}
