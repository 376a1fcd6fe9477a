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
//!
//! A host profile's form of a schema (`schema_profile::ProfileForm`) names each subschema it
//! leaves as the canonical form has it (the newtype [`UNCHANGED_SUBSCHEMA`] of that canonical
//! value). The writer keeps where it wrote every array and object of a schema in the document's
//! text, by the address of its [`Value`], and writes such a subschema by copying that text,
//! re-indented for where the copy stands. Invariants: the values named outlive the writing of
//! the document (the manifest's routes hold their canonical forms), and an object whose members
//! are reordered drops what was kept of the text it moves. With debug assertions every copy is
//! compared with the writing it replaces.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::fmt::Write as _;

use abgen_runtime::schema_profile::UNCHANGED_SUBSCHEMA;
use rustc_hash::FxHashMap;
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
    let mut out = write_document(value, 0, Position::Data, None)?.text;
    out.push('\n');
    Ok(out)
}

/// Writes `value` standing in `position` at `depth`.
fn write_document<T: Serialize + ?Sized>(
    value: &T,
    depth: usize,
    position: Position,
    splice: Option<&Splice>,
) -> Result<Output, Error> {
    let mut output = Output::default();
    write_into(&mut output, value, depth, position, splice)?;
    Ok(output)
}

/// Writes `value` into `output`, emptied first (its buffers kept).
fn write_into<T: Serialize + ?Sized>(
    output: &mut Output,
    value: &T,
    depth: usize,
    position: Position,
    splice: Option<&Splice>,
) -> Result<(), Error> {
    output.text.clear();
    output.members.clear();
    output.forms.clear();
    output.deepest = depth;
    value.serialize(Writer::new(output, depth, position, splice))
}

/// Writes `value` as canonical JSON followed by a newline.
pub fn to_canonical_json(value: &Value) -> String {
    serialize_canonical(value).expect("a JSON value has string keys")
}

/// Writes a JSON Schema document (its `properties` kept in order) as canonical JSON followed by
/// a newline.
pub fn schema_to_canonical_json(schema: &Value) -> String {
    let mut out = write_document(schema, 0, Position::Schema, None)
        .expect("a JSON value has string keys")
        .text;
    out.push('\n');
    out
}

/// An item of an array that is a data member of a top-level object (the manifest's `routes`),
/// written as [`serialize_canonical`] writes it there: a fragment for
/// [`serialize_canonical_spliced`].
pub fn canonical_member_item<T: Serialize + ?Sized>(item: &T) -> Result<WrittenItem, Error> {
    const ITEM_DEPTH: usize = 2;
    let write = |output: &mut Output| {
        write_into(output, item, ITEM_DEPTH, Position::Data, None)?;
        Ok(WrittenItem {
            text: output.text.as_str().to_owned(),
            depth: output.deepest,
        })
    };
    ITEM_OUTPUT.with(|output| match output.try_borrow_mut() {
        Ok(mut output) => write(&mut output),
        // An item written while another is (by a `Serialize` of the outer one).
        Err(_) => write(&mut Output::default()),
    })
}

thread_local! {
    /// The output [`canonical_member_item`] writes into on this thread, kept between items: its
    /// buffers grow to the largest item once, and each item's text is copied out at its size,
    /// instead of growing (and copying) a new text by doubling for every item.
    static ITEM_OUTPUT: RefCell<Output> = RefCell::new(Output::default());
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
    let splice = Splice {
        member,
        at: Cell::new(None),
    };
    let mut text = write_document(document, 0, Position::Data, Some(&splice))?.text;
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
    let width = depth * INDENT.len();
    // One copy for the line break and the indentation of any depth up to 64.
    if let Some(line) = NEW_LINE.get(..=width) {
        out.push_str(line);
        return;
    }
    out.push('\n');
    indent(out, width);
}

/// Writes `width` spaces, a run at a time.
fn indent(out: &mut String, mut width: usize) {
    while width > 0 {
        let run = width.min(NEW_LINE.len() - 1);
        out.push_str(&NEW_LINE[1..=run]);
        width -= run;
    }
}

/// One level of indentation.
const INDENT: &str = "  ";

/// A line break and the spaces to indent the next line with, written a run at a time.
const NEW_LINE: &str = match std::str::from_utf8(&NEW_LINE_BYTES) {
    Ok(line) => line,
    Err(_) => panic!("a line break and spaces are UTF-8"),
};

const NEW_LINE_BYTES: [u8; 129] = {
    let mut line = [b' '; 129];
    line[0] = b'\n';
    line
};

/// Writes `text` as a JSON string; whether any of its characters was escaped.
fn write_string(out: &mut String, text: &str) -> bool {
    out.reserve(text.len() + 2);
    out.push('"');
    let mut rest = text;
    let mut escaped = false;
    while let Some(stop) = string_stop(rest.as_bytes()) {
        escaped = true;
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
    escaped
}

/// 2^53: above it not every integer is a representable float, so the float form is kept.
const MAX_SAFE_FLOAT_INTEGER: f64 = 9_007_199_254_740_992.0;

fn write_float(out: &mut String, float: f64) {
    if !float.is_finite() {
        out.push_str("null");
    } else if float.fract() == 0.0 && float.abs() < MAX_SAFE_FLOAT_INTEGER {
        #[expect(clippy::cast_possible_truncation, reason = "integral and below 2^53")]
        let integral = float as i64;
        out.push_str(itoa::Buffer::new().format(integral));
    } else if let Some(number) = Number::from_f64(float) {
        // serde_json prints the shortest representation that reads back to the same f64.
        let _ = write!(out, "{number}");
    }
}

/// Writes one value at `depth`, standing in `position`.
struct Writer<'a> {
    out: &'a mut Output,
    depth: usize,
    position: Position,
    /// Set only for the top-level document of [`serialize_canonical_spliced`].
    splice: Option<&'a Splice>,
}

impl<'a> Writer<'a> {
    fn new(
        out: &'a mut Output,
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

    fn object(self) -> Object<'a> {
        self.out.opened_at(self.depth);
        Object {
            start: self.out.text.len(),
            base: self.out.members.len(),
            out: self.out,
            depth: self.depth,
            position: self.position,
            splice: self.splice,
            sorted: true,
            key: None,
        }
    }

    fn array(self) -> Array<'a> {
        self.out.opened_at(self.depth);
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
        self.out.opened_at(self.depth);
        self.out.text.push('{');
        new_line(&mut self.out.text, self.depth + 1);
        write_string(&mut self.out.text, variant);
        self.out.text.push_str(": ");
        Writer::new(
            self.out,
            self.depth + 1,
            self.position.of_member(variant),
            None,
        )
    }
}

impl Writer<'_> {
    /// [`Output::copy_form`] of `value`, in a build with debug assertions: the value is also
    /// written as it would be without the copy, and the two texts must be the same (every test
    /// that writes a host form checks the copy so).
    fn copy_form_checked<T: Serialize + ?Sized>(
        self,
        form: WrittenForm,
        value: &T,
    ) -> Result<(), Error> {
        let (depth, position) = (self.depth, self.position);
        let out = self.out;
        let at = out.text.len();
        let deepest_around = out.deepest;
        value.serialize(Writer::new(&mut *out, depth, position, None))?;
        let written = out.text.split_off(at);
        let deepest_written = std::mem::replace(&mut out.deepest, deepest_around);
        // What the writing recorded lies past the text kept.
        out.forms.retain(|_, recorded| recorded.end <= at);
        out.copy_form(form, depth);
        assert_eq!(out.text[at..], written, "a copied form is the form written");
        assert_eq!(
            out.deepest, deepest_written,
            "a copied form nests as written"
        );
        Ok(())
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
        self.out.text.push_str(if value { "true" } else { "false" });
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
        self.out.text.push_str(itoa::Buffer::new().format(value));
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
        self.out.text.push_str(itoa::Buffer::new().format(value));
        Ok(())
    }

    fn serialize_u128(self, value: u128) -> Result<(), Error> {
        self.serialize_u64(u64::try_from(value).map_err(out_of_range)?)
    }

    fn serialize_f32(self, value: f32) -> Result<(), Error> {
        self.serialize_f64(value.into())
    }

    fn serialize_f64(self, value: f64) -> Result<(), Error> {
        write_float(&mut self.out.text, value);
        Ok(())
    }

    fn serialize_char(self, value: char) -> Result<(), Error> {
        self.serialize_str(value.encode_utf8(&mut [0; 4]))
    }

    fn serialize_str(self, value: &str) -> Result<(), Error> {
        write_string(&mut self.out.text, value);
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
        self.out.text.push_str("null");
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
        name: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        if name == UNCHANGED_SUBSCHEMA
            && self.position == Position::Schema
            && let Some(form) = self.out.forms.get(&address_of(value)).copied()
        {
            if cfg!(debug_assertions) {
                return self.copy_form_checked(form, value);
            }
            self.out.copy_form(form, self.depth);
            return Ok(());
        }
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
        close_variant(&mut out.text, depth);
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

    fn serialize_map(self, _len: Option<usize>) -> Result<Object<'a>, Error> {
        Ok(self.object())
    }

    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Object<'a>, Error> {
        Ok(self.object())
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Variant<Object<'a>>, Error> {
        let depth = self.depth;
        Ok(Variant {
            inner: self.open_variant(variant).object(),
            depth,
        })
    }
}

fn out_of_range<E>(_: E) -> Error {
    Error::custom("number out of range")
}

/// The items of an array, each on a line of its own.
struct Array<'a> {
    out: &'a mut Output,
    depth: usize,
    /// Where every item stands.
    position: Position,
    empty: bool,
}

impl<'a> Array<'a> {
    fn item<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.out.text.push(if self.empty { '[' } else { ',' });
        self.empty = false;
        new_line(&mut self.out.text, self.depth + 1);
        write_value(&mut *self.out, self.depth + 1, self.position, value)
    }

    /// Closes the array; hands back the output.
    fn finish(self) -> &'a mut Output {
        if self.empty {
            self.out.text.push_str("[]");
        } else {
            new_line(&mut self.out.text, self.depth);
            self.out.text.push(']');
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
    key: MemberKey,
    start: usize,
    end: usize,
    /// The member [`Splice`] writes; nothing of it is in `out` until the object is finished.
    spliced: bool,
}

/// A member's key, for ordering the members: a struct's field name, or a map's key.
enum MemberKey {
    Field(&'static str),
    /// A map key written without an escape: the key is the text `out[at..at + len]`, so it is
    /// not copied.
    Written {
        at: usize,
        len: usize,
    },
    /// A map key with an escaped character, or the key of the member the splice leaves out of
    /// `out`.
    Owned(String),
}

impl MemberKey {
    /// The key, read from `out` if it was written there.
    fn text<'k>(&'k self, out: &'k str) -> &'k str {
        match self {
            MemberKey::Field(key) => key,
            MemberKey::Written { at, len } => &out[*at..*at + *len],
            MemberKey::Owned(key) => key,
        }
    }
}

/// The members of an object, written as they come and sorted by key at the end unless the
/// object keeps its insertion order. Its [`Member`]s are the top of [`Output::members`], from
/// `base` on.
struct Object<'a> {
    out: &'a mut Output,
    depth: usize,
    /// Where the object stands (its members' positions follow from it).
    position: Position,
    splice: Option<&'a Splice>,
    /// Where the object's text begins in `out`.
    start: usize,
    /// Where the object's members begin in [`Output::members`].
    base: usize,
    /// The members came in key order so far.
    sorted: bool,
    /// A map's key, written between `serialize_key` and `serialize_value`.
    key: Option<(usize, MemberKey, bool)>,
}

impl<'a> Object<'a> {
    /// Writes what comes before a member's key: `{` or `,`; where the member's text starts.
    fn open_member(&mut self) -> usize {
        let first = self.out.members.len() == self.base;
        self.out.text.push(if first { '{' } else { ',' });
        self.out.text.len()
    }

    /// A struct field.
    fn field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
        let start = self.open_member();
        let spliced = self.splice.is_some_and(|splice| splice.member == key);
        if !spliced {
            new_line(&mut self.out.text, self.depth + 1);
            write_string(&mut self.out.text, key);
            self.out.text.push_str(": ");
            self.value(key, value)?;
        }
        let key = if spliced {
            MemberKey::Owned(key.to_owned())
        } else {
            MemberKey::Field(key)
        };
        self.push(key, start, spliced);
        Ok(())
    }

    /// A map key: written at once, so that it need not be kept apart from the text.
    fn map_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        let start = self.open_member();
        new_line(&mut self.out.text, self.depth + 1);
        let at = self.out.text.len() + 1;
        let escaped = key.serialize(KeyWriter(&mut self.out.text))?;
        let mut key = match escaped {
            Some(key) => MemberKey::Owned(key),
            None => MemberKey::Written {
                at,
                len: self.out.text.len() - 1 - at,
            },
        };
        let spliced = self
            .splice
            .is_some_and(|splice| splice.member == key.text(&self.out.text));
        if spliced {
            key = MemberKey::Owned(key.text(&self.out.text).to_owned());
            self.out.text.truncate(start);
        } else {
            self.out.text.push_str(": ");
        }
        self.key = Some((start, key, spliced));
        Ok(())
    }

    /// The value of the map key written last.
    fn map_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let (start, key, spliced) = self
            .key
            .take()
            .ok_or_else(|| Error::custom("a map value without a key"))?;
        if !spliced {
            let position = self.position.of_member(key.text(&self.out.text));
            write_value(&mut *self.out, self.depth + 1, position, value)?;
        }
        self.push(key, start, spliced);
        Ok(())
    }

    fn value<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<(), Error> {
        let position = self.position.of_member(key);
        write_value(&mut *self.out, self.depth + 1, position, value)
    }

    /// Records the member that starts at `start` and ends here.
    fn push(&mut self, key: MemberKey, start: usize, spliced: bool) {
        let Output { text, members, .. } = &mut *self.out;
        // Nested objects have taken their members off the stack: the top is this one's.
        if members.len() > self.base
            && let Some(last) = members.last()
        {
            self.sorted &= last.key.text(text) < key.text(text);
        }
        members.push(Member {
            key,
            start,
            end: text.len(),
            spliced,
        });
    }

    /// Sorts the members unless the object keeps its order or they came sorted, writes the
    /// spliced member (left out until now, so that the order of the others is settled without
    /// moving it), closes the object and hands back the output.
    fn finish(self) -> &'a mut Output {
        let output = self.out;
        if output.members.len() == self.base {
            output.text.push_str("{}");
            return output;
        }
        let Output {
            text: out,
            members,
            scratch,
            forms,
            ..
        } = &mut *output;
        let mine = &mut members[self.base..];
        let spliced = mine.iter().any(|member| member.spliced);
        if spliced || !(self.sorted || self.position.keeps_order()) {
            if !self.position.keeps_order() {
                let text: &str = out;
                mine.sort_by(|a, b| a.key.text(text).cmp(b.key.text(text)));
            }
            // The members' texts move: what was recorded of them no longer stands there.
            if !forms.is_empty() {
                forms.retain(|_, form| form.end <= self.start);
            }
            // `{` and then the members, each but the first after a comma.
            let body = self.start + 1;
            scratch.clear();
            scratch.push_str(&out[body..]);
            out.truncate(body);
            for (index, member) in mine.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                match (self.splice, &member.key) {
                    (Some(splice), MemberKey::Owned(key)) if member.spliced => {
                        new_line(out, self.depth + 1);
                        write_string(out, key);
                        out.push_str(": ");
                        splice.write(out);
                    }
                    _ => out.push_str(&scratch[member.start - body..member.end - body]),
                }
            }
        }
        members.truncate(self.base);
        new_line(out, self.depth);
        out.push('}');
        output
    }
}

/// What a writer writes into: the text, and what it keeps while writing it.
#[derive(Default)]
struct Output {
    text: String,
    /// The members of the objects being written, innermost last: objects nest, so one stack
    /// serves all of them without an allocation per object.
    members: Vec<Member>,
    /// The members of the object being reordered.
    scratch: String,
    /// The most containers open at once so far.
    deepest: usize,
    /// Where each JSON value written in a schema position as an array or object lies in `text`,
    /// by the value's address: a host profile's form copies the text of each subschema its
    /// profile leaves unchanged from the canonical form written before it.
    forms: FxHashMap<usize, WrittenForm>,
}

impl Output {
    /// Notes an array or object opened by a writer at `depth`: `depth` containers are open
    /// around it.
    fn opened_at(&mut self, depth: usize) {
        self.deepest = self.deepest.max(depth + 1);
    }

    /// Writes the value written as `form` again, here at `depth`: its text with each of its
    /// lines indented for `depth` (the text of a value differs from one depth to another only
    /// there: every line break in it is one the layout put there, as a string's are escaped).
    fn copy_form(&mut self, form: WrittenForm, depth: usize) {
        let Output { text, scratch, .. } = self;
        scratch.clear();
        scratch.push_str(&text[form.start..form.end]);
        let (line_break, skipped) = match depth.checked_sub(form.depth) {
            Some(deeper) => match NEW_LINE.get(..=deeper * INDENT.len()) {
                Some(line_break) => (Cow::Borrowed(line_break), 0),
                None => {
                    let mut line_break = String::new();
                    new_line(&mut line_break, deeper);
                    (Cow::Owned(line_break), 0)
                }
            },
            // Each line after the first is indented at least as deep as the value stands.
            None => (Cow::Borrowed("\n"), (form.depth - depth) * INDENT.len()),
        };
        let mut from = 0;
        for line_end in memchr::memchr_iter(b'\n', scratch.as_bytes()) {
            text.push_str(&scratch[from..line_end]);
            text.push_str(&line_break);
            from = line_end + 1 + skipped;
        }
        text.push_str(&scratch[from..]);
        self.deepest = self.deepest.max(depth + form.nesting);
    }
}

/// A value written into [`Output::text`] that may be written again ([`Output::copy_form`]).
#[derive(Clone, Copy, Debug)]
struct WrittenForm {
    start: usize,
    end: usize,
    /// The depth it was written at.
    depth: usize,
    /// The most containers open at once within it, itself counted.
    nesting: usize,
}

/// Writes `value` at `depth`, standing in `position`; a JSON value standing in a schema
/// position is recorded in [`Output::forms`] if it is an array or object.
fn write_value<T: Serialize + ?Sized>(
    out: &mut Output,
    depth: usize,
    position: Position,
    value: &T,
) -> Result<(), Error> {
    if position != Position::Schema || !is_json_value::<T>() {
        return value.serialize(Writer::new(out, depth, position, None));
    }
    let start = out.text.len();
    let deepest_around = std::mem::replace(&mut out.deepest, depth);
    value.serialize(Writer::new(out, depth, position, None))?;
    let deepest = out.deepest;
    out.deepest = deepest_around.max(deepest);
    if deepest > depth {
        let form = WrittenForm {
            start,
            end: out.text.len(),
            depth,
            nesting: deepest - depth,
        };
        out.forms.insert(address_of(value), form);
    }
    Ok(())
}

/// Whether `T` is [`Value`]: the only type whose address [`UNCHANGED_SUBSCHEMA`] names.
fn is_json_value<T: ?Sized>() -> bool {
    std::any::type_name::<T>() == std::any::type_name::<Value>()
}

/// The address of `value`, which names it among the values alive while one document is written.
fn address_of<T: ?Sized>(value: &T) -> usize {
    std::ptr::from_ref(value).cast::<()>().addr()
}

impl ser::SerializeMap for Object<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.map_key(key)
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.map_value(value)
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
        self.field(key, value)
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
        close_variant(&mut self.inner.finish().text, self.depth);
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
        self.inner.field(key, value)
    }

    fn end(self) -> Result<(), Error> {
        close_variant(&mut self.inner.finish().text, self.depth);
        Ok(())
    }
}

/// Writes a map key as `serde_json::to_value` reads it: a string, or a number or `bool` as its
/// text, in quotes. Gives the key back only if an escape makes the written text differ from
/// it.
struct KeyWriter<'a>(&'a mut String);

impl KeyWriter<'_> {
    fn text(self, text: &str) -> Result<Option<String>, Error> {
        Ok(write_string(self.0, text).then(|| text.to_owned()))
    }

    fn plain(self, text: &str) -> Result<Option<String>, Error> {
        self.0.push('"');
        self.0.push_str(text);
        self.0.push('"');
        Ok(None)
    }
}

fn not_a_string_key() -> Error {
    Error::custom("a map key must be a string")
}

impl ser::Serializer for KeyWriter<'_> {
    type Ok = Option<String>;
    type Error = Error;
    type SerializeSeq = ser::Impossible<Option<String>, Error>;
    type SerializeTuple = ser::Impossible<Option<String>, Error>;
    type SerializeTupleStruct = ser::Impossible<Option<String>, Error>;
    type SerializeTupleVariant = ser::Impossible<Option<String>, Error>;
    type SerializeMap = ser::Impossible<Option<String>, Error>;
    type SerializeStruct = ser::Impossible<Option<String>, Error>;
    type SerializeStructVariant = ser::Impossible<Option<String>, Error>;

    fn serialize_str(self, value: &str) -> Result<Option<String>, Error> {
        self.text(value)
    }

    fn serialize_char(self, value: char) -> Result<Option<String>, Error> {
        self.text(value.encode_utf8(&mut [0; 4]))
    }

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<Option<String>, Error> {
        self.text(variant)
    }

    fn serialize_bool(self, value: bool) -> Result<Option<String>, Error> {
        self.plain(if value { "true" } else { "false" })
    }

    fn serialize_i8(self, value: i8) -> Result<Option<String>, Error> {
        self.serialize_i64(value.into())
    }

    fn serialize_i16(self, value: i16) -> Result<Option<String>, Error> {
        self.serialize_i64(value.into())
    }

    fn serialize_i32(self, value: i32) -> Result<Option<String>, Error> {
        self.serialize_i64(value.into())
    }

    fn serialize_i64(self, value: i64) -> Result<Option<String>, Error> {
        self.plain(itoa::Buffer::new().format(value))
    }

    fn serialize_i128(self, value: i128) -> Result<Option<String>, Error> {
        match i64::try_from(value) {
            Ok(value) => self.serialize_i64(value),
            Err(_) => self.serialize_u128(u128::try_from(value).map_err(out_of_range)?),
        }
    }

    fn serialize_u8(self, value: u8) -> Result<Option<String>, Error> {
        self.serialize_u64(value.into())
    }

    fn serialize_u16(self, value: u16) -> Result<Option<String>, Error> {
        self.serialize_u64(value.into())
    }

    fn serialize_u32(self, value: u32) -> Result<Option<String>, Error> {
        self.serialize_u64(value.into())
    }

    fn serialize_u64(self, value: u64) -> Result<Option<String>, Error> {
        self.plain(itoa::Buffer::new().format(value))
    }

    fn serialize_u128(self, value: u128) -> Result<Option<String>, Error> {
        self.serialize_u64(u64::try_from(value).map_err(out_of_range)?)
    }

    fn serialize_f32(self, value: f32) -> Result<Option<String>, Error> {
        self.serialize_f64(value.into())
    }

    fn serialize_f64(self, value: f64) -> Result<Option<String>, Error> {
        // `to_value` makes a number of a finite float, and `null` (no key) of any other.
        let number = Number::from_f64(value).ok_or_else(not_a_string_key)?;
        self.plain(&number.to_string())
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Option<String>, Error> {
        value.serialize(self)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<Option<String>, Error> {
        value.serialize(self)
    }

    fn serialize_bytes(self, _value: &[u8]) -> Result<Option<String>, Error> {
        Err(not_a_string_key())
    }

    fn serialize_none(self) -> Result<Option<String>, Error> {
        Err(not_a_string_key())
    }

    fn serialize_unit(self) -> Result<Option<String>, Error> {
        Err(not_a_string_key())
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<Option<String>, Error> {
        Err(not_a_string_key())
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<Option<String>, Error> {
        Err(not_a_string_key())
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        Err(not_a_string_key())
    }

    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, Error> {
        Err(not_a_string_key())
    }

    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct, Error> {
        Err(not_a_string_key())
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(not_a_string_key())
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, Error> {
        Err(not_a_string_key())
    }

    fn serialize_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStruct, Error> {
        Err(not_a_string_key())
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(not_a_string_key())
    }
}

#[cfg(test)]
#[path = "canonical_json_tests.rs"]
mod tests;
