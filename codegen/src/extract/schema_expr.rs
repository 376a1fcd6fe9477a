//! Captures schema expressions (`z.object({...}).strict()`, `Status.optional()`) as owned
//! [`SchemaExpr`] trees with spans and resolved bindings, for the schema stage to translate.
//!
//! Entry call: [`capture`]. Invariant: capture never judges a schema; whatever falls outside
//! the tree's shapes becomes [`SchemaExpr::Unsupported`] naming the construct, and the depth is
//! bounded by [`MAX_VALUE_DEPTH`].

use oxc_ast::ast::{
    Argument, ArrayExpressionElement, Expression, ObjectPropertyKind, PropertyKind, UnaryOperator,
};
use serde_json::{Number, Value};

use super::literal::static_key;
use super::model::SchemaExpr;
use super::position::span_of;
use super::scope::TopLevel;
use super::syntax::{MAX_VALUE_DEPTH, construct_name, unwrap_expression};
use crate::diagnostics::Span;

/// Captures `expression`, resolving identifiers in the module scope.
pub fn capture(expression: &Expression<'_>, top: &TopLevel<'_>) -> SchemaExpr {
    capture_at_depth(expression, top, 0)
}

/// Whether a `const` initializer is worth keeping for later reference-following: a call,
/// member, identifier, object, array or literal (not a function, class or computation).
pub fn is_capturable_const(init: &Expression<'_>) -> bool {
    matches!(
        unwrap_expression(init),
        Expression::CallExpression(_)
            | Expression::StaticMemberExpression(_)
            | Expression::ComputedMemberExpression(_)
            | Expression::Identifier(_)
            | Expression::ObjectExpression(_)
            | Expression::ArrayExpression(_)
            | Expression::StringLiteral(_)
            | Expression::NumericLiteral(_)
            | Expression::BooleanLiteral(_)
            | Expression::NullLiteral(_)
    )
}

fn capture_at_depth(expression: &Expression<'_>, top: &TopLevel<'_>, depth: usize) -> SchemaExpr {
    let expression = unwrap_expression(expression);
    let span = span_of(expression);
    if depth > MAX_VALUE_DEPTH {
        let construct = format!("a schema nested deeper than {MAX_VALUE_DEPTH} levels");
        return SchemaExpr::Unsupported { construct, span };
    }
    let next = depth + 1;
    match expression {
        Expression::CallExpression(call) if !call.optional => {
            let callee = Box::new(capture_at_depth(&call.callee, top, next));
            let args = call
                .arguments
                .iter()
                .map(|argument| capture_argument(argument, top, next))
                .collect();
            SchemaExpr::Call { callee, args, span }
        }
        Expression::StaticMemberExpression(member) if !member.optional => SchemaExpr::Member {
            object: Box::new(capture_at_depth(&member.object, top, next)),
            property: member.property.name.as_str().to_owned(),
            span,
        },
        Expression::ComputedMemberExpression(member) if !member.optional => {
            match unwrap_expression(&member.expression) {
                Expression::StringLiteral(key) => SchemaExpr::Member {
                    object: Box::new(capture_at_depth(&member.object, top, next)),
                    property: key.value.as_str().to_owned(),
                    span,
                },
                _ => unsupported("a computed member access", span),
            }
        }
        Expression::Identifier(identifier) => {
            let name = identifier.name.as_str();
            SchemaExpr::Ident {
                name: name.to_owned(),
                binding: Box::new(top.resolve(name)),
                span,
            }
        }
        Expression::StringLiteral(string) => {
            literal(Value::String(string.value.as_str().to_owned()), span)
        }
        Expression::TemplateLiteral(template) if template.expressions.is_empty() => {
            match template
                .quasis
                .first()
                .and_then(|quasi| quasi.value.cooked.as_ref())
            {
                Some(cooked) => literal(Value::String(cooked.as_str().to_owned()), span),
                None => unsupported("a template literal with an invalid escape", span),
            }
        }
        Expression::NumericLiteral(number) => number_literal(number.value, span),
        Expression::UnaryExpression(unary) if unary.operator == UnaryOperator::UnaryNegation => {
            match unwrap_expression(&unary.argument) {
                Expression::NumericLiteral(number) => number_literal(-number.value, span),
                _ => unsupported(construct_name(expression), span),
            }
        }
        Expression::BooleanLiteral(boolean) => literal(Value::Bool(boolean.value), span),
        Expression::NullLiteral(_) => literal(Value::Null, span),
        Expression::RegExpLiteral(regex) => SchemaExpr::Regex {
            pattern: regex.regex.pattern.text.as_str().into(),
            flags: regex.regex.flags.to_string().into(),
            span,
        },
        Expression::ObjectExpression(object) => {
            let mut properties = Vec::with_capacity(object.properties.len());
            for property in &object.properties {
                let property = match property {
                    ObjectPropertyKind::ObjectProperty(property) => property,
                    ObjectPropertyKind::SpreadProperty(spread) => {
                        return unsupported("a spread", span_of(spread.as_ref()));
                    }
                };
                if property.kind != PropertyKind::Init || property.method {
                    return unsupported("a method or accessor", span_of(property.as_ref()));
                }
                match static_key(&property.key, property.computed) {
                    Ok(key) => properties.push((key, capture_at_depth(&property.value, top, next))),
                    Err(rejected) => return unsupported(rejected.construct, rejected.span),
                }
            }
            SchemaExpr::Object { properties, span }
        }
        Expression::ArrayExpression(array) => {
            let mut items = Vec::with_capacity(array.elements.len());
            for element in &array.elements {
                match element {
                    ArrayExpressionElement::SpreadElement(spread) => {
                        return unsupported("a spread", span_of(spread.as_ref()));
                    }
                    ArrayExpressionElement::Elision(hole) => {
                        return unsupported("an array hole", span_of(hole.as_ref()));
                    }
                    _ => match element.as_expression() {
                        Some(item) => items.push(capture_at_depth(item, top, next)),
                        None => {
                            return unsupported(
                                "an array element outside the grammar",
                                span_of(element),
                            );
                        }
                    },
                }
            }
            SchemaExpr::Array { items, span }
        }
        Expression::CallExpression(_)
        | Expression::StaticMemberExpression(_)
        | Expression::ComputedMemberExpression(_) => unsupported("an optional chain", span),
        _ => unsupported(construct_name(expression), span),
    }
}

fn capture_argument(argument: &Argument<'_>, top: &TopLevel<'_>, depth: usize) -> SchemaExpr {
    match argument {
        Argument::SpreadElement(spread) => unsupported("a spread", span_of(spread.as_ref())),
        _ => match argument.as_expression() {
            Some(expression) => capture_at_depth(expression, top, depth),
            None => unsupported("an argument outside the grammar", span_of(argument)),
        },
    }
}

fn literal(value: Value, span: Span) -> SchemaExpr {
    SchemaExpr::Literal {
        value: Box::new(value),
        span,
    }
}

fn number_literal(value: f64, span: Span) -> SchemaExpr {
    if value.fract() == 0.0 && value.abs() <= 9_007_199_254_740_991.0 {
        return literal(Value::Number(Number::from(value as i64)), span);
    }
    match Number::from_f64(value) {
        Some(number) => literal(Value::Number(number), span),
        None => unsupported("a non-finite number", span),
    }
}

fn unsupported(construct: impl Into<String>, span: Span) -> SchemaExpr {
    SchemaExpr::Unsupported {
        construct: construct.into(),
        span,
    }
}
