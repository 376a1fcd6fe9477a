//! The differential proof: for every recorded stream in fixtures/flight, the final document our
//! decoder produces equals the one React's own client reconstructs from the same bytes
//! (packages/runtime/scripts/flight-client.mjs runs `createFromReadableStream` under Node without
//! the `react-server` condition and converts the tree to document JSON).
//!
//! Failures the decoder itself detects (an unknown element, a value JSON cannot hold) carry
//! messages written by each side, so for those only the status and the code must agree. Needs the
//! npm workspace installed (`npm ci`) and Node 20 or newer.

use std::path::{Path, PathBuf};
use std::process::Command;

use abgen_runtime::document::{DocumentLimits, RenderEventKind};
use abgen_runtime::flight::FlightDecoder;
use abgen_runtime::worker::locate_node;
use serde_json::{Map, Value};

/// Codes raised by a decoder rather than carried in the stream.
const DECODER_CODES: &[&str] = &["unknown-element", "unsupported-value", "client-component"];

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn recorded_cases() -> Vec<PathBuf> {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(repo_root().join("fixtures/flight"))
        .expect("fixtures/flight exists")
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| {
            path.extension()
                .is_some_and(|extension| extension == "flight")
        })
        .collect();
    cases.sort();
    cases
}

/// Our final document for `bytes`, as JSON.
fn decoded_document(bytes: &[u8]) -> Value {
    let mut decoder = FlightDecoder::new("tool:fixtures/case", DocumentLimits::default());
    let mut events = decoder.push(bytes);
    events.extend(decoder.finish());
    let Some(RenderEventKind::Complete { document }) = events.pop().map(|event| event.kind) else {
        panic!("the last event is complete");
    };
    serde_json::to_value(document).expect("documents serialize")
}

/// React's client's documents by case name, from one Node run over every case.
fn reference_documents(cases: &[PathBuf]) -> Map<String, Value> {
    let root = repo_root();
    assert!(
        root.join("node_modules/react-server-dom-webpack").is_dir(),
        "node_modules is missing: run `npm ci` at the repository root before `cargo test`"
    );
    let node = locate_node().expect("Node 20 or newer is needed for this test");
    let output = Command::new(&node.path)
        .arg(root.join("packages/runtime/scripts/flight-client.mjs"))
        .args(cases)
        .env("NODE_ENV", "production")
        .env_remove("NODE_OPTIONS")
        .output()
        .expect("running flight-client.mjs");
    assert!(
        output.status.success(),
        "flight-client.mjs failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    match serde_json::from_slice(&output.stdout).expect("flight-client.mjs prints JSON") {
        Value::Object(documents) => documents,
        other => panic!("flight-client.mjs printed {other}"),
    }
}

/// The part of a failed document both sides must agree on when the decoder raised the failure.
fn comparable(document: &Value) -> Value {
    let code = document["root"]["code"].as_str().unwrap_or_default();
    if document["status"] == "failed" && DECODER_CODES.contains(&code) {
        serde_json::json!({"status": "failed", "code": code})
    } else {
        document.clone()
    }
}

#[test]
fn our_final_documents_equal_what_reacts_client_reconstructs() {
    let cases = recorded_cases();
    assert!(
        cases.len() >= 40,
        "the corpus holds {} cases, fewer than 40",
        cases.len()
    );
    let references = reference_documents(&cases);
    let mut differences = Vec::new();
    for path in &cases {
        let name = path
            .file_stem()
            .and_then(|stem| stem.to_str())
            .expect("UTF-8 case name");
        let bytes = std::fs::read(path).expect("reading the recorded stream");
        let ours = comparable(&decoded_document(&bytes));
        let reference = comparable(references.get(name).expect("the script answers every case"));
        if ours != reference {
            differences.push(format!("{name}:\n  ours:  {ours}\n  react: {reference}"));
        }
    }
    assert!(differences.is_empty(), "{}", differences.join("\n"));
}
