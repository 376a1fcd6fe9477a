//! The JSON Schema 2020-12 printer: the form `z.toJSONSchema(schema, { target: 'draft-2020-12',
//! io })` of zod 4.6.7 prints, for `io: 'input'` (a tool's arguments) and `io: 'output'` (its
//! result).
//!
//! Entry call: [`print_2020_12`]. Invariant: every decision mirrors one of zod's (the tightest
//! bound wins, the last format wins, `{type}`-only union members collapse into a type list,
//! plain objects in an intersection merge); where abgen prints something else, the case is
//! listed in [`crate::schema::DIFFERENCES_FROM_ZOD`].

use serde_json::{Map, Value, json};

use super::ir::{Io, Kind, LengthCheck, ObjectShape, Schema, UnknownKeys};
use super::print_scalars::{print_number, print_string};

/// The `$schema` zod writes at the root of a 2020-12 schema (the projections' canonical draft).
pub use abgen_runtime::schema_profile::DRAFT_2020_12;

/// A schema zod cannot print on this side either (it throws); the caller falls back to run time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unrepresentable {
    /// What has no JSON Schema form, as a user reads it (`a transform's output`).
    pub construct: &'static str,
}

/// Prints `schema` for `io` as zod does, `$schema` included.
pub fn print_2020_12(schema: &Schema, io: Io) -> Result<Value, Unrepresentable> {
    let mut printed = print_node(schema, io)?;
    printed.insert("$schema".to_owned(), json!(DRAFT_2020_12));
    printed.sort_keys();
    Ok(Value::Object(printed))
}

/// Prints one node without `$schema`.
pub fn print_node(schema: &Schema, io: Io) -> Result<Map<String, Value>, Unrepresentable> {
    crate::stack::recurse(|| print_node_here(schema, io))
}

fn print_node_here(schema: &Schema, io: Io) -> Result<Map<String, Value>, Unrepresentable> {
    let mut out = match &schema.kind {
        Kind::Any | Kind::Unknown => Map::new(),
        Kind::Never => object([("not", json!({}))]),
        Kind::Boolean => object([("type", json!("boolean"))]),
        Kind::Null => object([("type", json!("null"))]),
        Kind::Undefined => {
            return Err(Unrepresentable {
                construct: "`z.undefined()`",
            });
        }
        Kind::String(checks) => print_string(checks),
        Kind::Number { integer, checks } => print_number(*integer, checks),
        Kind::Literal(values) if values.len() == 1 => {
            let mut out = Map::new();
            if let Some(kind) = json_type(&values[0]) {
                out.insert("type".to_owned(), json!(kind));
            }
            out.insert("const".to_owned(), values[0].clone());
            out
        }
        Kind::Literal(values) | Kind::Enum(values) => print_enum(values),
        Kind::Object(shape) => print_object(shape, io)?,
        Kind::Array { item, checks } => print_array(item, checks, io)?,
        Kind::Tuple { items, rest } => print_tuple(items, rest.as_deref(), io)?,
        Kind::Union {
            options,
            discriminated,
        } => {
            let printed = options
                .iter()
                .map(|option| print_node(option, io))
                .collect::<Result<Vec<_>, _>>()?;
            if *discriminated {
                object([(
                    "oneOf",
                    Value::Array(printed.into_iter().map(Value::Object).collect()),
                )])
            } else {
                any_of(printed)
            }
        }
        Kind::Intersection(left, right) => {
            let left = print_node(left, io)?;
            let right = print_node(right, io)?;
            merge_objects(&left, &right).unwrap_or_else(|| {
                object([("allOf", json!([Value::Object(left), Value::Object(right)]))])
            })
        }
        Kind::Record { key, value } => print_record(key, value, io)?,
        Kind::Optional(inner) | Kind::NonOptional(inner) => print_node(inner, io)?,
        Kind::Nullable(inner) => {
            let inner = print_node(inner, io)?;
            any_of(vec![inner, object([("type", json!("null"))])])
        }
        Kind::Default(inner, value) | Kind::Catch(inner, value) => {
            let mut out = print_node(inner, io)?;
            out.insert("default".to_owned(), Value::clone(value));
            out
        }
        Kind::Readonly(inner) => {
            let mut out = print_node(inner, io)?;
            out.insert("readOnly".to_owned(), json!(true));
            out
        }
        Kind::Transform(inner) => match io {
            Io::Input => print_node(inner, io)?,
            Io::Output => {
                return Err(Unrepresentable {
                    construct: "a transform's output",
                });
            }
        },
    };
    for (key, value) in schema.meta.iter() {
        out.insert(key.clone(), value.clone());
    }
    // Keywords in key order, the order the canonical writer puts them in: a form written as it
    // comes, not reordered (a schema's `properties` keep theirs: they are another map). Most
    // nodes come in that order already (each printer inserts its keywords so), and sorting
    // would rebuild the map's index for nothing.
    if !out.keys().is_sorted() {
        out.sort_keys();
    }
    Ok(out)
}

fn object<const N: usize>(entries: [(&str, Value); N]) -> Map<String, Value> {
    entries
        .into_iter()
        .map(|(key, value)| (key.to_owned(), value))
        .collect()
}

/// The JSON Schema type of a literal value (`None` for values JSON has no single type for).
fn json_type(value: &Value) -> Option<&'static str> {
    match value {
        Value::String(_) => Some("string"),
        Value::Number(_) => Some("number"),
        Value::Bool(_) => Some("boolean"),
        Value::Null => Some("null"),
        _ => None,
    }
}

fn print_enum(values: &[Value]) -> Map<String, Value> {
    let mut out = Map::new();
    let types: Vec<Option<&str>> = values.iter().map(json_type).collect();
    if let Some(first) = types.first().copied().flatten()
        && first != "null"
        && types.iter().all(|kind| *kind == Some(first))
    {
        out.insert("type".to_owned(), json!(first));
    }
    out.insert("enum".to_owned(), Value::Array(values.to_vec()));
    out
}

/// `anyOf` of the options, or one type list when every option is a bare `{type}` (zod's
/// collapse: `union([string, number])` → `type: ["string", "number"]`).
fn any_of(options: Vec<Map<String, Value>>) -> Map<String, Value> {
    let bare_types: Option<Vec<Value>> = options
        .iter()
        .map(|option| match (option.len(), option.get("type")) {
            (1, Some(Value::String(kind))) => Some(vec![json!(kind)]),
            (1, Some(Value::Array(kinds))) => Some(kinds.clone()),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()
        .map(|lists| lists.into_iter().flatten().collect());
    match bare_types {
        Some(kinds) if !options.is_empty() => {
            let mut unique: Vec<Value> = Vec::new();
            for kind in kinds {
                if !unique.contains(&kind) {
                    unique.push(kind);
                }
            }
            let kind = match unique.len() {
                1 => unique.remove(0),
                _ => Value::Array(unique),
            };
            object([("type", kind)])
        }
        _ => object([(
            "anyOf",
            Value::Array(options.into_iter().map(Value::Object).collect()),
        )]),
    }
}

fn print_object(shape: &ObjectShape, io: Io) -> Result<Map<String, Value>, Unrepresentable> {
    let mut properties = Map::with_capacity(shape.properties.len());
    let mut required = Vec::new();
    for (name, schema) in &shape.properties {
        properties.insert(name.clone(), Value::Object(print_node(schema, io)?));
        if !schema.is_optional(io) {
            required.push(json!(name));
        }
    }
    let additional = match (&shape.unknown_keys, io) {
        (UnknownKeys::Strip, Io::Input) => None,
        (UnknownKeys::Strip | UnknownKeys::Strict, _) => Some(json!(false)),
        (UnknownKeys::Passthrough, _) => Some(json!({})),
        (UnknownKeys::Catchall(schema), _) => Some(Value::Object(print_node(schema, io)?)),
    };
    // In key order.
    let mut out = Map::with_capacity(4);
    if let Some(additional) = additional {
        out.insert("additionalProperties".to_owned(), additional);
    }
    out.insert("properties".to_owned(), Value::Object(properties));
    if !required.is_empty() {
        out.insert("required".to_owned(), Value::Array(required));
    }
    out.insert("type".to_owned(), json!("object"));
    Ok(out)
}

fn print_array(
    item: &Schema,
    checks: &[LengthCheck],
    io: Io,
) -> Result<Map<String, Value>, Unrepresentable> {
    let mut min: Option<u64> = None;
    let mut max: Option<u64> = None;
    for check in checks {
        match *check {
            LengthCheck::Min(n) => min = Some(min.map_or(n, |m| m.max(n))),
            LengthCheck::Max(n) => max = Some(max.map_or(n, |m| m.min(n))),
            LengthCheck::Exact(n) => {
                min = Some(min.map_or(n, |m| m.max(n)));
                max = Some(max.map_or(n, |m| m.min(n)));
            }
        }
    }
    // In key order.
    let mut out = Map::with_capacity(4);
    out.insert("items".to_owned(), Value::Object(print_node(item, io)?));
    if let Some(max) = max {
        out.insert("maxItems".to_owned(), json!(max));
    }
    if let Some(min) = min {
        out.insert("minItems".to_owned(), json!(min));
    }
    out.insert("type".to_owned(), json!("array"));
    Ok(out)
}

fn print_tuple(
    items: &[Schema],
    rest: Option<&Schema>,
    io: Io,
) -> Result<Map<String, Value>, Unrepresentable> {
    let prefix = items
        .iter()
        .map(|item| print_node(item, io).map(Value::Object))
        .collect::<Result<Vec<_>, _>>()?;
    let mut out = object([("type", json!("array"))]);
    // zod writes `prefixItems: []` for `z.tuple([])`, which the 2020-12 meta-schema refuses
    // (`prefixItems` needs at least one schema); listed in `DIFFERENCES_FROM_ZOD`.
    if !prefix.is_empty() {
        out.insert("prefixItems".to_owned(), Value::Array(prefix));
    }
    let rest = match rest {
        Some(rest) => Value::Object(print_node(rest, io)?),
        None => json!(false),
    };
    out.insert("items".to_owned(), rest.clone());
    let required = items
        .iter()
        .rposition(|item| !item.is_optional(io))
        .map_or(0, |last| last + 1);
    if required > 0 {
        out.insert("minItems".to_owned(), json!(required));
    }
    if rest == json!(false) {
        out.insert("maxItems".to_owned(), json!(items.len()));
    }
    Ok(out)
}

fn print_record(
    key: &Schema,
    value: &Schema,
    io: Io,
) -> Result<Map<String, Value>, Unrepresentable> {
    let mut out = object([
        ("type", json!("object")),
        ("propertyNames", Value::Object(print_node(key, io)?)),
        (
            "additionalProperties",
            Value::Object(print_node(value, io)?),
        ),
    ]);
    // Enumerated keys are each required, unless an input value may be left out.
    let keys = match &key.unwrapped().kind {
        Kind::Enum(values) | Kind::Literal(values) => Some(values),
        _ => None,
    };
    if let Some(keys) = keys
        && !(io == Io::Input && value.is_optional(io))
    {
        out.insert("required".to_owned(), Value::Array(keys.clone()));
    }
    Ok(out)
}

/// zod merges an intersection of two plain objects into one object; anything else stays
/// `allOf`. A property both sides declare becomes `allOf` of the two.
fn merge_objects(
    left: &Map<String, Value>,
    right: &Map<String, Value>,
) -> Option<Map<String, Value>> {
    const PLAIN: [&str; 4] = ["type", "properties", "required", "additionalProperties"];
    let plain = |side: &Map<String, Value>| {
        side.get("type") == Some(&json!("object"))
            && side.contains_key("properties")
            && side.keys().all(|key| PLAIN.contains(&key.as_str()))
    };
    if !plain(left) || !plain(right) {
        return None;
    }
    let mut properties = left.get("properties")?.as_object()?.clone();
    for (name, schema) in right.get("properties")?.as_object()? {
        let merged = match properties.get(name) {
            Some(existing) => json!({ "allOf": [existing, schema] }),
            None => schema.clone(),
        };
        properties.insert(name.clone(), merged);
    }
    let mut required: Vec<Value> = Vec::new();
    for side in [left, right] {
        for name in side
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if !required.contains(name) {
                required.push(name.clone());
            }
        }
    }
    let mut out = object([
        ("type", json!("object")),
        ("properties", Value::Object(properties)),
    ]);
    if !required.is_empty() {
        out.insert("required".to_owned(), Value::Array(required));
    }
    if let (Some(a), Some(b)) = (
        left.get("additionalProperties"),
        right.get("additionalProperties"),
    ) && a == b
    {
        out.insert("additionalProperties".to_owned(), a.clone());
    }
    Ok::<_, ()>(out).ok()
}
