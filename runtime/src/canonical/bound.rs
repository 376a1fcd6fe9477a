//! Bounding host-supplied values: long strings are cut (at a character boundary, marked with
//! `…`), long arrays and objects keep their first entries, and nesting past a depth becomes
//! `null`. Entry: [`bound_value`], [`bound_text`]. Invariant: the result is never larger than
//! the input, and every cut is reported, so a route can tell a whole value from a shortened one.

use serde_json::{Map, Value};

/// How much of a value is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// Bytes kept of one string (before the `…` marker).
    pub max_string_bytes: usize,
    /// Entries kept of one array or object.
    pub max_items: usize,
    /// Nesting kept below the value itself.
    pub max_depth: usize,
}

impl Bounds {
    /// Documented payload fields that carry names, ids, paths and short values.
    pub const NATIVE: Bounds = Bounds {
        max_string_bytes: 4 * 1024,
        max_items: 64,
        max_depth: 8,
    };
    /// Payload fields a route asked for by name (`config.native`).
    pub const CONTENT: Bounds = Bounds {
        max_string_bytes: 64 * 1024,
        max_items: 256,
        max_depth: 16,
    };
}

/// `value` within `bounds`, and whether anything was cut.
pub fn bound_value(value: &Value, bounds: &Bounds) -> (Value, bool) {
    let mut truncated = false;
    let bounded = bound_at(value, bounds, 0, &mut truncated);
    (bounded, truncated)
}

/// `text` cut to at most `max_bytes` bytes (plus the `…` marker), and whether it was cut.
pub fn bound_text(text: &str, max_bytes: usize) -> (String, bool) {
    if text.len() <= max_bytes {
        return (text.to_owned(), false);
    }
    let mut end = max_bytes;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (format!("{}…", &text[..end]), true)
}

fn bound_at(value: &Value, bounds: &Bounds, depth: usize, truncated: &mut bool) -> Value {
    match value {
        Value::String(text) => {
            let (text, cut) = bound_text(text, bounds.max_string_bytes);
            *truncated |= cut;
            Value::String(text)
        }
        Value::Array(_) | Value::Object(_) if depth >= bounds.max_depth => {
            *truncated = true;
            Value::Null
        }
        Value::Array(items) => {
            *truncated |= items.len() > bounds.max_items;
            Value::Array(
                items
                    .iter()
                    .take(bounds.max_items)
                    .map(|item| bound_at(item, bounds, depth + 1, truncated))
                    .collect(),
            )
        }
        Value::Object(fields) => {
            *truncated |= fields.len() > bounds.max_items;
            let mut bounded = Map::new();
            for (key, field) in fields.iter().take(bounds.max_items) {
                let (key, cut) = bound_text(key, bounds.max_string_bytes);
                *truncated |= cut;
                bounded.insert(key, bound_at(field, bounds, depth + 1, truncated));
            }
            Value::Object(bounded)
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => value.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const SMALL: Bounds = Bounds {
        max_string_bytes: 4,
        max_items: 2,
        max_depth: 2,
    };

    #[test]
    fn small_values_are_kept_whole() {
        let value = json!({"a": [1, "abc"], "b": null});
        assert_eq!(bound_value(&value, &SMALL), (value, false));
    }

    #[test]
    fn strings_lists_and_depth_are_cut_and_reported() {
        assert_eq!(bound_text("héllo", 2), ("h…".to_owned(), true));
        let value = json!({"a": "abcdef", "b": [1, 2, 3], "c": {"d": {"e": 1}}});
        assert_eq!(
            bound_value(&value, &SMALL),
            (json!({"a": "abcd…", "b": [1, 2]}), true)
        );
        assert_eq!(
            bound_value(&json!({"c": {"d": {"e": 1}}}), &SMALL),
            (json!({"c": {"d": null}}), true)
        );
    }
}
