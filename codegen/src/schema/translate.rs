//! Translation of a captured zod expression ([`SchemaExpr`]) into the schema IR, following
//! local consts and consts exported by relative modules.
//!
//! Entry call: [`Translator::schema`]. Invariant: translation never guesses; whatever it cannot
//! know statically ends it with a [`Fallback`] naming the construct and where it stands, and a
//! cycle of references is a fallback with AB4839, never a loop. The zod constructors live in
//! `zod_calls`, the chained methods in `methods`.

use serde_json::{Map, Value};

use super::ir::Schema;
use super::modules::{ModuleRef, ModuleSet};
use crate::diagnostics::{Code, Location, Span};
use crate::extract::{Binding, SchemaExpr};

/// Why a schema is left to run time: the code, the construct as a user reads it, and where.
#[derive(Clone, Debug, PartialEq)]
pub struct Fallback {
    pub code: Code,
    pub construct: String,
    pub location: Location,
}

/// Boxed: a fallback is rare and large, and every successful step returns through this type.
pub type Translated<T> = Result<T, Box<Fallback>>;

/// How deep references may chain (a const naming a const naming…) before translation stops.
const MAX_REFERENCE_DEPTH: usize = 64;

/// How deep schemas may nest, references and method chains included, before translation
/// stops: each captured expression is bounded by the extractor, but a chain of references
/// multiplies the depth, and translation and printing recurse once per level (through
/// [`crate::stack::recurse`], so no thread's stack size matters). Real schemas stay well under
/// 64.
pub const MAX_SCHEMA_DEPTH: usize = 128;

/// The zod module specifiers whose `z` (or namespace) abgen reads.
const ZOD_MODULES: [&str; 3] = ["zod", "zod/v4", "zod/mini"];

/// A value that names a zod namespace rather than a schema.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Namespace {
    /// `z` (`import { z } from 'zod'`, `import * as z from 'zod'`, or an alias of either).
    Zod,
    /// `z.iso`.
    Iso,
    /// `z.coerce`: zod prints a coercing schema as the schema it coerces to.
    Coerce,
}

/// Translates expressions of the modules in one [`ModuleSet`].
pub struct Translator<'s, 'a> {
    pub(super) modules: &'s ModuleSet<'a>,
    /// The consts being translated, outermost first: `(module path, const name)`.
    following: Vec<(String, String)>,
    /// How many schema expressions are being translated, one inside the other.
    depth: usize,
}

impl<'s, 'a> Translator<'s, 'a> {
    pub fn new(modules: &'s ModuleSet<'a>) -> Self {
        Self {
            modules,
            following: Vec::new(),
            depth: 0,
        }
    }

    /// The schema `expression`, read in `module`, means.
    pub fn schema(
        &mut self,
        module: &ModuleRef<'a>,
        expression: &SchemaExpr,
    ) -> Translated<Schema> {
        if self.depth >= MAX_SCHEMA_DEPTH {
            let construct = format!("a schema nested deeper than {MAX_SCHEMA_DEPTH} levels");
            return Err(fallback(
                Code::AB5104,
                construct,
                module,
                span_of(expression),
            ));
        }
        self.depth += 1;
        let schema = crate::stack::recurse(|| self.schema_at_depth(module, expression));
        self.depth -= 1;
        schema
    }

    fn schema_at_depth(
        &mut self,
        module: &ModuleRef<'a>,
        expression: &SchemaExpr,
    ) -> Translated<Schema> {
        match expression {
            SchemaExpr::Call { callee, args, span } => match callee.as_ref() {
                SchemaExpr::Member {
                    object, property, ..
                } => match self.namespace(module, object)? {
                    Some(namespace) => self.zod_call(module, namespace, property, args, *span),
                    None => {
                        let base = self.schema(module, object)?;
                        self.method(module, base, property, args, *span)
                    }
                },
                SchemaExpr::Ident { binding, .. }
                    if matches!(binding.as_ref(), Binding::Import { source, imported }
                        if ZOD_MODULES.contains(&source.as_str()) && imported != "*") =>
                {
                    let Binding::Import { imported, .. } = binding.as_ref() else {
                        unreachable!("the guard matched an import binding")
                    };
                    self.zod_call(module, Namespace::Zod, imported, args, *span)
                }
                other => Err(fallback(
                    Code::AB5101,
                    format!(
                        "a call of `{}()`, a function abgen does not run",
                        describe(other)
                    ),
                    module,
                    *span,
                )),
            },
            SchemaExpr::Ident { .. } => {
                self.through_const(module, expression, |this, target, init| {
                    this.schema(target, init)
                })
            }
            SchemaExpr::Unsupported { construct, span } => {
                Err(fallback(Code::AB5104, construct.clone(), module, *span))
            }
            other => Err(fallback(
                Code::AB5101,
                format!("{} where a schema is expected", describe(other)),
                module,
                span_of(other),
            )),
        }
    }

    /// Which zod namespace `expression` names, if any.
    pub fn namespace(
        &mut self,
        module: &ModuleRef<'a>,
        expression: &SchemaExpr,
    ) -> Translated<Option<Namespace>> {
        match expression {
            SchemaExpr::Ident { binding, .. } if matches!(**binding, Binding::Import { .. }) => {
                let Binding::Import { source, imported } = binding.as_ref() else {
                    unreachable!("the guard matched an import binding")
                };
                Ok(
                    (ZOD_MODULES.contains(&source.as_str())
                        && (imported == "z" || imported == "*"))
                        .then_some(Namespace::Zod),
                )
            }
            SchemaExpr::Ident { binding, .. }
                if matches!(**binding, Binding::LocalConst { .. }) =>
            {
                self.through_const(module, expression, |this, target, init| match init {
                    SchemaExpr::Ident { .. } | SchemaExpr::Member { .. } => {
                        this.namespace(target, init)
                    }
                    _ => Ok(None),
                })
            }
            SchemaExpr::Member {
                object, property, ..
            } if property == "iso" || property == "coerce" => {
                Ok(match self.namespace(module, object)? {
                    Some(Namespace::Zod) if property == "iso" => Some(Namespace::Iso),
                    Some(Namespace::Zod) => Some(Namespace::Coerce),
                    _ => None,
                })
            }
            _ => Ok(None),
        }
    }

    /// A plain JSON value written in the source (an enum's values, a default, `meta({...})`),
    /// following consts.
    pub fn value(&mut self, module: &ModuleRef<'a>, expression: &SchemaExpr) -> Translated<Value> {
        if self.depth >= MAX_SCHEMA_DEPTH {
            let construct = format!("a value nested deeper than {MAX_SCHEMA_DEPTH} levels");
            return Err(fallback(
                Code::AB5104,
                construct,
                module,
                span_of(expression),
            ));
        }
        self.depth += 1;
        let value = crate::stack::recurse(|| self.value_at_depth(module, expression));
        self.depth -= 1;
        value
    }

    fn value_at_depth(
        &mut self,
        module: &ModuleRef<'a>,
        expression: &SchemaExpr,
    ) -> Translated<Value> {
        match expression {
            SchemaExpr::Literal { value, .. } => Ok(Value::clone(value)),
            SchemaExpr::Array { items, .. } => items
                .iter()
                .map(|item| self.value(module, item))
                .collect::<Translated<Vec<_>>>()
                .map(Value::Array),
            SchemaExpr::Object { properties, .. } => {
                let mut object = Map::new();
                for (key, value) in properties {
                    object.insert(key.clone(), self.value(module, value)?);
                }
                Ok(Value::Object(object))
            }
            SchemaExpr::Ident { .. } => {
                self.through_const(module, expression, |this, target, init| {
                    this.value(target, init)
                })
            }
            SchemaExpr::Unsupported { construct, span } => {
                Err(fallback(Code::AB5104, construct.clone(), module, *span))
            }
            other => Err(fallback(
                Code::AB5101,
                format!("{} where a plain value is expected", describe(other)),
                module,
                span_of(other),
            )),
        }
    }

    /// The object literal (or const naming one) whose property values are schemas.
    pub fn shape(
        &mut self,
        module: &ModuleRef<'a>,
        expression: &SchemaExpr,
    ) -> Translated<Vec<(String, Schema)>> {
        match expression {
            SchemaExpr::Object { properties, .. } => properties
                .iter()
                .map(|(key, value)| Ok((key.clone(), self.schema(module, value)?)))
                .collect(),
            SchemaExpr::Ident { .. } => {
                self.through_const(module, expression, |this, target, init| {
                    this.shape(target, init)
                })
            }
            SchemaExpr::Unsupported { construct, span } => Err(fallback(
                Code::AB5104,
                format!("{construct} in an object of schemas"),
                module,
                *span,
            )),
            other => Err(fallback(
                Code::AB5104,
                format!("{} where an object of schemas is expected", describe(other)),
                module,
                span_of(other),
            )),
        }
    }

    /// Reads the const an identifier names with `read`, in the const's own module, guarding
    /// against cycles; the initializer is borrowed, never copied.
    fn through_const<T>(
        &mut self,
        module: &ModuleRef<'a>,
        expression: &SchemaExpr,
        read: impl FnOnce(&mut Self, &ModuleRef<'a>, &SchemaExpr) -> Translated<T>,
    ) -> Translated<T> {
        let (target, name) = self.follow(module, expression)?;
        let key = (target.path().to_owned(), name);
        let Some(binding) = target.module().consts.get(&key.1) else {
            let construct = format!("`{}`, which is not a top-level const", key.1);
            return Err(fallback(
                Code::AB5104,
                construct,
                module,
                span_of(expression),
            ));
        };
        self.enter(&key, module, expression)?;
        let result = read(self, &target, &binding.init);
        self.following.pop();
        result
    }

    /// Where an identifier's value is written: the module and the name of an exported (or
    /// local) top-level const in it.
    fn follow(
        &mut self,
        module: &ModuleRef<'a>,
        expression: &SchemaExpr,
    ) -> Translated<(ModuleRef<'a>, String)> {
        let SchemaExpr::Ident {
            name,
            binding,
            span,
        } = expression
        else {
            return Err(fallback(
                Code::AB5104,
                describe(expression),
                module,
                span_of(expression),
            ));
        };
        let unknown = |construct: String| Err(fallback(Code::AB5104, construct, module, *span));
        let (target, const_name) = match binding.as_ref() {
            Binding::LocalConst { name } => (module.clone(), name.clone()),
            Binding::Import { source, imported } => {
                if imported == "*" || imported == "default" {
                    return unknown(format!("`{name}`, a namespace or default import"));
                }
                if !source.starts_with('.') {
                    return unknown(format!("`{name}`, imported from the package `{source}`"));
                }
                let Some(path) = self.modules.resolve_import(module.path(), source) else {
                    return unknown(format!(
                        "`{name}`, imported from `{source}`, which abgen cannot read"
                    ));
                };
                match self.modules.get(&path) {
                    Some(target) => (target, imported.clone()),
                    None => return unknown(format!("`{name}` from `{source}`")),
                }
            }
            Binding::Local => {
                return unknown(format!(
                    "`{name}`, a binding abgen does not follow (a `let`, a function or a parameter)"
                ));
            }
            Binding::Global => return unknown(format!("the global `{name}`")),
        };
        let found = target.module().consts.get(&const_name).filter(|binding| {
            // A const of another module is reachable only through its export.
            target.path() == module.path() || binding.exported
        });
        if found.is_none() {
            return unknown(format!(
                "`{name}`, which is not an exported top-level const of `{}`",
                target.path()
            ));
        }
        Ok((target, const_name))
    }

    /// Marks the const `key` as being translated; a const already on the way is a cycle.
    fn enter(
        &mut self,
        key: &(String, String),
        module: &ModuleRef<'a>,
        expression: &SchemaExpr,
    ) -> Translated<()> {
        let span = span_of(expression);
        if self.following.contains(key) {
            let cycle: Vec<&str> = self
                .following
                .iter()
                .skip_while(|entry| *entry != key)
                .map(|(_, name)| name.as_str())
                .collect();
            return Err(fallback(
                Code::AB4839,
                format!(
                    "`{}`, whose references form a cycle ({} → {})",
                    key.1,
                    cycle.join(" → "),
                    key.1
                ),
                module,
                span,
            ));
        }
        if self.following.len() >= MAX_REFERENCE_DEPTH {
            return Err(fallback(
                Code::AB5104,
                format!("a chain of more than {MAX_REFERENCE_DEPTH} references"),
                module,
                span,
            ));
        }
        self.following.push(key.clone());
        Ok(())
    }
}

/// A fallback at `span` of `module`.
pub fn fallback(
    code: Code,
    construct: impl Into<String>,
    module: &ModuleRef<'_>,
    span: Span,
) -> Box<Fallback> {
    Box::new(Fallback {
        code,
        construct: construct.into(),
        location: Location::span(module.path(), module.text(), span),
    })
}

/// Where an expression stands.
pub fn span_of(expression: &SchemaExpr) -> Span {
    match expression {
        SchemaExpr::Call { span, .. }
        | SchemaExpr::Member { span, .. }
        | SchemaExpr::Ident { span, .. }
        | SchemaExpr::Literal { span, .. }
        | SchemaExpr::Object { span, .. }
        | SchemaExpr::Array { span, .. }
        | SchemaExpr::Regex { span, .. }
        | SchemaExpr::Unsupported { span, .. } => *span,
    }
}

/// An expression as a user reads it in a message.
pub fn describe(expression: &SchemaExpr) -> String {
    match expression {
        SchemaExpr::Call { callee, .. } => format!("{}(…)", describe(callee)),
        SchemaExpr::Member {
            object, property, ..
        } => format!("{}.{property}", describe(object)),
        SchemaExpr::Ident { name, .. } => name.clone(),
        SchemaExpr::Literal { value, .. } => format!("the literal {value}"),
        SchemaExpr::Object { .. } => "an object literal".to_owned(),
        SchemaExpr::Array { .. } => "an array literal".to_owned(),
        SchemaExpr::Regex { .. } => "a regular expression".to_owned(),
        SchemaExpr::Unsupported { construct, .. } => construct.clone(),
    }
}
