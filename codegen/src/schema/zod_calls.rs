//! The zod constructors abgen translates: `z.string()`, `z.object({...})`, `z.iso.datetime()`…
//!
//! Entry call: [`Translator::zod_call`]. Invariant: a constructor whose result only zod can
//! compute (`z.lazy`, `z.custom`, `z.preprocess`) or that has no JSON Schema form (`z.date`,
//! `z.bigint`) is a fallback with its own code, never a guess.

use serde_json::Value;

use super::formats::string_format;
use super::ir::{Kind, NumberCheck, ObjectShape, Schema, UnknownKeys};
use super::modules::ModuleRef;
use super::print_scalars::MAX_SAFE_INTEGER;
use super::translate::{Namespace, Translated, Translator, describe, fallback};
use crate::diagnostics::{Code, Span};
use crate::extract::{Expr, ExprKind, Exprs};

/// The zod constructors whose schema only exists once zod runs.
const RUNTIME_ONLY: [&str; 5] = ["lazy", "custom", "preprocess", "instanceof", "codec"];

/// The zod types JSON Schema cannot represent (zod's own `toJSONSchema` throws on them).
const UNREPRESENTABLE: [&str; 9] = [
    "date", "bigint", "map", "set", "symbol", "void", "nan", "file", "promise",
];

/// The inclusive bounds `z.int()` and `.int()` add.
pub fn safe_integer_checks() -> Vec<NumberCheck> {
    vec![
        NumberCheck::Min {
            value: -MAX_SAFE_INTEGER,
            inclusive: true,
        },
        NumberCheck::Max {
            value: MAX_SAFE_INTEGER,
            inclusive: true,
        },
    ]
}

impl<'a> Translator<'_, 'a> {
    /// `z.<name>(args…)` or `z.iso.<name>(args…)`.
    pub fn zod_call(
        &mut self,
        module: &ModuleRef<'a>,
        namespace: Namespace,
        name: &str,
        args: Exprs<'_>,
        span: Span,
    ) -> Translated<Schema> {
        if namespace == Namespace::Coerce {
            return match name {
                "string" | "number" | "boolean" | "bigint" | "date" => {
                    self.zod_call(module, Namespace::Zod, name, args, span)
                }
                _ => Err(unknown_constructor(
                    module,
                    &format!("z.coerce.{name}"),
                    span,
                )),
            };
        }
        if namespace == Namespace::Iso {
            return match name {
                "datetime" | "date" | "time" => {
                    self.no_options(module, name, args, span)?;
                    let format = string_format(name).into_iter().collect();
                    Ok(Schema::new(Kind::String(format)))
                }
                _ => Err(unknown_constructor(module, &format!("z.iso.{name}"), span)),
            };
        }
        let kind = match name {
            "string" => Kind::String(Vec::new()),
            "number" => Kind::Number {
                integer: false,
                checks: Vec::new(),
            },
            "int" => Kind::Number {
                integer: true,
                checks: safe_integer_checks(),
            },
            "boolean" => Kind::Boolean,
            "null" => Kind::Null,
            "undefined" => Kind::Undefined,
            "any" => Kind::Any,
            "unknown" => Kind::Unknown,
            "never" => Kind::Never,
            "email" | "uuid" | "url" | "ipv4" | "ipv6" => {
                self.no_options(module, name, args, span)?;
                Kind::String(string_format(name).into_iter().collect())
            }
            "literal" => match self.value(module, arg(module, args, 0, span)?)? {
                Value::Array(values) => Kind::Literal(values),
                value => Kind::Literal(vec![value]),
            },
            "enum" | "nativeEnum" => Kind::Enum(self.enum_values(module, args, span)?),
            "object" | "strictObject" | "looseObject" => {
                let properties = match args.first() {
                    Some(shape) => self.shape(module, shape)?,
                    None => Vec::new(),
                };
                let unknown_keys = match name {
                    "strictObject" => UnknownKeys::Strict,
                    "looseObject" => UnknownKeys::Passthrough,
                    _ => UnknownKeys::Strip,
                };
                Kind::Object(ObjectShape {
                    properties,
                    unknown_keys,
                })
            }
            "array" => Kind::Array {
                item: Box::new(self.schema(module, arg(module, args, 0, span)?)?),
                checks: Vec::new(),
            },
            "tuple" => {
                let items = self.schema_list(module, arg(module, args, 0, span)?)?;
                let rest = match args.get(1) {
                    Some(rest) => Some(Box::new(self.schema(module, rest)?)),
                    None => None,
                };
                Kind::Tuple { items, rest }
            }
            "union" | "xor" => Kind::Union {
                options: self.schema_list(module, arg(module, args, 0, span)?)?,
                discriminated: false,
            },
            "discriminatedUnion" => Kind::Union {
                options: self.schema_list(module, arg(module, args, 1, span)?)?,
                discriminated: true,
            },
            "intersection" => Kind::Intersection(
                Box::new(self.schema(module, arg(module, args, 0, span)?)?),
                Box::new(self.schema(module, arg(module, args, 1, span)?)?),
            ),
            "record" => Kind::Record {
                key: Box::new(self.schema(module, arg(module, args, 0, span)?)?),
                value: Box::new(self.schema(module, arg(module, args, 1, span)?)?),
            },
            "optional" => {
                Kind::Optional(Box::new(self.schema(module, arg(module, args, 0, span)?)?))
            }
            "nullable" => {
                Kind::Nullable(Box::new(self.schema(module, arg(module, args, 0, span)?)?))
            }
            "nullish" => {
                let inner = self.schema(module, arg(module, args, 0, span)?)?;
                return Ok(inner.wrap(Kind::Nullable).wrap(Kind::Optional));
            }
            name if RUNTIME_ONLY.contains(&name) => {
                return Err(fallback(
                    Code::AB5102,
                    format!("`z.{name}()`, whose schema only zod can compute"),
                    module,
                    span,
                ));
            }
            name if UNREPRESENTABLE.contains(&name) => {
                return Err(fallback(
                    Code::AB5105,
                    format!("`z.{name}()`, which has no JSON Schema form"),
                    module,
                    span,
                ));
            }
            name => return Err(unknown_constructor(module, &format!("z.{name}"), span)),
        };
        Ok(Schema::new(kind))
    }

    /// The schemas of an array literal (or a const naming one).
    pub fn schema_list(
        &mut self,
        module: &ModuleRef<'a>,
        expression: Expr<'_>,
    ) -> Translated<Vec<Schema>> {
        match expression.kind() {
            ExprKind::Array { items } => {
                items.iter().map(|item| self.schema(module, item)).collect()
            }
            _ => Err(fallback(
                Code::AB5104,
                format!(
                    "`{}` where an array of schemas is expected",
                    describe(expression)
                ),
                module,
                expression.span(),
            )),
        }
    }

    /// `z.enum(['a', 'b'])`, `z.enum({ A: 'a' })`, `z.nativeEnum({ A: 0 })`: the values in order.
    fn enum_values(
        &mut self,
        module: &ModuleRef<'a>,
        args: Exprs<'_>,
        span: Span,
    ) -> Translated<Vec<Value>> {
        match self.value(module, arg(module, args, 0, span)?)? {
            Value::Array(values) => Ok(values),
            Value::Object(entries) => Ok(entries.into_iter().map(|(_, value)| value).collect()),
            other => Err(fallback(
                Code::AB5101,
                format!("an enum of {other}, which is neither an array nor an object"),
                module,
                span,
            )),
        }
    }

    /// Format helpers take an optional `{ message }`-style object; any option that changes the
    /// accepted strings (`{ offset: true }`, `{ version: 'v4' }`) is not translated.
    fn no_options(
        &mut self,
        module: &ModuleRef<'a>,
        name: &str,
        args: Exprs<'_>,
        span: Span,
    ) -> Translated<()> {
        const HARMLESS: [&str; 2] = ["message", "error"];
        for argument in args.iter() {
            match self.value(module, argument) {
                Ok(Value::String(_)) => {}
                Ok(Value::Object(options))
                    if options.keys().all(|key| HARMLESS.contains(&key.as_str())) => {}
                _ => {
                    return Err(fallback(
                        Code::AB5101,
                        format!("options of `{name}()` that change what it accepts"),
                        module,
                        span,
                    ));
                }
            }
        }
        Ok(())
    }
}

/// The argument at `index`, or a fallback when the call has fewer arguments.
pub fn arg<'e>(
    module: &ModuleRef<'_>,
    args: Exprs<'e>,
    index: usize,
    span: Span,
) -> Translated<Expr<'e>> {
    args.get(index).ok_or_else(|| {
        fallback(
            Code::AB5101,
            format!("a call with fewer than {} arguments", index + 1),
            module,
            span,
        )
    })
}

fn unknown_constructor(
    module: &ModuleRef<'_>,
    name: &str,
    span: Span,
) -> Box<super::translate::Fallback> {
    fallback(
        Code::AB5101,
        format!("`{name}()`, which abgen does not translate"),
        module,
        span,
    )
}
