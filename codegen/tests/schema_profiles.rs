//! Projections never accept less than the canonical form: for every schema abgen prints (each
//! oracle corpus case, both sides, and every curator tool), instances generated from the
//! 2020-12 form and valid under it must be valid under the `draft-07-lax` form (validated as
//! draft-07) and under each host profile's form (under the draft it declares). Property tests
//! with 10,000 cases per profile; every projection also compiles with the `jsonschema` crate.

use std::sync::atomic::{AtomicUsize, Ordering};

use abgen::schema::profile::{DRAFT_07, Profile, project};
use jsonschema::Validator;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{Map, Value, json};

mod schema_support;

use schema_support::printed_schemas;

fn compile(schema: &Value) -> Validator {
    let compiled = if schema["$schema"] == DRAFT_07 {
        jsonschema::draft7::new(schema)
    } else {
        jsonschema::draft202012::new(schema)
    };
    compiled.unwrap_or_else(|error| panic!("{schema} does not compile: {error}"))
}

/// A small deterministic generator walking a schema (xorshift; the seed comes from proptest).
struct Instances(u64);

impl Instances {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next() % n }
    }

    fn pick<'v>(&mut self, items: &'v [Value]) -> Option<&'v Value> {
        items.get(self.below(items.len() as u64) as usize)
    }

    /// A value shaped by `schema`; usually valid, sometimes not (the property then holds
    /// vacuously for that case).
    fn value(&mut self, schema: &Value, depth: usize) -> Value {
        let Value::Object(schema) = schema else {
            return json!(null);
        };
        if let Some(value) = schema.get("const") {
            return value.clone();
        }
        if let Some(Value::Array(values)) = schema.get("enum") {
            return self.pick(values).cloned().unwrap_or(Value::Null);
        }
        for key in ["anyOf", "oneOf", "allOf"] {
            if let Some(Value::Array(branches)) = schema.get(key) {
                let branch = if key == "allOf" {
                    branches.last()
                } else {
                    self.pick(branches)
                };
                if let Some(branch) = branch {
                    let mut merged = schema.clone();
                    merged.remove(key);
                    for (k, v) in branch.as_object().into_iter().flatten() {
                        merged.insert(k.clone(), v.clone());
                    }
                    return self.value(&Value::Object(merged), depth);
                }
            }
        }
        let kind = match schema.get("type") {
            Some(Value::String(kind)) => kind.clone(),
            Some(Value::Array(kinds)) => self
                .pick(kinds)
                .and_then(Value::as_str)
                .unwrap_or("null")
                .to_owned(),
            _ => ["string", "number", "boolean", "null"][self.below(4) as usize].to_owned(),
        };
        match kind.as_str() {
            "string" => self.string(schema),
            "number" | "integer" => self.number(schema, kind == "integer"),
            "boolean" => json!(self.below(2) == 0),
            "object" if depth < 6 => self.object(schema, depth),
            "array" if depth < 6 => self.array(schema, depth),
            "null" => Value::Null,
            _ => json!({}),
        }
    }

    fn string(&mut self, schema: &Map<String, Value>) -> Value {
        const SAMPLES: [&str; 14] = [
            "a",
            "ab",
            "x@example.com",
            "2024-02-29T12:00:00Z",
            "2024-02-29",
            "12:30",
            "127.0.0.1",
            "::1",
            "0f8fe5a2-5b5c-4f4c-9b0e-0c8a5c5e7f4a",
            "https://example.com",
            "a.md",
            "abc",
            "le-guin",
            "",
        ];
        if schema.contains_key("pattern")
            || schema.contains_key("format")
            || schema.contains_key("allOf")
        {
            return json!(SAMPLES[self.below(SAMPLES.len() as u64) as usize]);
        }
        let min = schema.get("minLength").and_then(Value::as_u64).unwrap_or(0);
        let max = schema
            .get("maxLength")
            .and_then(Value::as_u64)
            .unwrap_or(min + 8)
            .min(min + 8);
        let length = min + self.below(max.saturating_sub(min) + 1);
        let text: String = (0..length)
            .map(|_| (b'a' + self.below(26) as u8) as char)
            .collect();
        json!(text)
    }

    fn number(&mut self, schema: &Map<String, Value>, integer: bool) -> Value {
        let bound = |key: &str| schema.get(key).and_then(Value::as_f64);
        let low = bound("minimum")
            .or(bound("exclusiveMinimum").map(|v| v + 1.0))
            .unwrap_or(-100.0)
            .max(-1e6);
        let high = bound("maximum")
            .or(bound("exclusiveMaximum").map(|v| v - 1.0))
            .unwrap_or(low + 200.0)
            .min(low + 1e6);
        let span = (high - low).max(0.0);
        let mut value = low + (self.below(1001) as f64 / 1000.0) * span;
        if let Some(step) = bound("multipleOf") {
            value = (value / step).round() * step;
        }
        if integer || self.below(2) == 0 {
            json!(value.round() as i64)
        } else {
            json!(value)
        }
    }

    fn object(&mut self, schema: &Map<String, Value>, depth: usize) -> Value {
        let mut out = Map::new();
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        if let Some(Value::Object(properties)) = schema.get("properties") {
            for (name, property) in properties {
                if required.contains(&name.as_str()) || self.below(2) == 0 {
                    out.insert(name.clone(), self.value(property, depth + 1));
                }
            }
        }
        let names: Vec<Value> = match schema.get("propertyNames") {
            Some(Value::Object(names)) => match names.get("enum") {
                Some(Value::Array(values)) => values.clone(),
                _ => vec![json!("k"), json!("key")],
            },
            _ => vec![json!("extra")],
        };
        match schema.get("additionalProperties") {
            Some(Value::Bool(false)) => {}
            Some(additional) => {
                for name in names.iter().filter_map(Value::as_str) {
                    if required.contains(&name) || self.below(2) == 0 {
                        out.insert(name.to_owned(), self.value(additional, depth + 1));
                    }
                }
            }
            None if self.below(4) == 0 => {
                out.insert("extra".to_owned(), json!(1));
            }
            None => {}
        }
        Value::Object(out)
    }

    fn array(&mut self, schema: &Map<String, Value>, depth: usize) -> Value {
        let min = schema.get("minItems").and_then(Value::as_u64).unwrap_or(0);
        let max = schema
            .get("maxItems")
            .and_then(Value::as_u64)
            .unwrap_or(min + 3)
            .min(min + 3);
        let length = min + self.below(max.saturating_sub(min) + 1);
        let prefix: &[Value] = match schema.get("prefixItems") {
            Some(Value::Array(prefix)) => prefix,
            _ => &[],
        };
        let rest = schema.get("items").cloned().unwrap_or(json!({}));
        (0..length as usize)
            .map(|index| match prefix.get(index) {
                Some(position) => self.value(position, depth + 1),
                None => self.value(&rest, depth + 1),
            })
            .collect()
    }
}

fn projections_accept_what_the_canonical_form_accepts(profile: Profile) {
    let schemas: Vec<Value> = printed_schemas()
        .into_iter()
        .map(|(_, schema)| schema)
        .collect();
    assert!(schemas.len() > 450, "only {} schemas", schemas.len());
    let pairs: Vec<(Validator, Validator)> = schemas
        .iter()
        .map(|schema| {
            let projected =
                project(schema, profile, false).expect("non-root projections never fail");
            (compile(schema), compile(&projected))
        })
        .collect();
    let valid = AtomicUsize::new(0);
    let mut runner = TestRunner::new(Config {
        cases: 10_000,
        failure_persistence: None,
        ..Config::default()
    });
    let strategy = (0..pairs.len(), any::<u64>());
    let result = runner.run(&strategy, |(index, seed)| {
        let mut instances = Instances(seed | 1);
        let instance = instances.value(&schemas[index], 0);
        let (canonical, projected) = &pairs[index];
        if canonical.is_valid(&instance) {
            valid.fetch_add(1, Ordering::Relaxed);
            prop_assert!(
                projected.is_valid(&instance),
                "{} rejects {instance} that 2020-12 accepts under {}",
                profile.name(),
                schemas[index]
            );
        }
        Ok(())
    });
    if let Err(failure) = result {
        panic!("{failure}");
    }
    // The generator aims at valid instances; most must be, or the property says little.
    let valid = valid.load(Ordering::Relaxed);
    assert!(
        valid >= 6_000,
        "only {valid} of 10,000 generated instances were valid"
    );
}

#[test]
fn draft_07_lax_accepts_every_valid_instance() {
    projections_accept_what_the_canonical_form_accepts(Profile::Draft07Lax);
}

#[test]
fn claude_accepts_every_valid_instance() {
    projections_accept_what_the_canonical_form_accepts(Profile::Claude);
}

#[test]
fn codex_accepts_every_valid_instance() {
    projections_accept_what_the_canonical_form_accepts(Profile::Codex);
}

#[test]
fn cursor_accepts_every_valid_instance() {
    projections_accept_what_the_canonical_form_accepts(Profile::Cursor);
}
