//! The canonical writer serializes the manifest without building a `serde_json::Value` first.
//! Its bytes must be the ones the earlier writer gave over `serde_json::to_value` of the same
//! manifest, which is kept here as the oracle (below the test, unchanged but for its entry
//! point): every project under `fixtures/projects` that plans an artifact, and the example,
//! planned for all four targets where they take it, gives the same manifest bytes and the same bytes for every
//! JSON document, and the manifest written in parts (routes apart, in parallel) is the same as
//! the whole manifest written at once; and its head, read only as far as the routes, says what the
//! whole says.

use std::path::{Path, PathBuf};

use abgen::check::{CheckOptions, check_project};
use abgen::emit::canonical_json::{
    ORDERED_SCHEMA_MAPS, SCHEMA_ARRAYS, SCHEMA_ROOT_KEYS, SCHEMA_VALUED, SORTED_SCHEMA_MAPS,
    serialize_canonical,
};
use abgen::emit::{EmitOptions, checked_emit_input, plan_artifact};
use serde_json::{Map, Number, Value};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every project the test plans: the fixtures and the example.
fn projects() -> Vec<PathBuf> {
    let mut projects: Vec<PathBuf> = std::fs::read_dir(repo().join("fixtures/projects"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_dir())
        .collect();
    projects.sort();
    projects.push(repo().join("examples/curator"));
    projects
}

#[test]
fn the_manifest_and_every_json_document_are_the_bytes_of_the_value_based_writer() {
    let temp = tempfile::tempdir().unwrap();
    let host = temp.path().join("abgen-host");
    std::fs::write(&host, "#!/bin/sh\nexit 2\n").unwrap();
    let mut planned = Vec::new();
    let mut hooked = 0;
    for root in projects() {
        let checked = check_project(&CheckOptions {
            root: root.clone(),
            targets: None,
        });
        let (Some(config), Some(graph)) = (&checked.config, &checked.graph) else {
            continue;
        };
        if checked.has_errors() {
            continue;
        }
        let mut input = checked_emit_input(&root, &checked, config, graph);
        for script in &mut input.plain_scripts {
            script.bundle = b"// bundle stand-in\n".to_vec();
        }
        let options = |targets: Vec<String>| EmitOptions {
            targets,
            out_dir: temp.path().join("out"),
            host_binary: host.clone(),
            platforms: Vec::new(),
            worker_bundle: b"// worker bundle stand-in\n".to_vec().into(),
        };
        let all = ["claude", "codex", "cursor", "portable"]
            .map(String::from)
            .to_vec();
        let own = graph
            .targets
            .iter()
            .map(|t| t.as_str().to_owned())
            .collect();
        // All four targets, or the project's own where one of the four refuses its events; a
        // project that needs a bundled entry server plans no artifact here.
        let Ok(artifact) =
            plan_artifact(&input, &options(all)).or_else(|_| plan_artifact(&input, &options(own)))
        else {
            continue;
        };
        let name = root.file_name().unwrap().to_string_lossy().into_owned();
        // The planned routes carry their schemas in the text alone, written as they were made.
        let text = artifact.manifest_text.to_string();
        let value: Value = serde_json::from_str(&text).unwrap();
        assert!(
            text == oracle(&value),
            "{name}: the manifest differs from the Value-based writer's"
        );
        let whole: abgen_runtime::manifest::Manifest = serde_json::from_value(value).unwrap();
        assert_eq!(
            serialize_canonical(&whole).unwrap(),
            text,
            "{name}: the manifest written whole differs from the one written in parts"
        );
        // A host starts its kernel from the manifest's head, read only as far as the routes.
        let written = temp.path().join(format!("{name}.json"));
        std::fs::write(&written, &text).unwrap();
        let head = abgen_runtime::manifest::read_manifest_head(&written)
            .unwrap_or_else(|| panic!("{name}: the manifest's head does not read"));
        assert_eq!(
            (head.manifest_version, &head.digest, &head.limits),
            (whole.manifest_version, &whole.digest, &whole.limits),
            "{name}"
        );
        // A hook reads the head and the routes its bindings name, and no further.
        let view = abgen_runtime::manifest::read_hook_view(&written).unwrap();
        assert_eq!(
            (&view.digest, &view.hooks, &view.limits),
            (&whole.digest, &whole.hooks, &whole.limits),
            "{name}"
        );
        let named: Vec<&String> = whole
            .hooks
            .values()
            .flatten()
            .flat_map(|binding| &binding.routes)
            .collect();
        let hook_routes = whole
            .routes
            .iter()
            .filter(|route| named.contains(&&route.id));
        assert!(
            view.routes
                .iter()
                .map(|route| (&route.id, &route.config))
                .eq(hook_routes.map(|route| (&route.id, &route.config))),
            "{name}: the hook view's routes"
        );
        hooked += usize::from(!view.routes.is_empty());
        assert_eq!(whole.routes.len(), artifact.manifest.routes.len(), "{name}");
        for (planned, written) in artifact.manifest.routes.iter().zip(&whole.routes) {
            assert_eq!(planned.schemas, Default::default(), "{name}");
            assert_eq!(planned.id, written.id, "{name}");
        }
        for (path, file) in artifact.files.files() {
            if !path.ends_with(".json") {
                continue;
            }
            let text = std::str::from_utf8(&file.contents).unwrap();
            let value: Value = serde_json::from_str(text).unwrap();
            assert_eq!(text, oracle(&value), "{name}: {path}");
        }
        planned.push((name, artifact.manifest.routes.len()));
    }
    // The comparison covers many projects, and manifests with routes of every kind.
    assert!(planned.len() >= 40, "{planned:?}");
    assert!(hooked >= 3, "{hooked} manifests with hook routes");
    assert!(
        planned
            .iter()
            .any(|(name, routes)| name == "curator" && *routes > 5),
        "{planned:?}"
    );
}

// The Value-based canonical writer, as it was before the writer became a serializer.

// Which members hold schemas is the layout's rule, not the writer's algorithm: the oracle
// takes the writer's own tables.

/// The bytes the Value-based writer gave for `value`.
fn oracle(value: &Value) -> String {
    let mut out = String::new();
    write_data(&mut out, value, 0);
    out.push('\n');
    out
}

/// Writes a value that is plain data: every object sorted.
fn write_data(out: &mut String, value: &Value, depth: usize) {
    match value {
        Value::Object(map) => write_object(out, map, depth, KeyOrder::Sorted, |key| {
            if SCHEMA_ROOT_KEYS.contains(&key) {
                Position::Schema
            } else {
                Position::Data
            }
        }),
        Value::Array(items) => write_array(out, items, depth, write_data),
        scalar => write_scalar(out, scalar),
    }
}

/// Writes a value in a position where a JSON Schema stands.
fn write_schema(out: &mut String, value: &Value, depth: usize) {
    match value {
        Value::Object(map) => write_object(out, map, depth, KeyOrder::Sorted, |key| {
            if ORDERED_SCHEMA_MAPS.contains(&key) {
                Position::OrderedSchemaMap
            } else if SORTED_SCHEMA_MAPS.contains(&key) {
                Position::SortedSchemaMap
            } else if SCHEMA_VALUED.contains(&key) || SCHEMA_ARRAYS.contains(&key) {
                Position::Schema
            } else {
                Position::Data
            }
        }),
        // An array in a schema position is a list of subschemas (`anyOf`, draft-07 `items`).
        Value::Array(items) => write_array(out, items, depth, write_schema),
        scalar => write_scalar(out, scalar),
    }
}

#[derive(Clone, Copy)]
enum KeyOrder {
    Sorted,
    Inserted,
}

/// What a member's value is, decided by its key.
#[derive(Clone, Copy)]
enum Position {
    Data,
    Schema,
    OrderedSchemaMap,
    SortedSchemaMap,
}

fn write_position(out: &mut String, position: Position, value: &Value, depth: usize) {
    match (position, value) {
        (Position::Data, _) => write_data(out, value, depth),
        (Position::Schema, _) => write_schema(out, value, depth),
        (Position::OrderedSchemaMap, Value::Object(map)) => {
            write_object(out, map, depth, KeyOrder::Inserted, |_| Position::Schema);
        }
        (Position::SortedSchemaMap, Value::Object(map)) => {
            write_object(out, map, depth, KeyOrder::Sorted, |_| Position::Schema);
        }
        // A malformed schema (`"properties": 3`) is still written, as data.
        (Position::OrderedSchemaMap | Position::SortedSchemaMap, _) => {
            write_data(out, value, depth);
        }
    }
}

/// Starts a member or item of a container at `depth`: a line of its own, indented.
fn new_line(out: &mut String, depth: usize) {
    out.push('\n');
    for _ in 0..depth {
        out.push_str(INDENT);
    }
}

/// One level of indentation.
const INDENT: &str = "  ";

fn write_object(
    out: &mut String,
    map: &Map<String, Value>,
    depth: usize,
    order: KeyOrder,
    position_of: impl Fn(&str) -> Position,
) {
    if map.is_empty() {
        out.push_str("{}");
        return;
    }
    let mut members: Vec<(&String, &Value)> = map.iter().collect();
    if let KeyOrder::Sorted = order {
        members.sort_by_key(|(key, _)| *key);
    }
    out.push('{');
    for (index, (key, value)) in members.into_iter().enumerate() {
        if index > 0 {
            out.push(',');
        }
        new_line(out, depth + 1);
        write_string(out, key);
        out.push_str(": ");
        write_position(out, position_of(key), value, depth + 1);
    }
    new_line(out, depth);
    out.push('}');
}

fn write_array(
    out: &mut String,
    items: &[Value],
    depth: usize,
    write_item: fn(&mut String, &Value, usize),
) {
    if items.is_empty() {
        out.push_str("[]");
        return;
    }
    out.push('[');
    for (index, item) in items.iter().enumerate() {
        if index > 0 {
            out.push(',');
        }
        new_line(out, depth + 1);
        write_item(out, item, depth + 1);
    }
    new_line(out, depth);
    out.push(']');
}

fn write_scalar(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(number) => write_number(out, number),
        Value::String(text) => write_string(out, text),
        Value::Array(_) | Value::Object(_) => {
            unreachable!("containers are written by their callers")
        }
    }
}

/// 2^53: above it not every integer is a representable float, so the float form is kept.
const MAX_SAFE_FLOAT_INTEGER: f64 = 9_007_199_254_740_992.0;

fn write_number(out: &mut String, number: &Number) {
    if let Some(unsigned) = number.as_u64() {
        out.push_str(&unsigned.to_string());
    } else if let Some(signed) = number.as_i64() {
        out.push_str(&signed.to_string());
    } else if let Some(float) = number.as_f64() {
        if float.fract() == 0.0 && float.abs() < MAX_SAFE_FLOAT_INTEGER {
            #[expect(clippy::cast_possible_truncation, reason = "integral and below 2^53")]
            let integral = float as i64;
            out.push_str(&integral.to_string());
        } else {
            // serde_json prints the shortest representation that reads back to the same f64.
            out.push_str(&number.to_string());
        }
    }
}

fn write_string(out: &mut String, text: &str) {
    out.push('"');
    for character in text.chars() {
        match character {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0C}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            control if u32::from(control) < 0x20 => {
                out.push_str(&format!("\\u{:04x}", u32::from(control)));
            }
            other => out.push(other),
        }
    }
    out.push('"');
}
