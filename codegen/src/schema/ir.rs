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

/// A node's metadata. Most nodes have none, so it takes one pointer until the first key.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Meta(Option<Box<Map<String, Value>>>);

impl Meta {
    pub fn insert(&mut self, key: String, value: Value) {
        self.0.get_or_insert_default().insert(key, value);
    }

    pub fn extend(&mut self, entries: Map<String, Value>) {
        self.0.get_or_insert_default().extend(entries);
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.as_ref()?.get(key)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    pub fn is_empty(&self) -> bool {
        self.0.as_ref().is_none_or(|map| map.is_empty())
    }

    pub fn iter(&self) -> impl Iterator<Item = (&String, &Value)> {
        self.0.iter().flat_map(|map| map.iter())
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
    Default(Box<Schema>, Value),
    Catch(Box<Schema>, Value),
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
