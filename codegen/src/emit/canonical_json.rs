//! The one canonical JSON writer: every JSON file abgen writes goes through
//! [`serialize_canonical`] (or [`to_canonical_json`] for a [`Value`]).
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
//!   round-trip form (`1.5e+300`, `1e-7`, `0.1`), and a float that is not finite as `null`.
//!
//! A JSON Schema is recognised by where it stands: the value of a member named in
//! [`SCHEMA_ROOT_KEYS`] is a schema, and inside a schema the keywords that hold subschemas are
//! followed, so a `properties` key inside `const`, `default`, `enum` or `examples` data is still
//! sorted. Invariant: the output never depends on the order keys were inserted, except inside
//! schema property maps.
//!
//! The writer is a [`serde::Serializer`]: a value is written as it is serialized, with the
//! meaning `serde_json::to_value` gives it (a struct is an object of its fields, `None` is
//! `null`, an enum variant is its name or an object of one member), without building a
//! [`Value`] first. Each object's members are written in the order they come; an object whose
//! keys did not come sorted is reordered once its last member is written (the text of a member
//! does not depend on where it stands among its siblings).

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::fmt::Write as _;

use serde::Serialize;
use serde::ser::{self, Error as _};
use serde_json::{Number, Value};

use super::json_scan::string_stop;

/// Declares each list of keys once, as a `const` and as the patterns [`Position::of_member`]
/// matches (a `match` on the key instead of a search of every list for every member).
macro_rules! member_positions {
    ($(
        $(#[$doc:meta])*
        $list:ident = [$($key:literal),* $(,)?];
    )*) => {
        $(
            $(#[$doc])*
            pub const $list: &[&str] = &[$($key),*];
        )*
        /// Which list `key` is in, if any.
        fn listed(key: &str) -> Option<KeyList> {
            match key {
                $($($key)|* => Some(KeyList::$list),)*
                _ => None,
            }
        }
        /// One of the lists of keys.
        #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
        #[derive(Clone, Copy, PartialEq, Eq)]
        enum KeyList {
            $($list,)*
        }
    };
}

member_positions! {
    /// Members whose value is a JSON Schema, wherever they appear in a document.
    SCHEMA_ROOT_KEYS = [
        "jsonSchema",
        "inputSchema",
        "outputSchema",
        "inputJsonSchema",
        "resultJsonSchema",
    ];
    /// Schema keywords whose value is a map from names to subschemas, kept in insertion order.
    ORDERED_SCHEMA_MAPS = ["properties", "patternProperties"];
    /// Schema keywords whose value is a map from names to subschemas, sorted like data.
    SORTED_SCHEMA_MAPS = ["$defs", "definitions", "dependentSchemas"];
    /// Schema keywords whose value is one subschema (or, for `items` in draft-07, an array of
    /// them).
    SCHEMA_VALUED = [
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
    SCHEMA_ARRAYS = ["allOf", "anyOf", "oneOf", "prefixItems"];
}

type Error = serde_json::Error;

/// Writes any serializable value as canonical JSON followed by a newline.
pub fn serialize_canonical<T: Serialize + ?Sized>(value: &T) -> Result<String, Error> {
    let mut out = String::new();
    value.serialize(Writer::new(&mut out, 0, Position::Data, None))?;
    out.push('\n');
    Ok(out)
}

/// Writes `value` as canonical JSON followed by a newline.
pub fn to_canonical_json(value: &Value) -> String {
    serialize_canonical(value).expect("a JSON value has string keys")
}

/// Writes a JSON Schema document (its `properties` kept in order) as canonical JSON followed by
/// a newline.
pub fn schema_to_canonical_json(schema: &Value) -> String {
    let mut out = String::new();
    schema
        .serialize(Writer::new(&mut out, 0, Position::Schema, None))
        .expect("a JSON value has string keys");
    out.push('\n');
    out
}

/// An item of an array that is a data member of a top-level object (the manifest's `routes`),
/// written as [`serialize_canonical`] writes it there: a fragment for
/// [`serialize_canonical_spliced`].
pub fn canonical_member_item<T: Serialize + ?Sized>(item: &T) -> Result<WrittenItem, Error> {
    let mut text = String::new();
    const ITEM_DEPTH: usize = 2;
    let outer = DEEPEST.replace(ITEM_DEPTH);
    let written = item.serialize(Writer::new(&mut text, ITEM_DEPTH, Position::Data, None));
    let depth = DEEPEST.replace(outer);
    written?;
    Ok(WrittenItem { text, depth })
}

/// An item written by [`canonical_member_item`].
#[derive(Debug)]
pub struct WrittenItem {
    pub text: String,
    /// The most arrays and objects open at once in the document the item is written into (the
    /// two around it counted), as a reader counts them against its recursion limit.
    pub depth: usize,
}

/// [`serialize_canonical`] of the object `document` with its data member `member` (never a
/// schema position; what `document` holds there is not written) left open for items written
/// apart by [`canonical_member_item`] (in parallel, or kept from an earlier build):
/// [`Spliced::pieces`] gives the very bytes of writing the whole document, without copying
/// the items into one text.
pub fn serialize_canonical_spliced<T: Serialize + ?Sized>(
    document: &T,
    member: &'static str,
) -> Result<Spliced, Error> {
    debug_assert!(!SCHEMA_ROOT_KEYS.contains(&member), "a data member");
    let mut text = String::new();
    let splice = Splice {
        member,
        at: Cell::new(None),
    };
    document.serialize(Writer::new(&mut text, 0, Position::Data, Some(&splice)))?;
    let Some(items_at) = splice.at.get() else {
        return Err(Error::custom(format!(
            "the spliced document has no member `{member}`"
        )));
    };
    text.push('\n');
    Ok(Spliced { text, items_at })
}

/// A document written by [`serialize_canonical_spliced`]: its text, with the place where the
/// spliced array's items go (just after its `[`).
#[derive(Debug)]
pub struct Spliced {
    text: String,
    items_at: usize,
}

impl Spliced {
    /// The document's bytes with `items` in the spliced array, in order: slices of the text,
    /// of the items, and the separators between them.
    pub fn pieces<'a>(&'a self, items: impl ExactSizeIterator<Item = &'a str>) -> Vec<&'a [u8]> {
        let (head, tail) = self.text.as_bytes().split_at(self.items_at);
        let mut pieces = Vec::with_capacity(2 * items.len() + 3);
        pieces.push(head);
        let mut empty = true;
        for item in items {
            // Each item on a line of its own at depth 2, after a comma but for the first.
            pieces.push(if empty { b"\n    " } else { b",\n    " });
            pieces.push(item.as_bytes());
            empty = false;
        }
        // The array closes at depth 1.
        pieces.push(if empty { b"]" } else { b"\n  ]" });
        pieces.push(tail);
        pieces
    }
}

/// The member of the top-level object whose items are written apart.
struct Splice {
    member: &'static str,
    /// Where the items go in the document's text, once the member is written.
    at: Cell<Option<usize>>,
}

impl Splice {
    /// Opens the member's value, an array at depth 1, leaving its items and its end to
    /// [`Spliced::pieces`].
    fn write(&self, out: &mut String) {
        out.push('[');
        self.at.set(Some(out.len()));
    }
}

/// What a value is, decided by the key of the member that holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Position {
    Data,
    Schema,
    OrderedSchemaMap,
    SortedSchemaMap,
}

impl Position {
    /// The position of the value of the member `key` of an object standing here.
    fn of_member(self, key: &str) -> Position {
        match (self, listed(key)) {
            (Position::Data, Some(KeyList::SCHEMA_ROOT_KEYS)) => Position::Schema,
            (Position::Data, _) => Position::Data,
            (Position::Schema, Some(KeyList::ORDERED_SCHEMA_MAPS)) => Position::OrderedSchemaMap,
            (Position::Schema, Some(KeyList::SORTED_SCHEMA_MAPS)) => Position::SortedSchemaMap,
            (Position::Schema, Some(KeyList::SCHEMA_VALUED | KeyList::SCHEMA_ARRAYS)) => {
                Position::Schema
            }
            (Position::Schema, _) => Position::Data,
            (Position::OrderedSchemaMap | Position::SortedSchemaMap, _) => Position::Schema,
        }
    }

    /// The position of an item of an array standing here: an array in a schema position is a
    /// list of subschemas (`anyOf`, draft-07 `items`); a malformed schema map (`"properties":
    /// [..]`) is written as data.
    fn of_item(self) -> Position {
        match self {
            Position::Schema => Position::Schema,
            Position::Data | Position::OrderedSchemaMap | Position::SortedSchemaMap => {
                Position::Data
            }
        }
    }

    /// Whether an object standing here keeps its members in insertion order.
    fn keeps_order(self) -> bool {
        self == Position::OrderedSchemaMap
    }
}

/// Starts a member or item of a container at `depth`: a line of its own, indented.
fn new_line(out: &mut String, depth: usize) {
    out.push('\n');
    let mut width = depth * INDENT.len();
    while width > 0 {
        let run = width.min(SPACES.len());
        out.push_str(&SPACES[..run]);
        width -= run;
    }
}

/// One level of indentation.
const INDENT: &str = "  ";

/// Spaces to indent with, written a run at a time.
const SPACES: &str = match std::str::from_utf8(&[b' '; 64]) {
    Ok(spaces) => spaces,
    Err(_) => panic!("spaces are UTF-8"),
};

fn write_string(out: &mut String, text: &str) {
    out.reserve(text.len() + 2);
    out.push('"');
    let mut rest = text;
    while let Some(stop) = string_stop(rest.as_bytes()) {
        // Every byte that stops the plain text is ASCII, so `stop` lies on a character boundary.
        out.push_str(&rest[..stop]);
        let byte = rest.as_bytes()[stop];
        match byte {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            0x08 => out.push_str("\\b"),
            0x0C => out.push_str("\\f"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            _ => {
                let _ = write!(out, "\\u{byte:04x}");
            }
        }
        rest = &rest[stop + 1..];
    }
    out.push_str(rest);
    out.push('"');
}

/// 2^53: above it not every integer is a representable float, so the float form is kept.
const MAX_SAFE_FLOAT_INTEGER: f64 = 9_007_199_254_740_992.0;

fn write_float(out: &mut String, float: f64) {
    if !float.is_finite() {
        out.push_str("null");
    } else if float.fract() == 0.0 && float.abs() < MAX_SAFE_FLOAT_INTEGER {
        #[expect(clippy::cast_possible_truncation, reason = "integral and below 2^53")]
        let integral = float as i64;
        let _ = write!(out, "{integral}");
    } else if let Some(number) = Number::from_f64(float) {
        // serde_json prints the shortest representation that reads back to the same f64.
        let _ = write!(out, "{number}");
    }
}

/// Writes one value at `depth`, standing in `position`.
struct Writer<'a> {
    out: &'a mut String,
    depth: usize,
    position: Position,
    /// Set only for the top-level document of [`serialize_canonical_spliced`].
    splice: Option<&'a Splice>,
}

impl<'a> Writer<'a> {
    fn new(
        out: &'a mut String,
        depth: usize,
        position: Position,
        splice: Option<&'a Splice>,
    ) -> Self {
        Self {
            out,
            depth,
            position,
            splice,
        }
    }

    /// An object of about `len` members.
    fn object(self, len: usize) -> Object<'a> {
        opened_at(self.depth);
        Object {
            start: self.out.len(),
            out: self.out,
            depth: self.depth,
            position: self.position,
            splice: self.splice,
            members: Vec::with_capacity(len),
            sorted: true,
            key: None,
        }
    }

    fn array(self) -> Array<'a> {
        opened_at(self.depth);
        Array {
            out: self.out,
            depth: self.depth,
            position: self.position.of_item(),
            empty: true,
        }
    }

    /// The writer of the value of a variant that is not a unit, inside the object of one
    /// member `{ "<variant>": … }` that [`close_variant`] closes.
    fn open_variant(self, variant: &'static str) -> Writer<'a> {
        opened_at(self.depth);
        self.out.push('{');
        new_line(self.out, self.depth + 1);
        write_string(self.out, variant);
        self.out.push_str(": ");
        Writer::new(
            self.out,
            self.depth + 1,
            self.position.of_member(variant),
            None,
        )
    }
}

/// Closes the object [`Writer::open_variant`] opened at `depth`.
fn close_variant(out: &mut String, depth: usize) {
    new_line(out, depth);
    out.push('}');
}

impl<'a> ser::Serializer for Writer<'a> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Array<'a>;
    type SerializeTuple = Array<'a>;
    type SerializeTupleStruct = Array<'a>;
    type SerializeTupleVariant = Variant<Array<'a>>;
    type SerializeMap = Object<'a>;
    type SerializeStruct = Object<'a>;
    type SerializeStructVariant = Variant<Object<'a>>;

    fn serialize_bool(self, value: bool) -> Result<(), Error> {
        self.out.push_str(if value { "true" } else { "false" });
        Ok(())
    }

    fn serialize_i8(self, value: i8) -> Result<(), Error> {
        self.serialize_i64(value.into())
    }

    fn serialize_i16(self, value: i16) -> Result<(), Error> {
        self.serialize_i64(value.into())
    }

    fn serialize_i32(self, value: i32) -> Result<(), Error> {
        self.serialize_i64(value.into())
    }

    fn serialize_i64(self, value: i64) -> Result<(), Error> {
        let _ = write!(self.out, "{value}");
        Ok(())
    }

    fn serialize_i128(self, value: i128) -> Result<(), Error> {
        match i64::try_from(value) {
            Ok(value) => self.serialize_i64(value),
            Err(_) => self.serialize_u128(u128::try_from(value).map_err(out_of_range)?),
        }
    }

    fn serialize_u8(self, value: u8) -> Result<(), Error> {
        self.serialize_u64(value.into())
    }

    fn serialize_u16(self, value: u16) -> Result<(), Error> {
        self.serialize_u64(value.into())
    }

    fn serialize_u32(self, value: u32) -> Result<(), Error> {
        self.serialize_u64(value.into())
    }

    fn serialize_u64(self, value: u64) -> Result<(), Error> {
        let _ = write!(self.out, "{value}");
        Ok(())
    }

    fn serialize_u128(self, value: u128) -> Result<(), Error> {
        self.serialize_u64(u64::try_from(value).map_err(out_of_range)?)
    }

    fn serialize_f32(self, value: f32) -> Result<(), Error> {
        self.serialize_f64(value.into())
    }

    fn serialize_f64(self, value: f64) -> Result<(), Error> {
        write_float(self.out, value);
        Ok(())
    }

    fn serialize_char(self, value: char) -> Result<(), Error> {
        self.serialize_str(value.encode_utf8(&mut [0; 4]))
    }

    fn serialize_str(self, value: &str) -> Result<(), Error> {
        write_string(self.out, value);
        Ok(())
    }

    fn serialize_bytes(self, value: &[u8]) -> Result<(), Error> {
        let mut array = self.array();
        for byte in value {
            ser::SerializeSeq::serialize_element(&mut array, byte)?;
        }
        ser::SerializeSeq::end(array)
    }

    fn serialize_none(self) -> Result<(), Error> {
        self.serialize_unit()
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<(), Error> {
        self.out.push_str("null");
        Ok(())
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Error> {
        self.serialize_unit()
    }

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        self.serialize_str(variant)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        let depth = self.depth;
        let inner = self.open_variant(variant);
        let (position, out) = (inner.position, inner.out);
        value.serialize(Writer::new(&mut *out, depth + 1, position, None))?;
        close_variant(out, depth);
        Ok(())
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<Array<'a>, Error> {
        Ok(self.array())
    }

    fn serialize_tuple(self, len: usize) -> Result<Array<'a>, Error> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Array<'a>, Error> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Variant<Array<'a>>, Error> {
        let depth = self.depth;
        Ok(Variant {
            inner: self.open_variant(variant).array(),
            depth,
        })
    }

    fn serialize_map(self, len: Option<usize>) -> Result<Object<'a>, Error> {
        Ok(self.object(len.unwrap_or(0)))
    }

    fn serialize_struct(self, _name: &'static str, len: usize) -> Result<Object<'a>, Error> {
        Ok(self.object(len))
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Variant<Object<'a>>, Error> {
        let depth = self.depth;
        Ok(Variant {
            inner: self.open_variant(variant).object(len),
            depth,
        })
    }
}

fn out_of_range<E>(_: E) -> Error {
    Error::custom("number out of range")
}

/// The items of an array, each on a line of its own.
struct Array<'a> {
    out: &'a mut String,
    depth: usize,
    /// Where every item stands.
    position: Position,
    empty: bool,
}

impl<'a> Array<'a> {
    fn item<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.out.push(if self.empty { '[' } else { ',' });
        self.empty = false;
        new_line(self.out, self.depth + 1);
        value.serialize(Writer::new(
            &mut *self.out,
            self.depth + 1,
            self.position,
            None,
        ))
    }

    /// Closes the array; hands back the output.
    fn finish(self) -> &'a mut String {
        if self.empty {
            self.out.push_str("[]");
        } else {
            new_line(self.out, self.depth);
            self.out.push(']');
        }
        self.out
    }
}

impl ser::SerializeSeq for Array<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.item(value)
    }

    fn end(self) -> Result<(), Error> {
        self.finish();
        Ok(())
    }
}

impl ser::SerializeTuple for Array<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.item(value)
    }

    fn end(self) -> Result<(), Error> {
        self.finish();
        Ok(())
    }
}

impl ser::SerializeTupleStruct for Array<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.item(value)
    }

    fn end(self) -> Result<(), Error> {
        self.finish();
        Ok(())
    }
}

/// One member written into [`Object::out`]: its key and where its text (from the line break
/// before the key to the end of the value) lies.
struct Member {
    key: Cow<'static, str>,
    start: usize,
    end: usize,
    /// The member [`Splice`] writes; nothing of it is in `out` until the object is finished.
    spliced: bool,
}

/// The members of an object, written as they come and sorted by key at the end unless the
/// object keeps its insertion order.
struct Object<'a> {
    out: &'a mut String,
    depth: usize,
    /// Where the object stands (its members' positions follow from it).
    position: Position,
    splice: Option<&'a Splice>,
    /// Where the object's text begins in `out`.
    start: usize,
    members: Vec<Member>,
    /// The members came in key order so far.
    sorted: bool,
    /// A map's key, between `serialize_key` and `serialize_value`.
    key: Option<String>,
}

impl<'a> Object<'a> {
    fn member<T: Serialize + ?Sized>(
        &mut self,
        key: Cow<'static, str>,
        value: &T,
    ) -> Result<(), Error> {
        self.out
            .push(if self.members.is_empty() { '{' } else { ',' });
        let start = self.out.len();
        let spliced = self.splice.is_some_and(|splice| splice.member == key);
        if !spliced {
            new_line(self.out, self.depth + 1);
            write_string(self.out, &key);
            self.out.push_str(": ");
            value.serialize(Writer::new(
                &mut *self.out,
                self.depth + 1,
                self.position.of_member(&key),
                None,
            ))?;
        }
        if let Some(last) = self.members.last() {
            self.sorted &= last.key < key;
        }
        self.members.push(Member {
            key,
            start,
            end: self.out.len(),
            spliced,
        });
        Ok(())
    }

    /// Sorts the members unless the object keeps its order or they came sorted, writes the
    /// spliced member (left out until now, so that the order of the others is settled without
    /// moving it), closes the object and hands back the output.
    fn finish(self) -> &'a mut String {
        let out = self.out;
        if self.members.is_empty() {
            out.push_str("{}");
            return out;
        }
        let spliced = self.members.iter().any(|member| member.spliced);
        if spliced || !(self.sorted || self.position.keeps_order()) {
            let mut members = self.members;
            if !self.position.keeps_order() {
                members.sort_by(|a, b| a.key.cmp(&b.key));
            }
            // `{` and then the members, each but the first after a comma.
            let body = self.start + 1;
            SCRATCH.with_borrow_mut(|scratch| {
                scratch.clear();
                scratch.push_str(&out[body..]);
                out.truncate(body);
                for (index, member) in members.iter().enumerate() {
                    if index > 0 {
                        out.push(',');
                    }
                    match self.splice {
                        Some(splice) if member.spliced => {
                            new_line(out, self.depth + 1);
                            write_string(out, &member.key);
                            out.push_str(": ");
                            splice.write(out);
                        }
                        _ => out.push_str(&scratch[member.start - body..member.end - body]),
                    }
                }
            });
        }
        new_line(out, self.depth);
        out.push('}');
        out
    }
}

thread_local! {
    /// The members of the object being reordered: one buffer per thread, reused.
    static SCRATCH: RefCell<String> = const { RefCell::new(String::new()) };
    /// The most containers open at once in the item [`canonical_member_item`] is writing on
    /// this thread.
    static DEEPEST: Cell<usize> = const { Cell::new(0) };
}

/// Notes an array or object opened by a writer at `depth`: `depth` containers are open around
/// it.
fn opened_at(depth: usize) {
    DEEPEST.set(DEEPEST.get().max(depth + 1));
}

impl ser::SerializeMap for Object<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.key = Some(map_key(key)?);
        Ok(())
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let key = self
            .key
            .take()
            .ok_or_else(|| Error::custom("a map value without a key"))?;
        self.member(Cow::Owned(key), value)
    }

    fn end(self) -> Result<(), Error> {
        self.finish();
        Ok(())
    }
}

impl ser::SerializeStruct for Object<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.member(Cow::Borrowed(key), value)
    }

    fn end(self) -> Result<(), Error> {
        self.finish();
        Ok(())
    }
}

/// A tuple or struct variant: its array or object, inside the object of one member that names
/// the variant.
struct Variant<T> {
    inner: T,
    /// The depth of the object of one member.
    depth: usize,
}

impl ser::SerializeTupleVariant for Variant<Array<'_>> {
    type Ok = ();
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.inner.item(value)
    }

    fn end(self) -> Result<(), Error> {
        close_variant(self.inner.finish(), self.depth);
        Ok(())
    }
}

impl ser::SerializeStructVariant for Variant<Object<'_>> {
    type Ok = ();
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.inner.member(Cow::Borrowed(key), value)
    }

    fn end(self) -> Result<(), Error> {
        close_variant(self.inner.finish(), self.depth);
        Ok(())
    }
}

/// A map key as `serde_json::to_value` writes it: a string, or a number or `bool` as its text.
fn map_key<T: Serialize + ?Sized>(key: &T) -> Result<String, Error> {
    match key.serialize(serde_json::value::Serializer)? {
        Value::String(key) => Ok(key),
        Value::Number(number) => Ok(number.to_string()),
        Value::Bool(value) => Ok(value.to_string()),
        _ => Err(Error::custom("a map key must be a string")),
    }
}

#[cfg(test)]
#[path = "canonical_json_tests.rs"]
mod tests;
