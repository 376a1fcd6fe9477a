//! Translation of a captured zod expression ([`Expr`]) into the schema IR, following
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
use crate::extract::{BindingView, Expr, ExprKind};

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
    /// Every relative import followed, as `(importing module, specifier)`: what a translation
    /// depends on beyond its own module ([`super::routes::TranslationCache`]).
    pub(super) followed_imports: Vec<(String, String)>,
}

impl<'s, 'a> Translator<'s, 'a> {
    pub fn new(modules: &'s ModuleSet<'a>) -> Self {
        Self {
            modules,
            following: Vec::new(),
            depth: 0,
            followed_imports: Vec::new(),
        }
    }

    /// The schema `expression`, read in `module`, means.
    pub fn schema(&mut self, module: &ModuleRef<'a>, expression: Expr<'_>) -> Translated<Schema> {
        if self.depth >= MAX_SCHEMA_DEPTH {
            let construct = format!("a schema nested deeper than {MAX_SCHEMA_DEPTH} levels");
            return Err(fallback(Code::AB5104, construct, module, expression.span()));
        }
        self.depth += 1;
        let schema = crate::stack::recurse(|| self.schema_at_depth(module, expression));
        self.depth -= 1;
        schema
    }

    fn schema_at_depth(
        &mut self,
        module: &ModuleRef<'a>,
        expression: Expr<'_>,
    ) -> Translated<Schema> {
        match expression.kind() {
            ExprKind::Call { callee, args } => {
                let span = expression.span();
                match callee.kind() {
                    ExprKind::Member { object, property } => {
                        match self.namespace(module, object)? {
                            Some(namespace) => {
                                self.zod_call(module, namespace, property, args, span)
                            }
                            None => {
                                let base = self.schema(module, object)?;
                                self.method(module, base, property, args, span)
                            }
                        }
                    }
                    ExprKind::Ident {
                        binding: BindingView::Import { source, imported },
                        ..
                    } if ZOD_MODULES.contains(&source) && imported != "*" => {
                        self.zod_call(module, Namespace::Zod, imported, args, span)
                    }
                    _ => Err(fallback(
                        Code::AB5101,
                        format!(
                            "a call of `{}()`, a function abgen does not run",
                            describe(callee)
                        ),
                        module,
                        span,
                    )),
                }
            }
            ExprKind::Ident { .. } => {
                self.through_const(module, expression, |this, target, init| {
                    this.schema(target, init)
                })
            }
            ExprKind::Unsupported { construct } => {
                Err(fallback(Code::AB5104, construct, module, expression.span()))
            }
            _ => Err(fallback(
                Code::AB5101,
                format!("{} where a schema is expected", describe(expression)),
                module,
                expression.span(),
            )),
        }
    }

    /// Which zod namespace `expression` names, if any.
    pub fn namespace(
        &mut self,
        module: &ModuleRef<'a>,
        expression: Expr<'_>,
    ) -> Translated<Option<Namespace>> {
        // Most objects of a method call are calls (`z.string().min(1)`): no namespace.
        if !expression.is_ident() && !expression.is_member() {
            return Ok(None);
        }
        match expression.kind() {
            ExprKind::Ident {
                binding: BindingView::Import { source, imported },
                ..
            } => Ok(
                (ZOD_MODULES.contains(&source) && (imported == "z" || imported == "*"))
                    .then_some(Namespace::Zod),
            ),
            ExprKind::Ident {
                binding: BindingView::LocalConst { .. },
                ..
            } => self.through_const(module, expression, |this, target, init| match init.kind() {
                ExprKind::Ident { .. } | ExprKind::Member { .. } => this.namespace(target, init),
                _ => Ok(None),
            }),
            ExprKind::Member { object, property } if property == "iso" || property == "coerce" => {
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
    pub fn value(&mut self, module: &ModuleRef<'a>, expression: Expr<'_>) -> Translated<Value> {
        if self.depth >= MAX_SCHEMA_DEPTH {
            let construct = format!("a value nested deeper than {MAX_SCHEMA_DEPTH} levels");
            return Err(fallback(Code::AB5104, construct, module, expression.span()));
        }
        self.depth += 1;
        let value = crate::stack::recurse(|| self.value_at_depth(module, expression));
        self.depth -= 1;
        value
    }

    fn value_at_depth(
        &mut self,
        module: &ModuleRef<'a>,
        expression: Expr<'_>,
    ) -> Translated<Value> {
        match expression.kind() {
            ExprKind::Literal(literal) => Ok(literal.value()),
            ExprKind::Array { items } => items
                .iter()
                .map(|item| self.value(module, item))
                .collect::<Translated<Vec<_>>>()
                .map(Value::Array),
            ExprKind::Object { properties } => {
                let mut object = Map::new();
                for (key, value) in properties.iter() {
                    object.insert(key.to_owned(), self.value(module, value)?);
                }
                Ok(Value::Object(object))
            }
            ExprKind::Ident { .. } => {
                self.through_const(module, expression, |this, target, init| {
                    this.value(target, init)
                })
            }
            ExprKind::Unsupported { construct } => {
                Err(fallback(Code::AB5104, construct, module, expression.span()))
            }
            _ => Err(fallback(
                Code::AB5101,
                format!("{} where a plain value is expected", describe(expression)),
                module,
                expression.span(),
            )),
        }
    }

    /// The object literal (or const naming one) whose property values are schemas.
    pub fn shape(
        &mut self,
        module: &ModuleRef<'a>,
        expression: Expr<'_>,
    ) -> Translated<Vec<(String, Schema)>> {
        match expression.kind() {
            ExprKind::Object { properties } => properties
                .iter()
                .map(|(key, value)| Ok((key.to_owned(), self.schema(module, value)?)))
                .collect(),
            ExprKind::Ident { .. } => {
                self.through_const(module, expression, |this, target, init| {
                    this.shape(target, init)
                })
            }
            ExprKind::Unsupported { construct } => Err(fallback(
                Code::AB5104,
                format!("{construct} in an object of schemas"),
                module,
                expression.span(),
            )),
            _ => Err(fallback(
                Code::AB5104,
                format!(
                    "{} where an object of schemas is expected",
                    describe(expression)
                ),
                module,
                expression.span(),
            )),
        }
    }

    /// Reads the const an identifier names with `read`, in the const's own module, guarding
    /// against cycles; the initializer is borrowed, never copied.
    fn through_const<T>(
        &mut self,
        module: &ModuleRef<'a>,
        expression: Expr<'_>,
        read: impl FnOnce(&mut Self, &ModuleRef<'a>, Expr<'_>) -> Translated<T>,
    ) -> Translated<T> {
        let (target, name) = self.follow(module, expression)?;
        let key = (target.path().to_owned(), name);
        let Some(binding) = target.module().consts.get(&key.1) else {
            let construct = format!("`{}`, which is not a top-level const", key.1);
            return Err(fallback(Code::AB5104, construct, module, expression.span()));
        };
        self.enter(&key, module, expression)?;
        let result = read(self, &target, target.expr(binding.init));
        self.following.pop();
        result
    }

    /// Where an identifier's value is written: the module and the name of an exported (or
    /// local) top-level const in it.
    fn follow(
        &mut self,
        module: &ModuleRef<'a>,
        expression: Expr<'_>,
    ) -> Translated<(ModuleRef<'a>, String)> {
        let ExprKind::Ident { name, binding } = expression.kind() else {
            return Err(fallback(
                Code::AB5104,
                describe(expression),
                module,
                expression.span(),
            ));
        };
        let span = expression.span();
        let unknown = |construct: String| Err(fallback(Code::AB5104, construct, module, span));
        let (target, const_name) = match binding {
            BindingView::LocalConst { name } => (module.clone(), name.to_owned()),
            BindingView::Import { source, imported } => {
                if imported == "*" || imported == "default" {
                    return unknown(format!("`{name}`, a namespace or default import"));
                }
                if !source.starts_with('.') {
                    return unknown(format!("`{name}`, imported from the package `{source}`"));
                }
                self.followed_imports
                    .push((module.path().to_owned(), source.to_owned()));
                let Some(path) = self.modules.resolve_import(module.path(), source) else {
                    return unknown(format!(
                        "`{name}`, imported from `{source}`, which abgen cannot read"
                    ));
                };
                match self.modules.get(&path) {
                    Some(target) => (target, imported.to_owned()),
                    None => return unknown(format!("`{name}` from `{source}`")),
                }
            }
            BindingView::Local => {
                return unknown(format!(
                    "`{name}`, a binding abgen does not follow (a `let`, a function or a parameter)"
                ));
            }
            BindingView::Global => return unknown(format!("the global `{name}`")),
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
        expression: Expr<'_>,
    ) -> Translated<()> {
        let span = expression.span();
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

/// An expression as a user reads it in a message.
pub fn describe(expression: Expr<'_>) -> String {
    match expression.kind() {
        ExprKind::Call { callee, .. } => format!("{}(…)", describe(callee)),
        ExprKind::Member { object, property } => format!("{}.{property}", describe(object)),
        ExprKind::Ident { name, .. } => name.to_owned(),
        ExprKind::Literal(literal) => format!("the literal {}", literal.value()),
        ExprKind::Object { .. } => "an object literal".to_owned(),
        ExprKind::Array { .. } => "an array literal".to_owned(),
        ExprKind::Regex { .. } => "a regular expression".to_owned(),
        ExprKind::Unsupported { construct } => construct.to_owned(),
    }
}
