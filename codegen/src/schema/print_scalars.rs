//! The bounds zod folds string and number checks into, printed as zod prints them: the
//! tightest length or bound wins, the last format wins (a regex clears it), patterns keep their
//! order without repeats, and of an inclusive and an exclusive bound the tighter one stays.
//!
//! Entry calls: [`print_string`], [`print_number`] (from `print`).

use serde_json::{Map, Value, json};

use super::ir::{NumberCheck, StringCheck};

pub fn print_string(checks: &[StringCheck]) -> Map<String, Value> {
    let mut min: Option<u64> = None;
    let mut max: Option<u64> = None;
    let mut format: Option<&str> = None;
    let mut patterns: Vec<&str> = Vec::new();
    for check in checks {
        match check {
            StringCheck::MinLength(n) => min = Some(min.map_or(*n, |m| m.max(*n))),
            StringCheck::MaxLength(n) => max = Some(max.map_or(*n, |m| m.min(*n))),
            StringCheck::Length(n) => {
                min = Some(min.map_or(*n, |m| m.max(*n)));
                max = Some(max.map_or(*n, |m| m.min(*n)));
            }
            StringCheck::Regex(pattern) => {
                format = Some("");
                push_unique(&mut patterns, pattern);
            }
            StringCheck::Format { name, pattern } => {
                format = Some(name);
                if let Some(pattern) = pattern {
                    push_unique(&mut patterns, pattern);
                }
            }
        }
    }
    // In key order (the order `print` leaves keywords in).
    let mut out = Map::with_capacity(5);
    let (pattern, all_of) = match patterns.as_slice() {
        [] => (None, None),
        [pattern] => (Some(json!(pattern)), None),
        many => {
            let all: Vec<Value> = many.iter().map(|p| json!({ "pattern": p })).collect();
            (None, Some(Value::Array(all)))
        }
    };
    if let Some(all_of) = all_of {
        out.insert("allOf".to_owned(), all_of);
    }
    if let Some(format) = format.filter(|format| !format.is_empty()) {
        out.insert("format".to_owned(), json!(format));
    }
    if let Some(max) = max {
        out.insert("maxLength".to_owned(), json!(max));
    }
    if let Some(min) = min {
        out.insert("minLength".to_owned(), json!(min));
    }
    if let Some(pattern) = pattern {
        out.insert("pattern".to_owned(), pattern);
    }
    out.insert("type".to_owned(), json!("string"));
    out
}

fn push_unique<'a>(patterns: &mut Vec<&'a str>, pattern: &'a str) {
    if !patterns.contains(&pattern) {
        patterns.push(pattern);
    }
}

/// zod's safe-integer bounds, which `z.int()` and `.int()` add as inclusive checks.
pub const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

pub fn print_number(integer: bool, checks: &[NumberCheck]) -> Map<String, Value> {
    let mut minimum: Option<f64> = None;
    let mut exclusive_minimum: Option<f64> = None;
    let mut maximum: Option<f64> = None;
    let mut exclusive_maximum: Option<f64> = None;
    let mut multiple_of: Option<&Value> = None;
    for check in checks {
        match check {
            NumberCheck::Min { value, inclusive } => {
                let slot = if *inclusive {
                    &mut minimum
                } else {
                    &mut exclusive_minimum
                };
                *slot = Some(slot.map_or(*value, |current| current.max(*value)));
            }
            NumberCheck::Max { value, inclusive } => {
                let slot = if *inclusive {
                    &mut maximum
                } else {
                    &mut exclusive_maximum
                };
                *slot = Some(slot.map_or(*value, |current| current.min(*value)));
            }
            NumberCheck::MultipleOf(value) => multiple_of = Some(value),
        }
    }
    // Of an inclusive and an exclusive bound, zod keeps the tighter one.
    if let (Some(inclusive), Some(exclusive)) = (minimum, exclusive_minimum) {
        if exclusive >= inclusive {
            minimum = None;
        } else {
            exclusive_minimum = None;
        }
    }
    if let (Some(inclusive), Some(exclusive)) = (maximum, exclusive_maximum) {
        if exclusive <= inclusive {
            maximum = None;
        } else {
            exclusive_maximum = None;
        }
    }
    let kind = if integer { "integer" } else { "number" };
    // In key order (the order `print` leaves keywords in).
    let mut out = Map::with_capacity(4);
    for (key, bound) in [
        ("exclusiveMaximum", exclusive_maximum),
        ("exclusiveMinimum", exclusive_minimum),
        ("maximum", maximum),
        ("minimum", minimum),
    ] {
        if let Some(bound) = bound {
            out.insert(key.to_owned(), number(bound));
        }
    }
    if let Some(value) = multiple_of {
        out.insert("multipleOf".to_owned(), value.clone());
    }
    out.insert("type".to_owned(), json!(kind));
    out
}

/// A bound as JSON: integral values as integers, as JavaScript prints them.
pub fn number(value: f64) -> Value {
    if value.fract() == 0.0 && value.abs() <= MAX_SAFE_INTEGER {
        json!(value as i64)
    } else {
        json!(value)
    }
}
