//! The zod oracle corpus: every case of `fixtures/schemas/cases.mjs` is printed by zod 4.6.7
//! itself (`fixtures/schemas/oracle.mjs`, run here with Node) and translated statically by
//! abgen from the same module text; the two must be equal as JSON values, with object
//! `properties` in the same order, for `io: 'input'` and `io: 'output'`. Where zod throws,
//! abgen must fall back to run time. The only exceptions are `DIFFERENCES_FROM_ZOD`.

mod schema_support;

use std::collections::BTreeSet;

use abgen::schema::{DIFFERENCES_FROM_ZOD, print_2020_12};
use schema_support::{io_of, oracle, translate_case};
use serde_json::Value;

/// What abgen prints for one case, or `None` where it falls back to run time.
fn translate(result: &Value) -> Option<Value> {
    let schema = translate_case(result).ok()?;
    print_2020_12(&schema, io_of(result)).ok()
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
        let io = io_of(result);
        let ours = translate(result);
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

/// `check` reads from the IR what the printed JSON would say (printable, object root, a host's
/// root rule) without printing; on every corpus case both readings agree.
#[test]
fn ir_predicates_agree_with_the_printed_json() {
    use abgen::schema::profile::{Profile, check_input_root};
    use abgen::schema::{printable, prints_object_root, root_combinator};
    let mut compared = 0;
    for result in oracle() {
        let Ok(schema) = translate_case(&result) else {
            continue;
        };
        let io = io_of(&result);
        let printed = print_2020_12(&schema, io);
        assert_eq!(printable(&schema, io).is_ok(), printed.is_ok(), "{result}");
        let Ok(printed) = printed else {
            continue;
        };
        let object_root = printed["type"] == "object";
        assert_eq!(prints_object_root(&schema), object_root, "{printed}");
        let host_ok = check_input_root(&printed, Profile::Claude).is_ok();
        let ir_ok = prints_object_root(&schema) && root_combinator(&schema).is_none();
        assert_eq!(ir_ok, host_ok, "{printed}");
        compared += 1;
    }
    assert!(compared > 480, "only {compared} compared");
}
