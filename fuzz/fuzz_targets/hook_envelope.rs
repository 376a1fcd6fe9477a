//! Fuzzes the hook envelope decoders of every host (see `checks/hook_envelope.rs`).
//! Run: `cargo fuzz run hook_envelope --sanitizer none` from `fuzz/` (stable Rust).

#![no_main]

#[path = "../checks/hook_envelope.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::hook_envelope(data));
