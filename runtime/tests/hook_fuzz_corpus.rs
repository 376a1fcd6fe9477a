//! Replays the corpora of the hook fuzz targets (`fuzz/corpus/{hook_envelope,warm_reply}/`)
//! through the same checks the targets run (`fuzz/checks/`), so every input the fuzzer found
//! interesting stays covered by `cargo test` on stable Rust, without libFuzzer.

use std::path::{Path, PathBuf};

#[path = "../../fuzz/checks/hook_envelope.rs"]
mod hook_envelope;
#[path = "../../fuzz/checks/warm_reply.rs"]
mod warm_reply;

fn corpus(target: &str) -> Vec<PathBuf> {
    let directory = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/corpus")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&directory)
        .unwrap_or_else(|error| panic!("{}: {error}", directory.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    files
}

fn replay(target: &str, check: fn(&[u8])) {
    let files = corpus(target);
    // The seeds alone are a few dozen; an empty corpus means the replay tests nothing.
    assert!(files.len() >= 6, "{target}: {} files", files.len());
    for path in files {
        let data = std::fs::read(&path).unwrap();
        let outcome = std::panic::catch_unwind(|| check(&data));
        assert!(
            outcome.is_ok(),
            "{target}: {} fails its check",
            path.display()
        );
    }
}

#[test]
fn hook_envelope_corpus() {
    replay("hook_envelope", hook_envelope::hook_envelope);
}

#[test]
fn warm_reply_corpus() {
    replay("warm_reply", warm_reply::warm_reply);
}
