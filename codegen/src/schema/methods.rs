//! The chained zod methods abgen translates: wrappers and metadata on every schema
//! (`.optional()`, `.describe()`, `.meta()`…), checks on strings, numbers and arrays, and the
//! object helpers (`.extend()`, `.pick()`, `.partial()`…).
//!
//! Entry call: [`Translator::method`]. Invariant: a method applies only to the kind zod defines
//! it on; any other pairing, or a method abgen does not know, is a fallback naming it.

use serde_json::Value;

use super::formats::{affix_pattern, string_format};
use super::ir::{Kind, LengthCheck, NumberCheck, ObjectShape, Schema, StringCheck, UnknownKeys};
use super::modules::ModuleRef;
use super::translate::{Translated, Translator, fallback};
use super::zod_calls::{arg, safe_integer_checks};
use crate::diagnostics::{Code, Span};
use crate::extract::{ExprKind, Exprs};

/// Methods that change nothing zod prints (refinements are not printed by zod either).
const NO_SCHEMA_EFFECT: [&str; 10] = [
    "refine",
    "superRefine",
    "check",
    "brand",
    "trim",
    "toLowerCase",
    "toUpperCase",
    "normalize",
    "finite",
    "strip",
];

impl<'a> Translator<'_, 'a> {
    /// `base.<name>(args…)`.
    pub fn method(
        &mut self,
        module: &ModuleRef<'a>,
        mut base: Schema,
        name: &str,
        args: Exprs<'_>,
        span: Span,
    ) -> Translated<Schema> {
        match name {
            "optional" => return Ok(base.wrap(Kind::Optional)),
            "nullable" => return Ok(base.wrap(Kind::Nullable)),
            "nullish" => return Ok(base.wrap(Kind::Nullable).wrap(Kind::Optional)),
            "readonly" => return Ok(base.wrap(Kind::Readonly)),
            "transform" => return Ok(base.wrap(Kind::Transform)),
            "array" => {
                return Ok(Schema::new(Kind::Array {
                    item: Box::new(base),
                    checks: Vec::new(),
                }));
            }
            "default" | "prefault" | "catch" => {
                let value = match self.value(module, arg(module, args, 0, span)?) {
                    Ok(value) => value,
                    Err(mut fallback) => {
                        fallback.code = Code::AB5102;
                        fallback.construct = format!(
                            "a `.{name}()` value computed at run time ({})",
                            fallback.construct
                        );
                        return Err(fallback);
                    }
                };
                return Ok(match name {
                    "catch" => base.wrap(|inner| Kind::Catch(inner, Box::new(value))),
                    _ => base.wrap(|inner| Kind::Default(inner, Box::new(value))),
                });
            }
            "describe" => {
                let description = self.value(module, arg(module, args, 0, span)?)?;
                base.meta.insert("description".to_owned(), description);
                return Ok(base);
            }
            "meta" => {
                if let Value::Object(entries) = self.value(module, arg(module, args, 0, span)?)? {
                    base.meta.extend(entries);
                    return Ok(base);
                }
            }
            "or" => {
                let other = self.schema(module, arg(module, args, 0, span)?)?;
                return Ok(Schema::new(Kind::Union {
                    options: vec![base, other],
                    discriminated: false,
                }));
            }
            "and" => {
                let other = self.schema(module, arg(module, args, 0, span)?)?;
                return Ok(Schema::new(Kind::Intersection(
                    Box::new(base),
                    Box::new(other),
                )));
            }
            // The two sides of a pipe are two schemas; abgen keeps one per node.
            "pipe" | "overwrite" => {
                return Err(fallback(
                    Code::AB5101,
                    format!("`.{name}()`, which abgen does not translate"),
                    module,
                    span,
                ));
            }
            name if NO_SCHEMA_EFFECT.contains(&name) => return Ok(base),
            _ => {}
        }
        let Schema { kind, meta } = base;
        let mut base = match kind {
            Kind::Object(shape) => return self.object_method(module, shape, name, args, span),
            kind => Schema { kind, meta },
        };
        let applied = match &mut base.kind {
            Kind::String(checks) => self.string_method(module, checks, name, args, span)?,
            Kind::Number { integer, checks } => {
                self.number_method(module, integer, checks, name, args, span)?
            }
            Kind::Array { checks, .. } => self.array_method(module, checks, name, args, span)?,
            Kind::Tuple { rest, .. } if name == "rest" => {
                *rest = Some(Box::new(self.schema(module, arg(module, args, 0, span)?)?));
                true
            }
            _ => false,
        };
        if applied {
            Ok(base)
        } else {
            Err(fallback(
                Code::AB5101,
                format!("`.{name}()`, which abgen does not translate on this schema"),
                module,
                span,
            ))
        }
    }

    fn count(&mut self, module: &ModuleRef<'a>, args: Exprs<'_>, span: Span) -> Translated<u64> {
        let value = self.value(module, arg(module, args, 0, span)?)?;
        value
            .as_u64()
            .ok_or_else(|| fallback(Code::AB5101, format!("a length of {value}"), module, span))
    }

    fn bound(&mut self, module: &ModuleRef<'a>, args: Exprs<'_>, span: Span) -> Translated<f64> {
        let value = self.value(module, arg(module, args, 0, span)?)?;
        value
            .as_f64()
            .ok_or_else(|| fallback(Code::AB5101, format!("a bound of {value}"), module, span))
    }

    fn string_method(
        &mut self,
        module: &ModuleRef<'a>,
        checks: &mut Vec<StringCheck>,
        name: &str,
        args: Exprs<'_>,
        span: Span,
    ) -> Translated<bool> {
        let check = match name {
            "min" => StringCheck::MinLength(self.count(module, args, span)?),
            "max" => StringCheck::MaxLength(self.count(module, args, span)?),
            "length" => StringCheck::Length(self.count(module, args, span)?),
            "nonempty" => StringCheck::MinLength(1),
            "regex" => match arg(module, args, 0, span)?.kind() {
                ExprKind::Regex { pattern, .. } => StringCheck::Regex(pattern.to_string()),
                _ => return Ok(false),
            },
            "startsWith" | "endsWith" | "includes" => {
                let Value::String(text) = self.value(module, arg(module, args, 0, span)?)? else {
                    return Ok(false);
                };
                match affix_pattern(name, &text) {
                    Some(check) => check,
                    None => return Ok(false),
                }
            }
            "email" | "uuid" | "url" | "datetime" | "date" | "time" | "ipv4" | "ipv6"
                if args.is_empty() =>
            {
                match string_format(name) {
                    Some(check) => check,
                    None => return Ok(false),
                }
            }
            _ => return Ok(false),
        };
        checks.push(check);
        Ok(true)
    }

    fn number_method(
        &mut self,
        module: &ModuleRef<'a>,
        integer: &mut bool,
        checks: &mut Vec<NumberCheck>,
        name: &str,
        args: Exprs<'_>,
        span: Span,
    ) -> Translated<bool> {
        let (value, inclusive, lower) = match name {
            "min" | "gte" => (self.bound(module, args, span)?, true, true),
            "gt" => (self.bound(module, args, span)?, false, true),
            "max" | "lte" => (self.bound(module, args, span)?, true, false),
            "lt" => (self.bound(module, args, span)?, false, false),
            "positive" => (0.0, false, true),
            "nonnegative" => (0.0, true, true),
            "negative" => (0.0, false, false),
            "nonpositive" => (0.0, true, false),
            "multipleOf" | "step" => {
                let value = self.value(module, arg(module, args, 0, span)?)?;
                checks.push(NumberCheck::MultipleOf(value));
                return Ok(true);
            }
            "int" | "safe" => {
                *integer |= name == "int";
                checks.extend(safe_integer_checks());
                return Ok(true);
            }
            _ => return Ok(false),
        };
        checks.push(if lower {
            NumberCheck::Min { value, inclusive }
        } else {
            NumberCheck::Max { value, inclusive }
        });
        Ok(true)
    }

    fn array_method(
        &mut self,
        module: &ModuleRef<'a>,
        checks: &mut Vec<LengthCheck>,
        name: &str,
        args: Exprs<'_>,
        span: Span,
    ) -> Translated<bool> {
        let check = match name {
            "min" => LengthCheck::Min(self.count(module, args, span)?),
            "max" => LengthCheck::Max(self.count(module, args, span)?),
            "length" => LengthCheck::Exact(self.count(module, args, span)?),
            "nonempty" => LengthCheck::Min(1),
            _ => return Ok(false),
        };
        checks.push(check);
        Ok(true)
    }

    /// Object helpers build a new object: zod does not carry the base's metadata over.
    fn object_method(
        &mut self,
        module: &ModuleRef<'a>,
        mut shape: ObjectShape,
        name: &str,
        args: Exprs<'_>,
        span: Span,
    ) -> Translated<Schema> {
        match name {
            "strict" => shape.unknown_keys = UnknownKeys::Strict,
            "passthrough" | "loose" => shape.unknown_keys = UnknownKeys::Passthrough,
            "catchall" => {
                let rest = self.schema(module, arg(module, args, 0, span)?)?;
                shape.unknown_keys = UnknownKeys::Catchall(Box::new(rest));
            }
            "extend" | "safeExtend" => {
                for (key, schema) in self.shape(module, arg(module, args, 0, span)?)? {
                    shape.set(key, schema);
                }
            }
            "merge" => {
                let other = self.schema(module, arg(module, args, 0, span)?)?;
                let Kind::Object(other) = other.kind else {
                    return Err(fallback(
                        Code::AB5101,
                        "`.merge()` with a schema that is not an object",
                        module,
                        span,
                    ));
                };
                for (key, schema) in other.properties {
                    shape.set(key, schema);
                }
                shape.unknown_keys = other.unknown_keys;
            }
            "pick" | "omit" => {
                let keys = self.mask(module, args, span)?.unwrap_or_default();
                let keep_listed = name == "pick";
                shape
                    .properties
                    .retain(|(key, _)| keys.contains(key) == keep_listed);
            }
            "partial" | "required" => {
                let keys = self.mask(module, args, span)?;
                let properties = std::mem::take(&mut shape.properties);
                shape.properties = properties
                    .into_iter()
                    .map(|(key, schema)| {
                        let selected = keys.as_ref().is_none_or(|keys| keys.contains(&key));
                        let schema = match (selected, name) {
                            (false, _) => schema,
                            (true, "partial") => schema.wrap(Kind::Optional),
                            (true, _) => schema.wrap(Kind::NonOptional),
                        };
                        (key, schema)
                    })
                    .collect();
            }
            "keyof" => {
                let keys = shape
                    .properties
                    .into_iter()
                    .map(|(key, _)| Value::String(key));
                return Ok(Schema::new(Kind::Enum(keys.collect())));
            }
            _ => {
                return Err(fallback(
                    Code::AB5101,
                    format!("`.{name}()`, which abgen does not translate on an object"),
                    module,
                    span,
                ));
            }
        }
        Ok(Schema::new(Kind::Object(ObjectShape {
            properties: shape.properties,
            unknown_keys: shape.unknown_keys,
        })))
    }

    /// The keys of a `{ key: true }` mask, or `None` when the call has no mask.
    fn mask(
        &mut self,
        module: &ModuleRef<'a>,
        args: Exprs<'_>,
        span: Span,
    ) -> Translated<Option<Vec<String>>> {
        let Some(mask) = args.first() else {
            return Ok(None);
        };
        match self.value(module, mask)? {
            Value::Object(entries) => Ok(Some(
                entries
                    .into_iter()
                    .filter(|(_, value)| *value == Value::Bool(true))
                    .map(|(key, _)| key)
                    .collect(),
            )),
            _ => Err(fallback(
                Code::AB5101,
                "a key mask that is not an object literal",
                module,
                span,
            )),
        }
    }
}
