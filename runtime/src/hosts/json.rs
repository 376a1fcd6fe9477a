//! Reading a hook payload's JSON without a recursion limit and without refusing text that the
//! hosts' own JavaScript accepts.
//!
//! Entry: [`read_payload`]. serde_json refuses nesting deeper than 128 levels and lone UTF-16
//! surrogate escapes (`"\ud800"`), both of which `JSON.parse` accepts and a host can send. This
//! reader is iterative (an explicit stack, so no input can overflow the thread's stack), keeps
//! values down to a depth limit and replaces anything deeper with `null`, reads a lone surrogate
//! as U+FFFD, and reports per top-level field whether either happened, so the decoder can mark
//! the canonical field instead of dropping the payload. Invariant: it accepts exactly RFC 8259
//! JSON (plus lone surrogate escapes) and never panics; bytes that are not UTF-8 are an error.

use std::collections::BTreeSet;

use serde_json::{Map, Number, Value};

/// A payload read by [`read_payload`].
#[derive(Debug)]
pub struct Payload {
    pub value: Value,
    /// Top-level fields (of an object payload) with a value nested deeper than the limit, cut.
    pub cut: BTreeSet<String>,
    /// Top-level fields holding a lone surrogate escape, read as U+FFFD.
    pub lossy: BTreeSet<String>,
}

/// Why the bytes are not a JSON payload.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JsonError {
    #[error("the payload is not UTF-8 (byte {offset})")]
    NotUtf8 { offset: usize },
    #[error("{problem} at line {line} column {column}")]
    Syntax {
        problem: &'static str,
        line: usize,
        column: usize,
    },
}

/// Reads `bytes` as one JSON value, keeping containers down to `max_depth` levels below the top
/// (the top-level value is depth 0); deeper ones become `null`.
pub fn read_payload(bytes: &[u8], max_depth: usize) -> Result<Payload, JsonError> {
    let text = std::str::from_utf8(bytes).map_err(|error| JsonError::NotUtf8 {
        offset: error.valid_up_to(),
    })?;
    Reader {
        text,
        bytes: text.as_bytes(),
        at: 0,
        max_depth,
        cut: BTreeSet::new(),
        lossy: BTreeSet::new(),
        top_key: None,
    }
    .read()
}

/// A container being read and kept.
enum Frame {
    Array(Vec<Value>),
    /// The object so far and the key whose value comes next.
    Object(Map<String, Value>, Option<String>),
}

struct Reader<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
    max_depth: usize,
    cut: BTreeSet<String>,
    lossy: BTreeSet<String>,
    /// The top-level field whose value is being read.
    top_key: Option<String>,
}

/// The containers open at the reader's position: those kept, then those deeper than the limit
/// (read to their end and kept as one `null`; only whether each is an object is remembered, so a
/// million levels cost a million bytes).
#[derive(Default)]
struct Open {
    kept: Vec<Frame>,
    skipped: Vec<bool>,
}

impl Open {
    fn is_empty(&self) -> bool {
        self.kept.is_empty() && self.skipped.is_empty()
    }

    /// Whether the innermost open container is an object.
    fn innermost_is_object(&self) -> Option<bool> {
        match (self.skipped.last(), self.kept.last()) {
            (Some(object), _) => Some(*object),
            (None, Some(Frame::Object(..))) => Some(true),
            (None, Some(Frame::Array(_))) => Some(false),
            (None, None) => None,
        }
    }

    /// Adds a completed value to the innermost container (dropped inside a skipped one).
    fn attach(&mut self, value: Value) {
        if !self.skipped.is_empty() {
            return;
        }
        match self.kept.last_mut() {
            Some(Frame::Array(items)) => items.push(value),
            Some(Frame::Object(fields, key)) => {
                if let Some(key) = key.take() {
                    fields.insert(key, value);
                }
            }
            None => {}
        }
    }

    /// Closes the innermost container and returns its value.
    fn close(&mut self) -> Value {
        if self.skipped.pop().is_some() {
            return Value::Null;
        }
        match self.kept.pop() {
            Some(Frame::Array(items)) => Value::Array(items),
            Some(Frame::Object(fields, _)) => Value::Object(fields),
            None => Value::Null,
        }
    }

    /// Whether the innermost open container is the top-level object.
    fn at_top_level_object(&self) -> bool {
        self.skipped.is_empty() && matches!(self.kept.as_slice(), [Frame::Object(..)])
    }
}

impl Reader<'_> {
    fn read(mut self) -> Result<Payload, JsonError> {
        let mut open = Open::default();
        loop {
            // Read one value, or open a container.
            self.skip_whitespace();
            let Some(&byte) = self.bytes.get(self.at) else {
                return Err(self.error(if open.is_empty() && self.at == 0 {
                    "the payload is empty"
                } else {
                    "unexpected end of the payload"
                }));
            };
            // A completed value waiting to be attached to the innermost open container.
            let mut done = match byte {
                b'{' | b'[' => {
                    self.at += 1;
                    let object = byte == b'{';
                    if !open.skipped.is_empty() || open.kept.len() > self.max_depth {
                        if open.skipped.is_empty() {
                            self.note_cut();
                        }
                        open.skipped.push(object);
                    } else if object {
                        open.kept.push(Frame::Object(Map::new(), None));
                    } else {
                        open.kept.push(Frame::Array(Vec::new()));
                    }
                    self.skip_whitespace();
                    let close = if object { b'}' } else { b']' };
                    if self.bytes.get(self.at) == Some(&close) {
                        self.at += 1;
                        Some(open.close())
                    } else {
                        if object {
                            self.read_key(&mut open)?;
                        }
                        None
                    }
                }
                b'"' => Some(Value::String(self.read_string()?)),
                b't' => Some(self.read_literal("true", Value::Bool(true))?),
                b'f' => Some(self.read_literal("false", Value::Bool(false))?),
                b'n' => Some(self.read_literal("null", Value::Null)?),
                b'-' | b'0'..=b'9' => Some(Value::Number(self.read_number()?)),
                _ => return Err(self.error("expected a value")),
            };
            // Attach completed values and close containers until one expects another value.
            while let Some(value) = done.take() {
                let Some(object) = open.innermost_is_object() else {
                    self.skip_whitespace();
                    if self.at != self.bytes.len() {
                        return Err(self.error("trailing characters after the payload"));
                    }
                    return Ok(Payload {
                        value,
                        cut: self.cut,
                        lossy: self.lossy,
                    });
                };
                open.attach(value);
                self.skip_whitespace();
                match self.bytes.get(self.at) {
                    Some(b',') => {
                        self.at += 1;
                        if object {
                            self.read_key(&mut open)?;
                        }
                    }
                    Some(b'}') if object => {
                        self.at += 1;
                        done = Some(open.close());
                    }
                    Some(b']') if !object => {
                        self.at += 1;
                        done = Some(open.close());
                    }
                    _ => {
                        return Err(self.error(if object {
                            "expected `,` or `}`"
                        } else {
                            "expected `,` or `]`"
                        }));
                    }
                }
            }
        }
    }

    /// Reads `"key":` for the innermost open object.
    fn read_key(&mut self, open: &mut Open) -> Result<(), JsonError> {
        self.skip_whitespace();
        if self.bytes.get(self.at) != Some(&b'"') {
            return Err(self.error("expected a field name"));
        }
        let top_level = open.at_top_level_object();
        if top_level {
            self.top_key = None;
        }
        let key = self.read_string()?;
        self.skip_whitespace();
        if self.bytes.get(self.at) != Some(&b':') {
            return Err(self.error("expected `:`"));
        }
        self.at += 1;
        if top_level {
            self.top_key = Some(key.clone());
        }
        if open.skipped.is_empty()
            && let Some(Frame::Object(_, pending)) = open.kept.last_mut()
        {
            *pending = Some(key);
        }
        Ok(())
    }

    fn note_cut(&mut self) {
        if let Some(key) = &self.top_key {
            self.cut.insert(key.clone());
        }
    }

    fn note_lossy(&mut self) {
        if let Some(key) = &self.top_key {
            self.lossy.insert(key.clone());
        }
    }

    fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.at) {
            self.at += 1;
        }
    }

    fn read_literal(&mut self, word: &'static str, value: Value) -> Result<Value, JsonError> {
        if self.bytes[self.at..].starts_with(word.as_bytes()) {
            self.at += word.len();
            Ok(value)
        } else {
            Err(self.error("expected a value"))
        }
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, as serde_json reads it.
    fn read_number(&mut self) -> Result<Number, JsonError> {
        let start = self.at;
        let digits = |reader: &mut Self| {
            let from = reader.at;
            while reader.bytes.get(reader.at).is_some_and(u8::is_ascii_digit) {
                reader.at += 1;
            }
            reader.at > from
        };
        if self.bytes.get(self.at) == Some(&b'-') {
            self.at += 1;
        }
        match self.bytes.get(self.at) {
            Some(b'0') => self.at += 1,
            Some(b'1'..=b'9') => {
                digits(self);
            }
            _ => return Err(self.error("invalid number")),
        }
        if self.bytes.get(self.at) == Some(&b'.') {
            self.at += 1;
            if !digits(self) {
                return Err(self.error("invalid number"));
            }
        }
        if let Some(b'e' | b'E') = self.bytes.get(self.at) {
            self.at += 1;
            if let Some(b'+' | b'-') = self.bytes.get(self.at) {
                self.at += 1;
            }
            if !digits(self) {
                return Err(self.error("invalid number"));
            }
        }
        self.text[start..self.at]
            .parse::<Number>()
            .map_err(|_| self.error_at(start, "number out of range"))
    }

    /// A string starting at the opening quote; a lone surrogate escape becomes U+FFFD.
    fn read_string(&mut self) -> Result<String, JsonError> {
        self.at += 1;
        let mut text = String::new();
        loop {
            let run_start = self.at;
            while let Some(&byte) = self.bytes.get(self.at) {
                if byte == b'"' || byte == b'\\' || byte < 0x20 {
                    break;
                }
                self.at += 1;
            }
            // Only ASCII bytes stop the run, so both ends are character boundaries.
            text.push_str(&self.text[run_start..self.at]);
            match self.bytes.get(self.at) {
                Some(b'"') => {
                    self.at += 1;
                    return Ok(text);
                }
                Some(b'\\') => {
                    self.at += 1;
                    self.read_escape(&mut text)?;
                }
                Some(_) => return Err(self.error("control character in a string")),
                None => return Err(self.error("unterminated string")),
            }
        }
    }

    fn read_escape(&mut self, text: &mut String) -> Result<(), JsonError> {
        let Some(&byte) = self.bytes.get(self.at) else {
            return Err(self.error("unterminated string"));
        };
        self.at += 1;
        let character = match byte {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let unit = self.read_hex()?;
                match unit {
                    0xD800..=0xDBFF => {
                        let low = self.bytes[self.at..].starts_with(b"\\u") && {
                            let saved = self.at;
                            self.at += 2;
                            match self.read_hex() {
                                Ok(low @ 0xDC00..=0xDFFF) => {
                                    let code = 0x10000
                                        + ((u32::from(unit) - 0xD800) << 10)
                                        + (u32::from(low) - 0xDC00);
                                    text.push(char::from_u32(code).unwrap_or('\u{FFFD}'));
                                    true
                                }
                                // Not a low surrogate: read it again as its own escape.
                                _ => {
                                    self.at = saved;
                                    false
                                }
                            }
                        };
                        if low {
                            return Ok(());
                        }
                        self.note_lossy();
                        '\u{FFFD}'
                    }
                    0xDC00..=0xDFFF => {
                        self.note_lossy();
                        '\u{FFFD}'
                    }
                    unit => char::from_u32(u32::from(unit)).unwrap_or('\u{FFFD}'),
                }
            }
            _ => return Err(self.error_at(self.at - 1, "invalid escape")),
        };
        text.push(character);
        Ok(())
    }

    fn read_hex(&mut self) -> Result<u16, JsonError> {
        let digits = self
            .bytes
            .get(self.at..self.at + 4)
            .and_then(|digits| std::str::from_utf8(digits).ok())
            .filter(|digits| digits.bytes().all(|byte| byte.is_ascii_hexdigit()))
            .and_then(|digits| u16::from_str_radix(digits, 16).ok())
            .ok_or_else(|| self.error("invalid \\u escape"))?;
        self.at += 4;
        Ok(digits)
    }

    fn error(&self, problem: &'static str) -> JsonError {
        self.error_at(self.at, problem)
    }

    fn error_at(&self, offset: usize, problem: &'static str) -> JsonError {
        let before = &self.bytes[..offset.min(self.bytes.len())];
        let line = before.iter().filter(|byte| **byte == b'\n').count() + 1;
        let line_start = before
            .iter()
            .rposition(|byte| *byte == b'\n')
            .map_or(0, |index| index + 1);
        let column = self
            .text
            .get(line_start..offset.min(self.text.len()))
            .map_or(0, |text| text.chars().count())
            + 1;
        JsonError::Syntax {
            problem,
            line,
            column,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(text: &str) -> Result<Payload, JsonError> {
        read_payload(text.as_bytes(), 4)
    }

    #[test]
    fn reads_what_serde_json_reads() {
        for text in [
            r#"{"a":[1,-2.5e3,true,false,null,"x\n\u00e9\"\\\/"],"b":{},"c":[],"d":{"e":0}}"#,
            " [ 1 , { \"k\" : [ ] } ] ",
            "\"only\"",
            "0",
            r#"{"dup":1,"dup":2}"#,
            r#"{"emoji":"\ud83d\ude00 ü"}"#,
        ] {
            let expected: Value = serde_json::from_str(text).unwrap();
            let payload = read(text).unwrap();
            assert_eq!(payload.value, expected, "{text}");
            assert!(payload.cut.is_empty() && payload.lossy.is_empty());
        }
    }

    #[test]
    fn refuses_what_json_refuses() {
        for text in [
            "",
            "{",
            "[1,]",
            "{\"a\" 1}",
            "01",
            "1.",
            "-",
            "tru",
            "{\"a\":1}x",
            "\"\t\"",
            "\"\\x\"",
            "\"\\u12\"",
            "{1:2}",
            "[1 2]",
            "\"open",
            "1e999",
        ] {
            assert!(read(text).is_err(), "{text:?}");
        }
        assert_eq!(
            read_payload(&[b'"', 0xff, b'"'], 4).unwrap_err(),
            JsonError::NotUtf8 { offset: 1 }
        );
        assert_eq!(
            read("{\n  \"a\": ?}").unwrap_err().to_string(),
            "expected a value at line 2 column 8"
        );
    }

    #[test]
    fn lone_surrogates_become_replacement_characters_and_are_reported() {
        let payload =
            read(r#"{"a":"x\ud800y","b":["\udc00"],"c":"\ud800\u0041","d":"ok"}"#).unwrap();
        assert_eq!(
            payload.value,
            json!({"a": "x\u{FFFD}y", "b": ["\u{FFFD}"], "c": "\u{FFFD}A", "d": "ok"})
        );
        assert_eq!(
            payload.lossy.into_iter().collect::<Vec<_>>(),
            ["a", "b", "c"]
        );
    }

    #[test]
    fn nesting_past_the_limit_is_cut_per_field_without_recursion() {
        let payload = read(r#"{"shallow":[[1]],"deep":[[[[[[2]]]]]],"after":1}"#).unwrap();
        assert_eq!(
            payload.value,
            json!({"shallow": [[1]], "deep": [[[[null]]]], "after": 1})
        );
        assert_eq!(payload.cut.into_iter().collect::<Vec<_>>(), ["deep"]);
        // A million levels: read in linear time on a small stack, kept to the limit.
        let depth = 1_000_000;
        let deep = format!(
            "{{\"tool_input\":{}{}}}",
            "{\"a\":[".repeat(depth),
            "]}".repeat(depth)
        );
        let payload = std::thread::Builder::new()
            .stack_size(64 * 1024)
            .spawn(move || read_payload(deep.as_bytes(), 64))
            .unwrap()
            .join()
            .unwrap()
            .unwrap();
        assert!(payload.cut.contains("tool_input"));
        let mut value = &payload.value["tool_input"];
        let mut levels = 0;
        while let Some(inner) = value.get("a").or_else(|| value.get(0)) {
            value = inner;
            levels += 1;
        }
        assert_eq!(levels, 64);
        // Unbalanced deep input is still an error, not a cut.
        assert!(read(&"[".repeat(100)).is_err());
        assert!(read(&format!("{}}}", "[".repeat(10))).is_err());
    }
}
