//! `$` escapes and values: what a Flight model string means, and JSON values for the document.
//!
//! Entry: [`parse_escape`] and `SnapshotBuilder::value`. Conversions follow ARCHITECTURE.md §7:
//! Map → object (string keys only), Set → array, Date → ISO string, BigInt → decimal string,
//! undefined → omitted (null inside arrays, as `JSON.stringify` does), bytes → base64.
//! Invariant: a pending chunk inside a value marks the enclosing region pending, never guesses.

use serde_json::{Map, Number, Value};

use super::chunks::Chunk;
use super::error::FlightError;
use super::model::Model;
use super::snapshot::SnapshotBuilder;

/// The meaning of a model string that starts with `$`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Escape<'s> {
    /// `"$"`: the element marker of an element tuple.
    ElementMarker,
    /// `"$$…"`: a literal string starting with `$` (the escaping `$` removed).
    Literal(&'s str),
    /// `"$<hex>"` or `"$<hex>:a:b"`: the value of a chunk, then a property path.
    Chunk {
        id: u32,
        path: Option<&'s str>,
    },
    /// `"$L<hex>"` (lazy) or `"$@<hex>"` (promise): a chunk that may not have arrived yet.
    Lazy(u32),
    /// `"$S<name>"`: `Symbol.for(name)`.
    Symbol(&'s str),
    Map(u32),
    Set(u32),
    Date(&'s str),
    BigInt(&'s str),
    Undefined,
    /// `NaN`, `±Infinity`: JSON has no such numbers.
    NonFinite,
    NegativeZero,
    /// Any other escape (server references, blobs, errors, iterators, dev-only forms).
    Unsupported(&'s str),
}

/// Reads `text` as a `$` escape; `None` when it is a plain string.
pub fn parse_escape(text: &str) -> Option<Escape<'_>> {
    let rest = text.strip_prefix('$')?;
    let hex = |digits: &str| u32::from_str_radix(digits, 16).ok();
    let escape = match rest.as_bytes().first() {
        None => Escape::ElementMarker,
        Some(b'$') => Escape::Literal(rest),
        Some(b'L' | b'@') => hex(&rest[1..]).map_or(Escape::Unsupported(text), Escape::Lazy),
        Some(b'S') => Escape::Symbol(&rest[1..]),
        Some(b'Q') => hex(&rest[1..]).map_or(Escape::Unsupported(text), Escape::Map),
        Some(b'W') => hex(&rest[1..]).map_or(Escape::Unsupported(text), Escape::Set),
        Some(b'D') => Escape::Date(&rest[1..]),
        Some(b'n') => Escape::BigInt(&rest[1..]),
        Some(b'u') if rest == "undefined" => Escape::Undefined,
        Some(b'N') if rest == "NaN" => Escape::NonFinite,
        Some(b'I') if rest == "Infinity" => Escape::NonFinite,
        Some(b'-') if rest == "-Infinity" => Escape::NonFinite,
        Some(b'-') if rest == "-0" => Escape::NegativeZero,
        Some(b'0'..=b'9' | b'a'..=b'f') => {
            let (digits, path) = match rest.split_once(':') {
                Some((digits, path)) => (digits, Some(path)),
                None => (rest, None),
            };
            hex(digits).map_or(Escape::Unsupported(text), |id| Escape::Chunk { id, path })
        }
        Some(_) => Escape::Unsupported(text),
    };
    Some(escape)
}

/// Whether `items` is a React element tuple (`["$", type, key, props]`).
pub fn is_element(items: &[Model]) -> bool {
    items.first().and_then(Model::as_str) == Some("$")
}

impl<'a> SnapshotBuilder<'a> {
    /// Converts a model value to document JSON; `None` means undefined (omitted).
    pub fn value(&mut self, model: &'a Model, depth: usize) -> Result<Option<Value>, FlightError> {
        self.count_node(depth)?;
        Ok(Some(match model {
            Model::String(text) => match parse_escape(text) {
                None => Value::String(String::from(&**text)),
                Some(escape) => return self.escaped_value(escape, text, depth),
            },
            Model::Array(items) => {
                if is_element(items) {
                    return Err(FlightError::Unsupported(
                        "a React element inside a value: values hold data, put elements in the document".into(),
                    ));
                }
                let mut array = Vec::with_capacity(items.len());
                for item in items {
                    array.push(self.value(item, depth + 1)?.unwrap_or(Value::Null));
                }
                Value::Array(array)
            }
            Model::Object(fields) => {
                let mut object = Map::with_capacity(fields.len());
                for (key, field) in fields.iter() {
                    if key == "__proto__" {
                        continue;
                    }
                    if let Some(converted) = self.value(field, depth + 1)? {
                        object.insert(key.to_owned(), converted);
                    }
                }
                Value::Object(object)
            }
            Model::Null => Value::Null,
            Model::Bool(value) => Value::Bool(*value),
            Model::Number(number) => Value::Number(number.clone()),
        }))
    }

    fn escaped_value(
        &mut self,
        escape: Escape<'a>,
        text: &str,
        depth: usize,
    ) -> Result<Option<Value>, FlightError> {
        let value = match escape {
            Escape::Literal(literal) => Value::String(literal.to_owned()),
            Escape::Undefined => return Ok(None),
            Escape::NonFinite => Value::Null,
            Escape::NegativeZero => Value::Number(Number::from(0)),
            Escape::Date(iso) => Value::String(iso.to_owned()),
            Escape::BigInt(digits) => Value::String(digits.to_owned()),
            Escape::Chunk { id, path: None } | Escape::Lazy(id) => match self.chunk(id) {
                None => Value::Null,
                Some(Chunk::Model(model)) => return self.value(model, depth + 1),
                Some(Chunk::Text(text)) => Value::String(text.clone()),
                Some(Chunk::Bytes(base64)) => Value::String(base64.clone()),
                Some(Chunk::Error(error)) => {
                    self.region_error(error.clone());
                    Value::Null
                }
                Some(Chunk::Stream(_)) => {
                    return Err(FlightError::Unsupported(format!(
                        "value `{text}` is a stream, which a document cannot hold"
                    )));
                }
            },
            Escape::Chunk {
                id,
                path: Some(path),
            } => match self.follow_path(id, path)? {
                Some(model) => return self.value(model, depth + 1),
                None => Value::Null,
            },
            Escape::Map(id) => match self.chunk(id) {
                None => Value::Null,
                Some(Chunk::Model(Model::Array(entries))) => {
                    let mut object = Map::with_capacity(entries.len());
                    for entry in entries {
                        let pair = match entry {
                            Model::Array(pair) if pair.len() == 2 => Some(pair),
                            _ => None,
                        }
                        .ok_or_else(|| {
                            FlightError::Malformed(format!(
                                "Map row {id:x} holds an entry that is not a pair"
                            ))
                        })?;
                        let key = match self.value(&pair[0], depth + 1)? {
                            Some(Value::String(key)) => key,
                            other => {
                                return Err(FlightError::Unsupported(format!(
                                    "a Map with the key {} cannot become a JSON object (string keys only)",
                                    other.map_or_else(
                                        || "undefined".to_owned(),
                                        |key| key.to_string()
                                    )
                                )));
                            }
                        };
                        if let Some(value) = self.value(&pair[1], depth + 1)? {
                            object.insert(key, value);
                        }
                    }
                    Value::Object(object)
                }
                Some(_) => {
                    return Err(FlightError::Malformed(format!(
                        "Map row {id:x} is not a list of entries"
                    )));
                }
            },
            Escape::Set(id) => match self.chunk(id) {
                None => Value::Null,
                Some(Chunk::Model(Model::Array(items))) => {
                    let mut array = Vec::with_capacity(items.len());
                    for item in items {
                        array.push(self.value(item, depth + 1)?.unwrap_or(Value::Null));
                    }
                    Value::Array(array)
                }
                Some(_) => {
                    return Err(FlightError::Malformed(format!(
                        "Set row {id:x} is not a list"
                    )));
                }
            },
            Escape::ElementMarker | Escape::Symbol(_) | Escape::Unsupported(_) => {
                return Err(FlightError::Unsupported(format!(
                    "the Flight value `{}` (a symbol, function, Error object or stream) cannot become JSON",
                    truncate(text)
                )));
            }
        };
        Ok(Some(value))
    }

    /// Resolves `"$<id>:a:b"`: the chunk's model, then each property (`type`, `key`, `props` name
    /// element tuple slots), following chunk references met on the way.
    pub fn follow_path(&mut self, id: u32, path: &str) -> Result<Option<&'a Model>, FlightError> {
        let Some(mut current) = self.model_chunk(id)? else {
            self.wanted_by_path(id);
            return Ok(None);
        };
        for segment in path.split(':') {
            if let Model::String(text) = current
                && let Some(Escape::Chunk { id, path: None } | Escape::Lazy(id)) =
                    parse_escape(text)
            {
                let Some(model) = self.model_chunk(id)? else {
                    self.wanted_by_path(id);
                    return Ok(None);
                };
                current = model;
            }
            let next = match current {
                Model::Array(items) if is_element(items) => match segment {
                    "type" => items.get(1),
                    "key" => items.get(2),
                    "props" => items.get(3),
                    _ => None,
                },
                Model::Array(items) => segment
                    .parse::<usize>()
                    .ok()
                    .and_then(|index| items.get(index)),
                Model::Object(fields) => fields.get(segment),
                _ => None,
            };
            current = next.ok_or_else(|| {
                FlightError::Malformed(format!(
                    "the path reference `${id:x}:{path}` does not lead to a value"
                ))
            })?;
        }
        Ok(Some(current))
    }

    fn model_chunk(&mut self, id: u32) -> Result<Option<&'a Model>, FlightError> {
        match self.chunk(id) {
            None => Ok(None),
            Some(Chunk::Model(model)) => Ok(Some(model)),
            Some(Chunk::Error(error)) => {
                self.region_error(error.clone());
                Ok(None)
            }
            Some(_) => Err(FlightError::Malformed(format!(
                "row {id:x} is referenced as a model but is not one"
            ))),
        }
    }
}

/// At most 60 characters of a model string, for error messages.
pub fn truncate(text: &str) -> String {
    match text.char_indices().nth(60) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_are_recognised() {
        assert_eq!(parse_escape("plain"), None);
        assert_eq!(parse_escape("$"), Some(Escape::ElementMarker));
        assert_eq!(parse_escape("$$5"), Some(Escape::Literal("$5")));
        assert_eq!(parse_escape("$$"), Some(Escape::Literal("$")));
        assert_eq!(parse_escape("$L1f"), Some(Escape::Lazy(0x1f)));
        assert_eq!(parse_escape("$@2"), Some(Escape::Lazy(2)));
        assert_eq!(
            parse_escape("$3:props:children"),
            Some(Escape::Chunk {
                id: 3,
                path: Some("props:children")
            })
        );
        assert_eq!(
            parse_escape("$Sreact.suspense"),
            Some(Escape::Symbol("react.suspense"))
        );
        assert_eq!(parse_escape("$undefined"), Some(Escape::Undefined));
        assert_eq!(parse_escape("$-0"), Some(Escape::NegativeZero));
        assert_eq!(parse_escape("$-Infinity"), Some(Escape::NonFinite));
        assert_eq!(parse_escape("$h4"), Some(Escape::Unsupported("$h4")));
        assert_eq!(parse_escape("$Lzz"), Some(Escape::Unsupported("$Lzz")));
    }
}
