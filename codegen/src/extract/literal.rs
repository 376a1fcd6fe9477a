//! The static literal grammar (agent-bundle reference §3.1), shared by route options, `config`
//! exports and config files: objects with identifier, string or number keys, arrays, strings,
//! substitution-free templates, numbers (with unary `+`/`-`), booleans, `null`, casts and
//! parentheses unwrapped, and references to a top-level `const X = '<string>'`.
//!
//! Entry calls: [`LiteralReader::read`] and [`LiteralReader::read_property`]. Invariant: a value
//! is either fully static (with a location for every JSON Pointer in it) or [`Rejected`] with the
//! first construct outside the grammar; nothing is ever evaluated.

use std::collections::BTreeMap;

use oxc_ast::ast::{
    ArrayExpressionElement, Expression, ObjectProperty, ObjectPropertyKind, PropertyKey,
    PropertyKind, UnaryOperator,
};
use oxc_span::GetSpan;
use serde_json::{Map, Number, Value};

use super::position::{Positions, span_of};
use super::scope::TopLevel;
use super::syntax::{MAX_VALUE_DEPTH, construct_name, unwrap_expression};
use crate::diagnostics::{Location, Span};

/// The first construct outside the grammar, named as the agent-bundle diagnostics name it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejected {
    pub construct: String,
    pub span: Span,
}

impl Rejected {
    fn at(construct: impl Into<String>, node: &impl GetSpan) -> Self {
        Self {
            construct: construct.into(),
            span: span_of(node),
        }
    }
}

/// Reads static values and records where each one was written.
pub struct LiteralReader<'r, 'a> {
    top: Option<&'r TopLevel<'a>>,
    positions: &'r Positions<'r>,
    /// JSON Pointer → where that value was written.
    pub locations: BTreeMap<String, Location>,
}

impl<'r, 'a> LiteralReader<'r, 'a> {
    /// `top` is `None` for JSON files, where no identifier can be a reference.
    pub fn new(top: Option<&'r TopLevel<'a>>, positions: &'r Positions<'r>) -> Self {
        Self {
            top,
            positions,
            locations: BTreeMap::new(),
        }
    }

    /// Reads `expression` as the value at `pointer` (`""` for the root).
    pub fn read(&mut self, expression: &Expression<'a>, pointer: &str) -> Result<Value, Rejected> {
        self.read_at_depth(expression, pointer, 0)
    }

    /// The static key of an object property, and rejects shapes that are not `key: value`.
    pub fn property_key(property: &ObjectProperty<'_>) -> Result<String, Rejected> {
        if property.kind != PropertyKind::Init || property.method {
            return Err(Rejected::at("a method or accessor", property));
        }
        if property.shorthand {
            return Err(Rejected::at("a shorthand property reference", property));
        }
        static_key(&property.key, property.computed)
    }

    /// Reads an object's property as the value at `pointer`.
    pub fn read_property(
        &mut self,
        property: &ObjectProperty<'a>,
        pointer: &str,
    ) -> Result<Value, Rejected> {
        self.read_at_depth(&property.value, pointer, 1)
    }

    fn read_at_depth(
        &mut self,
        expression: &Expression<'a>,
        pointer: &str,
        depth: usize,
    ) -> Result<Value, Rejected> {
        if depth > MAX_VALUE_DEPTH {
            return Err(Rejected::at(
                format!("a value nested deeper than {MAX_VALUE_DEPTH} levels"),
                expression,
            ));
        }
        let expression = unwrap_expression(expression);
        let value = match expression {
            Expression::StringLiteral(string) => Value::String(string.value.as_str().to_owned()),
            Expression::TemplateLiteral(template) => {
                match (template.expressions.is_empty(), template.quasis.first()) {
                    (true, Some(quasi)) => match &quasi.value.cooked {
                        Some(cooked) => Value::String(cooked.as_str().to_owned()),
                        None => {
                            return Err(Rejected::at(
                                "a template literal with an invalid escape",
                                expression,
                            ));
                        }
                    },
                    _ => {
                        return Err(Rejected::at(
                            "a template literal with substitutions",
                            expression,
                        ));
                    }
                }
            }
            Expression::NumericLiteral(number) => number_value(number.value, expression)?,
            Expression::UnaryExpression(unary)
                if matches!(
                    unary.operator,
                    UnaryOperator::UnaryNegation | UnaryOperator::UnaryPlus
                ) =>
            {
                let Expression::NumericLiteral(number) = unwrap_expression(&unary.argument) else {
                    return Err(Rejected::at(construct_name(expression), expression));
                };
                let sign = if unary.operator == UnaryOperator::UnaryNegation {
                    -1.0
                } else {
                    1.0
                };
                number_value(sign * number.value, expression)?
            }
            Expression::BooleanLiteral(boolean) => Value::Bool(boolean.value),
            Expression::NullLiteral(_) => Value::Null,
            Expression::Identifier(identifier) => {
                self.string_const(identifier.name.as_str(), expression)?
            }
            Expression::ArrayExpression(array) => {
                let mut items = Vec::with_capacity(array.elements.len());
                for (index, element) in array.elements.iter().enumerate() {
                    let item = match element {
                        ArrayExpressionElement::SpreadElement(spread) => {
                            return Err(Rejected::at("a spread", spread.as_ref()));
                        }
                        ArrayExpressionElement::Elision(hole) => {
                            return Err(Rejected::at("an array hole", hole.as_ref()));
                        }
                        _ => match element.as_expression() {
                            Some(item) => item,
                            None => {
                                return Err(Rejected::at(
                                    "an array element outside the grammar",
                                    element,
                                ));
                            }
                        },
                    };
                    items.push(self.read_at_depth(
                        item,
                        &format!("{pointer}/{index}"),
                        depth + 1,
                    )?);
                }
                Value::Array(items)
            }
            Expression::ObjectExpression(object) => {
                let mut map = Map::new();
                for property in &object.properties {
                    let property = match property {
                        ObjectPropertyKind::ObjectProperty(property) => property,
                        ObjectPropertyKind::SpreadProperty(spread) => {
                            return Err(Rejected::at("a spread", spread.as_ref()));
                        }
                    };
                    let key = Self::property_key(property)?;
                    let child = format!("{pointer}/{}", escape_pointer(&key));
                    let value = self.read_at_depth(&property.value, &child, depth + 1)?;
                    map.insert(key, value);
                }
                Value::Object(map)
            }
            _ => return Err(Rejected::at(construct_name(expression), expression)),
        };
        self.locations
            .insert(pointer.to_owned(), self.positions.of(expression));
        Ok(value)
    }

    /// A reference to a top-level `const X = '<string>'` (the only reference the grammar has).
    fn string_const(&self, name: &str, at: &Expression<'_>) -> Result<Value, Rejected> {
        let declaration = self.top.and_then(|top| top.const_declaration(name));
        let init = declaration.map(|declaration| unwrap_expression(declaration.init));
        match init {
            Some(Expression::StringLiteral(string)) => {
                Ok(Value::String(string.value.as_str().to_owned()))
            }
            Some(Expression::TemplateLiteral(template)) if template.expressions.is_empty() => {
                match template
                    .quasis
                    .first()
                    .and_then(|quasi| quasi.value.cooked.as_ref())
                {
                    Some(cooked) => Ok(Value::String(cooked.as_str().to_owned())),
                    None => Err(Rejected::at(construct_name(at), at)),
                }
            }
            _ => Err(Rejected::at(construct_name(at), at)),
        }
    }
}

/// The static name of a property key: an identifier, a string or a number.
pub fn static_key(key: &PropertyKey<'_>, computed: bool) -> Result<String, Rejected> {
    match key {
        PropertyKey::StaticIdentifier(identifier) if !computed => {
            Ok(identifier.name.as_str().to_owned())
        }
        PropertyKey::StringLiteral(string) if !computed => Ok(string.value.as_str().to_owned()),
        PropertyKey::NumericLiteral(number) if !computed => Ok(number_key(number.value)),
        PropertyKey::PrivateIdentifier(private) => {
            Err(Rejected::at("a private name", private.as_ref()))
        }
        _ => Err(Rejected::at("a computed property name", key)),
    }
}

/// Escapes a key for a JSON Pointer segment (RFC 6901).
pub fn escape_pointer(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// A number as JSON: integral values within 2^53 become integers (`-0` becomes `0`).
fn number_value(value: f64, at: &Expression<'_>) -> Result<Value, Rejected> {
    const SAFE: f64 = 9_007_199_254_740_991.0;
    if value.fract() == 0.0 && value.abs() <= SAFE {
        return Ok(Value::Number(Number::from(value as i64)));
    }
    Number::from_f64(value)
        .map(Value::Number)
        .ok_or_else(|| Rejected::at("a non-finite number", at))
}

/// How JavaScript spells a numeric key as a property name (`1.0` → `1`).
fn number_key(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e21 {
        format!("{}", value as i64)
    } else {
        format!("{value}")
    }
}
