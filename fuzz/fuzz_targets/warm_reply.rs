//! Fuzzes the warm client's reply reader, the validator of a server's event stream (see
//! `checks/warm_reply.rs`).
//! Run: `cargo fuzz run warm_reply --sanitizer none` from `fuzz/` (stable Rust).

#![no_main]

#[path = "../checks/warm_reply.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::warm_reply(data));
