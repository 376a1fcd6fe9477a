//! The one canonical JSON writer: every JSON file abgen writes goes through [`to_canonical_json`].
//!
//! Rules (ARCHITECTURE.md §6), so that builds are byte-identical across machines and target
//! orders:
//! - object keys sorted by Unicode code point (Rust `str` order; equal to UTF-16 order for every
//!   key below U+E000), except the `properties`-like maps of a JSON Schema, which keep their
//!   insertion order (hosts show parameters in that order);
//! - one fixed pretty layout, the one `JSON.stringify(value, null, 2)` writes: every member and
//!   item on a line of its own, indented by two spaces per level, `": "` between a key and its
//!   value, `{}` and `[]` for empty containers, and one final newline, so a diff of an artifact
//!   reads line by line;
//! - strings escape `"`, `\`, and control characters below U+0020 (`\b \f \n \r \t`, otherwise
//!   `\u00XX` with lowercase hex); every other character, non-ASCII included, is written as raw
//!   UTF-8, as `JSON.stringify` does;
//! - integers are written in decimal; a float with an integral value below 2^53 in magnitude is
//!   written as that integer (`1.0` → `1`, `-0.0` → `0`), any other float in its shortest
//!   round-trip form (`1.5e+300`, `1e-7`, `0.1`).
//!
//! A JSON Schema is recognised by where it stands: the value of a member named in
//! [`SCHEMA_ROOT_KEYS`] is a schema, and inside a schema the keywords that hold subschemas are
//! followed, so a `properties` key inside `const`, `default`, `enum` or `examples` data is still
//! sorted. Invariant: the output never depends on the order keys were inserted, except inside
//! schema property maps.

use serde_json::{Map, Number, Value};

/// Members whose value is a JSON Schema, wherever they appear in a document.
pub const SCHEMA_ROOT_KEYS: &[&str] = &[
    "jsonSchema",
    "inputSchema",
    "outputSchema",
    "inputJsonSchema",
    "resultJsonSchema",
];

/// Schema keywords whose value is a map from names to subschemas, kept in insertion order.
const ORDERED_SCHEMA_MAPS: &[&str] = &["properties", "patternProperties"];
/// Schema keywords whose value is a map from names to subschemas, sorted like data.
const SORTED_SCHEMA_MAPS: &[&str] = &["$defs", "definitions", "dependentSchemas"];
/// Schema keywords whose value is one subschema (or, for `items` in draft-07, an array of them).
const SCHEMA_VALUED: &[&str] = &[
    "additionalProperties",
    "unevaluatedProperties",
    "propertyNames",
    "items",
    "additionalItems",
    "unevaluatedItems",
    "contains",
    "not",
    "if",
    "then",
    "else",
];
/// Schema keywords whose value is an array of subschemas.
const SCHEMA_ARRAYS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];

/// Writes `value` as canonical JSON followed by a newline.
pub fn to_canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_data(&mut out, value, 0);
    out.push('\n');
    out
}

/// Writes a JSON Schema document (its `properties` kept in order) as canonical JSON followed by
/// a newline.
pub fn schema_to_canonical_json(schema: &Value) -> String {
    let mut out = String::new();
    write_schema(&mut out, schema, 0);
    out.push('\n');
    out
}

/// [`to_canonical_json`] of any serializable value.
pub fn serialize_canonical<T: serde::Serialize>(value: &T) -> Result<String, serde_json::Error> {
    Ok(to_canonical_json(&serde_json::to_value(value)?))
}

/// An item of an array that is a data member of a top-level object (the manifest's `routes`),
/// written as [`to_canonical_json`] writes it there: a fragment for [`to_canonical_json_spliced`].
pub fn canonical_member_item(item: &Value) -> String {
    let mut out = String::new();
    write_data(&mut out, item, 2);
    out
}

/// [`to_canonical_json`] of the object `document` with its data member `member` (never a schema
/// position; what `document` holds there is replaced) holding the items written in `items` by
/// [`canonical_member_item`]: the very bytes of writing the whole document, without building
/// the array's values again (what lets a rebuild keep each route's fragment).
pub fn to_canonical_json_spliced(
    document: &Map<String, Value>,
    member: &str,
    items: &[&str],
) -> String {
    let mut out = String::new();
    let mut members: Vec<(&str, Option<&Value>)> = document
        .iter()
        .filter(|(key, _)| *key != member)
        .map(|(key, value)| (key.as_str(), Some(value)))
        .chain([(member, None)])
        .collect();
    members.sort_by_key(|(key, _)| *key);
    out.push('{');
    for (index, (key, value)) in members.into_iter().enumerate() {
        if index > 0 {
            out.push(',');
        }
        new_line(&mut out, 1);
        write_string(&mut out, key);
        out.push_str(": ");
        match value {
            Some(value) if SCHEMA_ROOT_KEYS.contains(&key) => write_schema(&mut out, value, 1),
            Some(value) => write_data(&mut out, value, 1),
            None if items.is_empty() => out.push_str("[]"),
            None => {
                out.push('[');
                for (index, item) in items.iter().enumerate() {
                    if index > 0 {
                        out.push(',');
                    }
                    new_line(&mut out, 2);
                    out.push_str(item);
                }
                new_line(&mut out, 1);
                out.push(']');
            }
        }
    }
    new_line(&mut out, 0);
    out.push_str("}\n");
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

#[cfg(test)]
#[path = "canonical_json_tests.rs"]
mod tests;
