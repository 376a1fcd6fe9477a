//! What a schema will print, read from the IR without printing it: whether zod can print it
//! at all on a side, and whether its printed root is a plain `type: "object"`. `check` needs
//! only these answers; the JSON itself is printed when the manifest or `abgen schema` asks.
//!
//! Entry calls: [`printable`], [`prints_object_root`]. Invariant: each answer equals the one
//! read from [`super::print::print_2020_12`]'s output (a test compares them on the corpus).

use super::ir::{Io, Kind, Schema, UnknownKeys};
use super::print::Unrepresentable;

/// `Err` exactly when [`super::print::print_2020_12`] fails for `io`.
pub fn printable(schema: &Schema, io: Io) -> Result<(), Unrepresentable> {
    crate::stack::recurse(|| printable_here(schema, io))
}

fn printable_here(schema: &Schema, io: Io) -> Result<(), Unrepresentable> {
    match &schema.kind {
        Kind::Undefined => Err(Unrepresentable {
            construct: "`z.undefined()`",
        }),
        Kind::Transform(_) if io == Io::Output => Err(Unrepresentable {
            construct: "a transform's output",
        }),
        Kind::Any
        | Kind::Unknown
        | Kind::Never
        | Kind::Boolean
        | Kind::Null
        | Kind::String(_)
        | Kind::Number { .. }
        | Kind::Literal(_)
        | Kind::Enum(_) => Ok(()),
        Kind::Object(shape) => {
            for (_, property) in &shape.properties {
                printable(property, io)?;
            }
            match &shape.unknown_keys {
                UnknownKeys::Catchall(rest) => printable(rest, io),
                _ => Ok(()),
            }
        }
        Kind::Array { item, .. } => printable(item, io),
        Kind::Tuple { items, rest } => {
            items.iter().try_for_each(|item| printable(item, io))?;
            rest.as_deref().map_or(Ok(()), |rest| printable(rest, io))
        }
        Kind::Union { options, .. } => options.iter().try_for_each(|option| printable(option, io)),
        Kind::Intersection(left, right)
        | Kind::Record {
            key: left,
            value: right,
        } => {
            printable(left, io)?;
            printable(right, io)
        }
        Kind::Optional(inner)
        | Kind::Nullable(inner)
        | Kind::Default(inner, _)
        | Kind::Catch(inner, _)
        | Kind::Readonly(inner)
        | Kind::NonOptional(inner)
        | Kind::Transform(inner) => printable(inner, io),
    }
}

/// Whether the printed root is `type: "object"` (records, objects, and intersections zod
/// merges into one object).
pub fn prints_object_root(schema: &Schema) -> bool {
    if schema.meta.contains_key("type") {
        return schema.meta.get("type") == Some(&serde_json::json!("object"));
    }
    match &schema.kind {
        Kind::Object(_) | Kind::Record { .. } => true,
        Kind::Intersection(left, right) => merges(left) && merges(right),
        Kind::Optional(inner)
        | Kind::NonOptional(inner)
        | Kind::Default(inner, _)
        | Kind::Catch(inner, _)
        | Kind::Readonly(inner)
        | Kind::Transform(inner) => prints_object_root(inner),
        _ => false,
    }
}

/// Whether zod prints this side of an intersection as a plain object it can merge: an object
/// (or a merged intersection) with no metadata and no wrapper.
fn merges(schema: &Schema) -> bool {
    schema.meta.is_empty()
        && match &schema.kind {
            Kind::Object(_) => true,
            Kind::Intersection(left, right) => merges(left) && merges(right),
            _ => false,
        }
}

/// A keyword a host profile refuses at an input root that metadata (`.meta({...})`) puts on
/// the root of a schema whose root prints as an object.
pub fn root_combinator(schema: &Schema) -> Option<&'static str> {
    const COMBINATORS: [&str; 8] = [
        "anyOf", "oneOf", "allOf", "not", "if", "then", "else", "$ref",
    ];
    let mut node = schema;
    loop {
        if let Some(key) = COMBINATORS.iter().find(|key| node.meta.contains_key(key)) {
            return Some(key);
        }
        node = match &node.kind {
            Kind::Optional(inner)
            | Kind::NonOptional(inner)
            | Kind::Default(inner, _)
            | Kind::Catch(inner, _)
            | Kind::Readonly(inner)
            | Kind::Transform(inner) => inner,
            _ => return None,
        };
    }
}
