//! The zod oracle corpus: every case of `fixtures/schemas/cases.mjs` is printed by zod 4.6.7
//! itself (`fixtures/schemas/oracle.mjs`, run here with Node) and translated statically by
//! abgen from the same module text; the two must be equal as JSON values, with object
//! `properties` in the same order, for `io: 'input'` and `io: 'output'`. Where zod throws,
//! abgen must fall back to run time. The only exceptions are `DIFFERENCES_FROM_ZOD`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use abgen::project::FsReader;
use abgen::schema::{DIFFERENCES_FROM_ZOD, Io, print_2020_12, translate_const};
use serde_json::Value;

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// zod's output for every case and side, computed now by the pinned zod.
fn oracle() -> Vec<Value> {
    let output = Command::new(std::env::var("ABGEN_NODE").unwrap_or_else(|_| "node".to_owned()))
        .arg("fixtures/schemas/oracle.mjs")
        .current_dir(repository())
        .output()
        .expect("node runs (the corpus needs Node 20 and the workspace's zod)");
    assert!(
        output.status.success(),
        "oracle failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let parsed: Value = serde_json::from_slice(&output.stdout).expect("the oracle prints JSON");
    parsed
        .as_array()
        .cloned()
        .expect("the oracle prints an array")
}

/// What abgen prints for one case, or `None` where it falls back to run time.
fn translate(expression: &str, prelude: &str, io: Io) -> Option<Value> {
    let text =
        format!("import {{ z }} from 'zod';\n{prelude}\nexport const schema = {expression};\n");
    let root = repository();
    let schema = translate_const(&root, &FsReader, "case.ts", &text, "schema").ok()?;
    print_2020_12(&schema, io).ok()
}

/// The key order of every `properties` object, by JSON Pointer (equality of `Value`s ignores it).
fn property_orders(value: &Value, pointer: &str, out: &mut Vec<(String, Vec<String>)>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                let path = format!("{pointer}/{key}");
                if key == "properties"
                    && let Value::Object(properties) = child
                {
                    out.push((path.clone(), properties.keys().cloned().collect()));
                }
                property_orders(child, &path, out);
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                property_orders(item, &format!("{pointer}/{index}"), out);
            }
        }
        _ => {}
    }
}

fn orders(value: &Value) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    property_orders(value, "", &mut out);
    out.sort();
    out
}

#[test]
fn corpus_matches_zod() {
    let results = oracle();
    let names: BTreeSet<&str> = results.iter().filter_map(|r| r["name"].as_str()).collect();
    assert!(names.len() >= 150, "the corpus has {} cases", names.len());
    let listed: BTreeSet<&str> = DIFFERENCES_FROM_ZOD.iter().map(|d| d.case).collect();
    let mut failures = Vec::new();
    let mut differing_listed = BTreeSet::new();
    let mut printed = 0;
    for result in &results {
        let name = result["name"].as_str().unwrap_or_default();
        let io = match result["io"].as_str() {
            Some("output") => Io::Output,
            _ => Io::Input,
        };
        let expression = result["expression"].as_str().unwrap_or_default();
        let prelude = result["prelude"].as_str().unwrap_or_default();
        let ours = translate(expression, prelude, io);
        let theirs = result.get("schema");
        printed += usize::from(ours.is_some());
        let same = match (&ours, theirs) {
            (Some(ours), Some(theirs)) => ours == theirs && orders(ours) == orders(theirs),
            (None, None) => true,
            _ => false,
        };
        if listed.contains(name) {
            if !same {
                differing_listed.insert(name);
            }
            continue;
        }
        if !same {
            failures.push(format!(
                "{name} ({:?}):\n    zod:   {}\n    abgen: {}",
                io,
                theirs.map_or("throws".to_owned(), Value::to_string),
                ours.map_or("falls back to run time".to_owned(), |v| v.to_string()),
            ));
        }
    }
    // Only the cases zod cannot print, and the listed spread, fall back.
    assert!(
        printed + 7 == results.len(),
        "only {printed} of {} printed",
        results.len()
    );
    let stale: Vec<&&str> = listed.difference(&differing_listed).collect();
    assert!(
        stale.is_empty(),
        "listed differences that no longer differ: {stale:?}"
    );
    assert!(
        failures.is_empty(),
        "{} of {} results differ from zod:\n{}",
        failures.len(),
        results.len(),
        failures.join("\n")
    );
}
