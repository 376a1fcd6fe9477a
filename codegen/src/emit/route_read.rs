//! Reads a route's manifest text for its schema check. Entry: [`route_for_schema_check`].
//!
//! The check asks two things of the text: that it is JSON as the runtime reads the staged
//! manifest (`serde_json`, whole, with its recursion limit), and that the route passes the
//! manifest schema. Nearly all of a route's bytes are its schema forms (the values of its
//! `jsonSchema` members), of which the manifest schema asks only the kind
//! (`manifest_schema_reads_only_the_kind_of_a_schema_form` keeps it so). So one pass over the
//! text checks its syntax and depth, a form is only skipped, and only the rest of the route (its
//! forms emptied) is read into a [`Value`] by `serde_json`.
//!
//! Invariant: [`route_for_schema_check`] accepts exactly the texts that `serde_json` reads as
//! the item of a manifest's `routes`, and gives the value it reads with each form emptied
//! (tested against `serde_json` itself on written routes and on every one-byte edit of them).

use serde_json::Value;

use super::json_scan::{leading_spaces, string_stop};

/// Containers `serde_json` opens before it stops with "recursion limit exceeded": it reads 127
/// nested arrays and objects, not 128.
const SERDE_JSON_MAX_DEPTH: usize = 127;

/// The containers around a route in the manifest: the document's object and its `routes`
/// array.
const ROUTE_DEPTH: usize = 2;

/// The text is not a JSON value as the manifest's reader reads it.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct NotJson;

/// A route's text read for its schema check: as `serde_json` reads it as an item of the
/// manifest's `routes`, but that the value of every `jsonSchema` member outside a form (a
/// schema form) is checked for its syntax and kept as the empty value of its kind (`{}`, `[]`,
/// `""`; a number or literal as it is).
pub(super) fn route_for_schema_check(text: &str) -> Result<Value, NotJson> {
    let forms = Scan::new(text.as_bytes()).route()?;
    if forms.is_empty() {
        return serde_json::from_str(text).map_err(|_| NotJson);
    }
    let skipped: usize = forms.iter().map(|(start, end)| end - start).sum();
    let mut rest = String::with_capacity(text.len() - skipped + 2 * forms.len());
    let mut from = 0;
    for (start, end) in forms {
        rest.push_str(&text[from..start]);
        match text.as_bytes()[start] {
            b'{' => rest.push_str("{}"),
            b'[' => rest.push_str("[]"),
            b'"' => rest.push_str("\"\""),
            _ => rest.push_str(&text[start..end]),
        }
        from = end;
    }
    rest.push_str(&text[from..]);
    serde_json::from_str(&rest).map_err(|_| NotJson)
}

/// Whether a member's key (its text between the quotes) is `jsonSchema`, escaped or not.
fn is_form_key(key: &[u8]) -> bool {
    const FORM_KEY: &str = "jsonSchema";
    if !key.contains(&b'\\') {
        return key == FORM_KEY.as_bytes();
    }
    let quoted = [&b"\""[..], key, &b"\""[..]].concat();
    serde_json::from_slice::<String>(&quoted).is_ok_and(|key| key == FORM_KEY)
}

/// What closes an open container.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Open {
    Object,
    Array,
}

/// One pass over a JSON text: its syntax (RFC 8259) and depth checked, and where each schema
/// form lies.
struct Scan<'t> {
    text: &'t [u8],
    at: usize,
    open: Vec<Open>,
    /// The depth in `open` of the form being skipped, if one is.
    form_depth: Option<usize>,
    /// `(start, end)` of each form, in order.
    forms: Vec<(usize, usize)>,
}

impl<'t> Scan<'t> {
    fn new(text: &'t [u8]) -> Self {
        Self {
            text,
            at: 0,
            open: Vec::new(),
            form_depth: None,
            forms: Vec::new(),
        }
    }

    /// The forms of the one value the text holds, surrounded by whitespace only.
    fn route(mut self) -> Result<Vec<(usize, usize)>, NotJson> {
        self.value()?;
        self.skip_whitespace();
        if self.at != self.text.len() {
            return Err(NotJson);
        }
        Ok(self.forms)
    }

    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    /// Reads one value, with every container in it, iteratively (a form may nest as deep as the
    /// limit allows, and the limit is the reader's, not this stack's).
    fn value(&mut self) -> Result<(), NotJson> {
        loop {
            self.skip_whitespace();
            match self.peek().ok_or(NotJson)? {
                b'{' => {
                    self.enter(Open::Object)?;
                    self.skip_whitespace();
                    if self.peek() == Some(b'}') {
                        self.at += 1;
                        self.open.pop();
                    } else {
                        self.member_key()?;
                        continue;
                    }
                }
                b'[' => {
                    self.enter(Open::Array)?;
                    self.skip_whitespace();
                    if self.peek() == Some(b']') {
                        self.at += 1;
                        self.open.pop();
                    } else {
                        continue;
                    }
                }
                b'"' => self.string()?,
                b't' => self.literal(b"true")?,
                b'f' => self.literal(b"false")?,
                b'n' => self.literal(b"null")?,
                b'-' | b'0'..=b'9' => self.number()?,
                _ => return Err(NotJson),
            }
            // After a value: close what it ends, or go on to the next item or member.
            loop {
                self.end_form_at(self.open.len());
                let Some(&open) = self.open.last() else {
                    return Ok(());
                };
                self.skip_whitespace();
                match (self.peek().ok_or(NotJson)?, open) {
                    (b',', Open::Object) => {
                        self.at += 1;
                        self.skip_whitespace();
                        self.member_key()?;
                        break;
                    }
                    (b',', Open::Array) => {
                        self.at += 1;
                        break;
                    }
                    (b'}', Open::Object) | (b']', Open::Array) => {
                        self.at += 1;
                        self.open.pop();
                    }
                    _ => return Err(NotJson),
                }
            }
        }
    }

    /// Opens a container, as deep as the reader allows.
    fn enter(&mut self, open: Open) -> Result<(), NotJson> {
        if ROUTE_DEPTH + self.open.len() + 1 > SERDE_JSON_MAX_DEPTH {
            return Err(NotJson);
        }
        self.at += 1;
        self.open.push(open);
        Ok(())
    }

    /// Reads a member's key and its `:`; a `jsonSchema` key outside a form starts one, whose
    /// value begins at the next byte that is not whitespace.
    fn member_key(&mut self) -> Result<(), NotJson> {
        if self.peek() != Some(b'"') {
            return Err(NotJson);
        }
        let key_start = self.at + 1;
        self.string()?;
        let key = &self.text[key_start..self.at - 1];
        let names_a_form = self.form_depth.is_none() && is_form_key(key);
        self.skip_whitespace();
        if self.peek() != Some(b':') {
            return Err(NotJson);
        }
        self.at += 1;
        if names_a_form {
            self.skip_whitespace();
            self.form_depth = Some(self.open.len());
            self.forms.push((self.at, self.at));
        }
        Ok(())
    }

    /// Ends the form being skipped once the value that started it is read, that is, once the
    /// scan is back at the depth of the member that holds it.
    fn end_form_at(&mut self, depth: usize) {
        if self.form_depth == Some(depth) {
            self.form_depth = None;
            if let Some(form) = self.forms.last_mut() {
                form.1 = self.at;
            }
        }
    }

    fn skip_whitespace(&mut self) {
        while let Some(&byte) = self.text.get(self.at) {
            match byte {
                // The pretty layout's indentation, most of a manifest's whitespace.
                b' ' => self.at += leading_spaces(&self.text[self.at..]),
                b'\n' | b'\r' | b'\t' => self.at += 1,
                _ => break,
            }
        }
    }

    /// Reads a string from its opening quote to past its closing one: no control character
    /// unescaped, every escape one of JSON's (the text is a `str`, so already UTF-8).
    fn string(&mut self) -> Result<(), NotJson> {
        let mut at = self.at + 1;
        loop {
            at += string_stop(&self.text[at..]).ok_or(NotJson)?;
            match self.text[at] {
                b'"' => {
                    self.at = at + 1;
                    return Ok(());
                }
                b'\\' => {
                    at += 1;
                    match self.text.get(at).ok_or(NotJson)? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => at += 1,
                        b'u' => at = self.unicode_escape(at + 1)?,
                        _ => return Err(NotJson),
                    }
                }
                _ => return Err(NotJson),
            }
        }
    }

    /// Reads the four hex digits of a `\u` escape at `at`, and the escape of the low half
    /// after a high surrogate, as `serde_json` reads a string into a value: a surrogate that is
    /// not half of a pair is an error. Returns where the escape ends.
    fn unicode_escape(&self, at: usize) -> Result<usize, NotJson> {
        let code = self.hex4(at)?;
        match code {
            0xDC00..=0xDFFF => Err(NotJson),
            0xD800..=0xDBFF => {
                if self.text.get(at + 4..at + 6) != Some(b"\\u") {
                    return Err(NotJson);
                }
                match self.hex4(at + 6)? {
                    0xDC00..=0xDFFF => Ok(at + 10),
                    _ => Err(NotJson),
                }
            }
            _ => Ok(at + 4),
        }
    }

    fn hex4(&self, at: usize) -> Result<u16, NotJson> {
        let digits = self.text.get(at..at + 4).ok_or(NotJson)?;
        let digits = std::str::from_utf8(digits).map_err(|_| NotJson)?;
        if !digits.bytes().all(|byte| byte.is_ascii_hexdigit()) {
            return Err(NotJson);
        }
        u16::from_str_radix(digits, 16).map_err(|_| NotJson)
    }

    fn literal(&mut self, word: &[u8]) -> Result<(), NotJson> {
        if !self.text[self.at..].starts_with(word) {
            return Err(NotJson);
        }
        self.at += word.len();
        Ok(())
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, within the range of an `f64`
    /// (`serde_json` reads `1e400` as an error, not as infinity).
    fn number(&mut self) -> Result<(), NotJson> {
        let start = self.at;
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        match self.peek() {
            Some(b'0') => self.at += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(NotJson),
        }
        if self.peek() == Some(b'.') {
            self.at += 1;
            self.some_digits()?;
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.at += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.at += 1;
            }
            self.some_digits()?;
        }
        let number = &self.text[start..self.at];
        // Integers up to 19 digits fit an `i64` or a `u64`; anything else is read as an `f64`.
        let float = number.len() > 19
            || number
                .iter()
                .any(|&byte| matches!(byte, b'.' | b'e' | b'E'));
        if float {
            let finite = std::str::from_utf8(number)
                .ok()
                .and_then(|number| number.parse::<f64>().ok())
                .is_some_and(f64::is_finite);
            if !finite {
                return Err(NotJson);
            }
        }
        Ok(())
    }

    fn digits(&mut self) {
        while let Some(b'0'..=b'9') = self.peek() {
            self.at += 1;
        }
    }

    fn some_digits(&mut self) -> Result<(), NotJson> {
        let start = self.at;
        self.digits();
        if self.at == start {
            return Err(NotJson);
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "route_read_tests.rs"]
mod tests;
