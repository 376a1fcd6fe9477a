//! The schema IR: what a zod schema accepts, kept close to zod's own model (wrappers stay
//! wrappers, string and number checks stay an ordered list) so that every printer can reproduce
//! zod's decisions (which bound wins, which wrapper makes a property optional) exactly.
//!
//! Built by `translate`, read by `print` and `profile`. Invariant: the IR never holds a value
//! that was not written in the source (no defaults invented), and object properties keep the
//! author's source order.

use std::borrow::Cow;

use serde_json::{Map, Value};

/// Which side of a schema is printed: what a caller may send (`input`, a tool's arguments) or
/// what parsing returns (`output`, a tool's result).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Io {
    Input,
    Output,
}

/// One schema node and the metadata (`describe`, `meta`) written on it.
#[derive(Clone, Debug, PartialEq)]
pub struct Schema {
    pub kind: Kind,
    /// `description`, `title`, `examples` and any other `meta` key, in the order written.
    pub meta: Meta,
}

/// A node's metadata. Most nodes have none, so it takes one pointer until the first key; the
/// few keys a node has are found by a scan, in the order first written (a key written again
/// keeps its place, as in a JavaScript object).
#[derive(Clone, Debug, Default)]
pub struct Meta(Option<Box<[(String, Value)]>>);

/// Equal when they hold the same keys with the same values, in any order (as maps compare).
impl PartialEq for Meta {
    fn eq(&self, other: &Self) -> bool {
        self.iter().count() == other.iter().count()
            && self
                .iter()
                .all(|(key, value)| other.get(key) == Some(value))
    }
}

impl Meta {
    pub fn insert(&mut self, key: String, value: Value) {
        let mut slots = self.0.iter_mut().flat_map(|entries| entries.iter_mut());
        if let Some((_, slot)) = slots.find(|(name, _)| *name == key) {
            *slot = value;
            return;
        }
        let earlier = self.0.take().unwrap_or_default();
        let mut entries = Vec::with_capacity(earlier.len() + 1);
        entries.extend(earlier);
        entries.push((key, value));
        self.0 = Some(entries.into_boxed_slice());
    }

    pub fn extend(&mut self, entries: Map<String, Value>) {
        for (key, value) in entries {
            self.insert(key, value);
        }
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        let entries = self.0.as_ref()?;
        entries
            .iter()
            .find_map(|(name, value)| (name == key).then_some(value))
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    pub fn is_empty(&self) -> bool {
        self.0.as_ref().is_none_or(|entries| entries.is_empty())
    }

    pub fn iter(&self) -> impl Iterator<Item = (&String, &Value)> {
        self.0
            .iter()
            .flat_map(|entries| entries.iter().map(|(key, value)| (key, value)))
    }
}

impl Schema {
    pub fn new(kind: Kind) -> Self {
        Self {
            kind,
            meta: Meta::default(),
        }
    }

    /// The schema wrapped: the wrapper starts without metadata (zod keeps it on the inner node).
    pub fn wrap(self, wrapper: impl FnOnce(Box<Schema>) -> Kind) -> Self {
        Self::new(wrapper(Box::new(self)))
    }

    /// Whether an object property of this schema may be left out on the `io` side.
    pub fn is_optional(&self, io: Io) -> bool {
        match &self.kind {
            Kind::Optional(_) => true,
            Kind::Default(_, _) => io == Io::Input,
            Kind::NonOptional(_) => false,
            Kind::Nullable(inner)
            | Kind::Catch(inner, _)
            | Kind::Readonly(inner)
            | Kind::Transform(inner) => inner.is_optional(io),
            _ => false,
        }
    }

    /// The node under every wrapper (optional, nullable, default, catch, readonly…).
    pub fn unwrapped(&self) -> &Schema {
        match &self.kind {
            Kind::Optional(inner)
            | Kind::Nullable(inner)
            | Kind::Default(inner, _)
            | Kind::Catch(inner, _)
            | Kind::Readonly(inner)
            | Kind::NonOptional(inner)
            | Kind::Transform(inner) => inner.unwrapped(),
            _ => self,
        }
    }
}

/// What a node is.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    Any,
    Unknown,
    Never,
    Boolean,
    Null,
    /// `z.undefined()`: no JSON form; a result of this type has no output schema.
    Undefined,
    String(Vec<StringCheck>),
    Number {
        integer: bool,
        checks: Vec<NumberCheck>,
    },
    /// `z.literal(v)` or `z.literal([v, …])`.
    Literal(Vec<Value>),
    /// `z.enum([...])`, `z.enum({...})`, `z.nativeEnum({...})`: the values in order.
    Enum(Vec<Value>),
    Object(ObjectShape),
    Array {
        item: Box<Schema>,
        checks: Vec<LengthCheck>,
    },
    Tuple {
        items: Vec<Schema>,
        rest: Option<Box<Schema>>,
    },
    Union {
        options: Vec<Schema>,
        discriminated: bool,
    },
    Intersection(Box<Schema>, Box<Schema>),
    Record {
        key: Box<Schema>,
        value: Box<Schema>,
    },
    Optional(Box<Schema>),
    Nullable(Box<Schema>),
    /// The value boxed, as every large payload here: a `Value` is 80 bytes, and the largest
    /// variant sets the size of every node, which translation moves by value level by level.
    Default(Box<Schema>, Box<Value>),
    Catch(Box<Schema>, Box<Value>),
    Readonly(Box<Schema>),
    /// A property made required by `.required()`.
    NonOptional(Box<Schema>),
    /// `.transform(f)`: the input side is the inner schema, the output side is unknown.
    Transform(Box<Schema>),
}

/// A string check, in the order written.
#[derive(Clone, Debug, PartialEq)]
pub enum StringCheck {
    MinLength(u64),
    MaxLength(u64),
    Length(u64),
    /// `.regex(/p/)`: clears the format (zod's `regex` format prints none).
    Regex(String),
    /// A named format with its zod pattern, if zod prints one.
    Format {
        name: &'static str,
        /// zod's own patterns are static text, shared rather than copied into every schema.
        pattern: Option<Cow<'static, str>>,
    },
}

/// A number check, in the order written.
#[derive(Clone, Debug, PartialEq)]
pub enum NumberCheck {
    Min { value: f64, inclusive: bool },
    Max { value: f64, inclusive: bool },
    MultipleOf(Value),
}

/// An array length check, in the order written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LengthCheck {
    Min(u64),
    Max(u64),
    Exact(u64),
}

/// An object's properties (source order) and what it does with other keys.
#[derive(Clone, Debug, PartialEq)]
pub struct ObjectShape {
    pub properties: Vec<(String, Schema)>,
    pub unknown_keys: UnknownKeys,
}

impl ObjectShape {
    /// Sets `key`, replacing an earlier property in place (JavaScript spread order).
    pub fn set(&mut self, key: String, schema: Schema) {
        match self.properties.iter_mut().find(|(name, _)| *name == key) {
            Some((_, slot)) => *slot = schema,
            None => self.properties.push((key, schema)),
        }
    }
}

/// What an object does with keys it does not list.
#[derive(Clone, Debug, PartialEq)]
pub enum UnknownKeys {
    /// `z.object`: dropped when parsing.
    Strip,
    /// `z.strictObject`, `.strict()`: rejected.
    Strict,
    /// `z.looseObject`, `.passthrough()`: kept.
    Passthrough,
    /// `.catchall(schema)`: kept when they match.
    Catchall(Box<Schema>),
}
