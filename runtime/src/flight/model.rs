//! Model rows as the decoder keeps them: JSON parsed into a compact, read-only tree.
//!
//! A `serde_json::Value` object is an insertion-ordered hash map (the workspace enables
//! `preserve_order`): two allocations and a SipHash per key, for objects the decoder reads
//! a few keys of, once. A [`Model`] object is a boxed slice of pairs read by a linear scan, and
//! every list is boxed to its length and a string of up to 24 bytes (most keys, element tags
//! and `$` references) is kept inline, so parsing a row allocates once per container and long
//! string, and dropping the table frees as much. Entry: [`Model::parse`]. Invariant:
//! a model reads as the `Value` of the same JSON would: numbers alike, and an object with a
//! repeated key holds it once, at its first place, with its last value (as `JSON.parse` does).

use std::collections::HashMap;
use std::fmt;

use serde::de::{Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Number;

/// One JSON value of a model row.
#[derive(Debug, Clone, PartialEq)]
pub enum Model {
    Null,
    Bool(bool),
    Number(Number),
    String(Text),
    Array(Box<[Model]>),
    Object(Fields),
}

/// The members of a JSON object, in order of first appearance, each key once.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Fields(Box<[(Text, Model)]>);

/// A string of a model: up to 24 bytes inline, longer ones on the heap.
pub type Text = compact_str::CompactString;

impl Model {
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Model::String(text) => Some(text),
            _ => None,
        }
    }
}

impl Fields {
    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&Model> {
        self.0
            .iter()
            .find(|(name, _)| &**name == key)
            .map(|(_, value)| value)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// The members in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Model)> {
        self.0.iter().map(|(key, value)| (&**key, value))
    }

    pub fn values(&self) -> impl Iterator<Item = &Model> {
        self.0.iter().map(|(_, value)| value)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }
}

/// Objects up to this many members are checked for a repeated key pair by pair.
const PAIRWISE_MEMBERS: usize = 16;

fn has_repeated_key(members: &[(Text, Model)]) -> bool {
    if members.len() <= PAIRWISE_MEMBERS {
        return members
            .iter()
            .enumerate()
            .any(|(index, (key, _))| members[..index].iter().any(|(seen, _)| seen == key));
    }
    let mut keys: Vec<&str> = members.iter().map(|(key, _)| &**key).collect();
    keys.sort_unstable();
    keys.windows(2).any(|pair| pair[0] == pair[1])
}

/// Each key once, at its first place, with its last value.
fn without_repeated_keys(members: Vec<(Text, Model)>) -> Vec<(Text, Model)> {
    let mut kept: Vec<(Text, Model)> = Vec::with_capacity(members.len());
    let mut places: HashMap<Text, usize> = HashMap::new();
    for (key, value) in members {
        match places.get(&key) {
            Some(&place) => kept[place].1 = value,
            None => {
                places.insert(key.clone(), kept.len());
                kept.push((key, value));
            }
        }
    }
    kept
}

/// The lists a parse fills before it knows their lengths, kept from row to row: each array and
/// object is gathered here, then moved into a slice of its exact length, one allocation.
#[derive(Debug, Default)]
pub struct Scratch {
    items: Vec<Model>,
    members: Vec<(Text, Model)>,
}

impl Model {
    /// Parses one JSON text, as `serde_json::from_slice` would (the same errors).
    pub fn parse(json: &[u8], scratch: &mut Scratch) -> Result<Model, serde_json::Error> {
        // A parse that failed part-way may have left its lists behind.
        scratch.items.clear();
        scratch.members.clear();
        let mut deserializer = serde_json::Deserializer::from_slice(json);
        let model = ModelSeed(scratch).deserialize(&mut deserializer)?;
        deserializer.end()?;
        Ok(model)
    }
}

impl<'de> Deserialize<'de> for Model {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        ModelSeed(&mut Scratch::default()).deserialize(deserializer)
    }
}

struct ModelSeed<'s>(&'s mut Scratch);

impl<'de> DeserializeSeed<'de> for ModelSeed<'_> {
    type Value = Model;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Model, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ModelSeed<'_> {
    type Value = Model;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("any valid JSON value")
    }

    fn visit_bool<E>(self, value: bool) -> Result<Model, E> {
        Ok(Model::Bool(value))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Model, E> {
        Ok(Model::Number(value.into()))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Model, E> {
        Ok(Model::Number(value.into()))
    }

    fn visit_f64<E>(self, value: f64) -> Result<Model, E> {
        // JSON has no non-finite numbers; serde_json's `Value` reads them as null alike.
        Ok(Number::from_f64(value).map_or(Model::Null, Model::Number))
    }

    fn visit_str<E>(self, value: &str) -> Result<Model, E> {
        Ok(Model::String(Text::new(value)))
    }

    fn visit_string<E>(self, value: String) -> Result<Model, E> {
        Ok(Model::String(Text::from(value)))
    }

    fn visit_none<E>(self) -> Result<Model, E> {
        Ok(Model::Null)
    }

    fn visit_unit<E>(self) -> Result<Model, E> {
        Ok(Model::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Model, D::Error> {
        self.deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Model, A::Error> {
        let start = self.0.items.len();
        while let Some(item) = seq.next_element_seed(ModelSeed(&mut *self.0))? {
            self.0.items.push(item);
        }
        Ok(Model::Array(self.0.items.drain(start..).collect()))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Model, A::Error> {
        let start = self.0.members.len();
        while let Some(key) = map.next_key::<KeyText>()? {
            let value = map.next_value_seed(ModelSeed(&mut *self.0))?;
            self.0.members.push((key.0, value));
        }
        let members = &mut self.0.members;
        if has_repeated_key(&members[start..]) {
            let kept = without_repeated_keys(members.drain(start..).collect());
            return Ok(Model::Object(Fields(kept.into_boxed_slice())));
        }
        Ok(Model::Object(Fields(members.drain(start..).collect())))
    }
}

/// An object key, straight from the parser's text.
struct KeyText(Text);

impl<'de> Deserialize<'de> for KeyText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = KeyText;

            fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
                formatter.write_str("a string key")
            }

            fn visit_str<E>(self, value: &str) -> Result<KeyText, E> {
                Ok(KeyText(Text::new(value)))
            }

            fn visit_string<E>(self, value: String) -> Result<KeyText, E> {
                Ok(KeyText(Text::from(value)))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;

    /// The model of a JSON text, turned back into a `Value` member by member.
    fn to_value(model: &Model) -> Value {
        match model {
            Model::Null => Value::Null,
            Model::Bool(value) => Value::Bool(*value),
            Model::Number(number) => Value::Number(number.clone()),
            Model::String(text) => Value::String(String::from(&**text)),
            Model::Array(items) => Value::Array(items.iter().map(to_value).collect()),
            Model::Object(fields) => Value::Object(
                fields
                    .iter()
                    .map(|(key, value)| (key.to_owned(), to_value(value)))
                    .collect(),
            ),
        }
    }

    /// Numbers of every kind, escapes, nesting, and repeated keys in small and large objects
    /// read exactly as serde_json's own `Value` reads them (order included).
    #[test]
    fn a_model_reads_as_the_value_of_the_same_json() {
        let large: Vec<String> = (0..40)
            .map(|index| format!(r#""k{}":{index}"#, index % 30))
            .collect();
        let texts = [
            r#"[1,-2,3.5,1e300,-0,-0.0,18446744073709551615,-9223372036854775808,0.1]"#.to_owned(),
            r#"{"a":"x\"y\u00e9\ud83d\ude00","b":[true,false,null,{}],"c":{"d":[]}}"#.to_owned(),
            r#"{"a":1,"b":2,"a":3}"#.to_owned(),
            format!("{{{}}}", large.join(",")),
            r#""$Sreact.suspense""#.to_owned(),
            // Around the inline length: 21, 22 and 23 bytes, and multi-byte characters.
            format!(
                r#"["{0}","{0}a","{0}ab",{{"{0}":1,"{0}a":2,"{0}ab":3}}]"#,
                "x".repeat(21)
            ),
            format!(r#"["{0}","{0}é","é{0}"]"#, "é".repeat(11)),
        ];
        for text in texts {
            let model: Model = serde_json::from_str(&text).expect("the model parses");
            let value: Value = serde_json::from_str(&text).expect("the value parses");
            assert_eq!(to_value(&model), value, "{text}");
        }
        let Model::Object(fields) = serde_json::from_str(r#"{"a":1,"b":2,"a":3}"#).unwrap() else {
            panic!("an object");
        };
        assert_eq!(fields.len(), 2);
        assert_eq!(fields.get("a"), Some(&Model::Number(3.into())));
    }

    #[test]
    fn broken_json_is_refused_as_serde_json_refuses_it() {
        for text in ["[1,", "{\"a\"}", "tru", "[1] 2"] {
            let ours = serde_json::from_str::<Model>(text).unwrap_err().to_string();
            let theirs = serde_json::from_str::<Value>(text).unwrap_err().to_string();
            assert_eq!(ours, theirs, "{text}");
        }
    }
}
