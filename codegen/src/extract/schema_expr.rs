//! Captures schema expressions (`z.object({...}).strict()`, `Status.optional()`) into the
//! module's [`SchemaNodes`] arena with spans and resolved bindings, for the schema stage to
//! translate.
//!
//! Entry call: [`capture`]. Invariant: capture never judges a schema; whatever falls outside
//! the arena's shapes becomes an unsupported node naming the construct, and the depth is
//! bounded by [`MAX_VALUE_DEPTH`]. Names are spans of the source text wherever the source
//! spells them as they are, so a node allocates nothing of its own.

use oxc_ast::ast::{
    Argument, ArrayExpressionElement, Expression, ObjectPropertyKind, PropertyKey, PropertyKind,
    UnaryOperator,
};

use super::literal::static_key;
use super::model::{ExprId, Name, NodeBuilder, SchemaNodes};
use super::position::span_of;
use super::scope::TopLevel;
use super::syntax::{MAX_VALUE_DEPTH, construct_name, unwrap_expression};
use crate::diagnostics::Span;

/// Captures `expression` of the module whose text is `source` into `nodes`, resolving
/// identifiers in the module scope.
pub fn capture(
    expression: &Expression<'_>,
    top: &TopLevel<'_>,
    source: &str,
    nodes: &mut SchemaNodes,
) -> ExprId {
    let mut capture = Capture {
        top,
        builder: NodeBuilder::new(nodes, source),
        // Room for the lists of a typical schema at once: growing them from empty, one
        // reallocation after another, was most of their cost.
        links: Vec::with_capacity(32),
        properties: Vec::with_capacity(32),
    };
    capture.at_depth(expression, 0)
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

struct Capture<'t, 'a, 'n, 's> {
    top: &'t TopLevel<'a>,
    builder: NodeBuilder<'n, 's>,
    /// The children captured so far of every list being captured, innermost last: a list
    /// moves into the arena in one piece once complete.
    links: Vec<ExprId>,
    properties: Vec<(Name, ExprId)>,
}

impl Capture<'_, '_, '_, '_> {
    fn at_depth(&mut self, expression: &Expression<'_>, depth: usize) -> ExprId {
        let expression = unwrap_expression(expression);
        let span = span_of(expression);
        if depth > MAX_VALUE_DEPTH {
            let construct = format!("a schema nested deeper than {MAX_VALUE_DEPTH} levels");
            return self.builder.unsupported(&construct, span);
        }
        let next = depth + 1;
        match expression {
            Expression::CallExpression(call) if !call.optional => {
                let callee = self.at_depth(&call.callee, next);
                let mark = self.links.len();
                for argument in &call.arguments {
                    let argument = self.argument(argument, next);
                    self.links.push(argument);
                }
                let call = self.builder.call(callee, &self.links[mark..], span);
                self.links.truncate(mark);
                call
            }
            Expression::StaticMemberExpression(member) if !member.optional => {
                let object = self.at_depth(&member.object, next);
                self.builder
                    .member(object, member.property.name.as_str(), span)
            }
            Expression::ComputedMemberExpression(member) if !member.optional => {
                match unwrap_expression(&member.expression) {
                    Expression::StringLiteral(key) => {
                        let object = self.at_depth(&member.object, next);
                        self.builder.member(object, key.value.as_str(), span)
                    }
                    _ => self.builder.unsupported("a computed member access", span),
                }
            }
            Expression::Identifier(identifier) => {
                let name = identifier.name.as_str();
                let binding = self.top.resolve_ref(name);
                self.builder.ident(name, binding, span)
            }
            Expression::StringLiteral(string) => self.builder.string(string.value.as_str(), span),
            Expression::TemplateLiteral(template) if template.expressions.is_empty() => {
                match template
                    .quasis
                    .first()
                    .and_then(|quasi| quasi.value.cooked.as_ref())
                {
                    Some(cooked) => self.builder.string(cooked.as_str(), span),
                    None => self
                        .builder
                        .unsupported("a template literal with an invalid escape", span),
                }
            }
            Expression::NumericLiteral(number) => self.number(number.value, span),
            Expression::UnaryExpression(unary)
                if unary.operator == UnaryOperator::UnaryNegation =>
            {
                match unwrap_expression(&unary.argument) {
                    Expression::NumericLiteral(number) => self.number(-number.value, span),
                    _ => self.builder.unsupported(&construct_name(expression), span),
                }
            }
            Expression::BooleanLiteral(boolean) => self.builder.boolean(boolean.value, span),
            Expression::NullLiteral(_) => self.builder.null(span),
            Expression::RegExpLiteral(regex) => {
                let flags = regex.regex.flags.to_string();
                self.builder
                    .regex(regex.regex.pattern.text.as_str(), &flags, span)
            }
            Expression::ObjectExpression(object) => {
                let mark = self.properties.len();
                let captured = self.object_properties(&object.properties, next);
                let id = match captured {
                    Ok(()) => self.builder.object(&self.properties[mark..], span),
                    Err((construct, span)) => self.builder.unsupported(&construct, span),
                };
                self.properties.truncate(mark);
                id
            }
            Expression::ArrayExpression(array) => {
                let mark = self.links.len();
                let captured = self.array_items(&array.elements, next);
                let id = match captured {
                    Ok(()) => self.builder.array(&self.links[mark..], span),
                    Err((construct, span)) => self.builder.unsupported(construct, span),
                };
                self.links.truncate(mark);
                id
            }
            Expression::CallExpression(_)
            | Expression::StaticMemberExpression(_)
            | Expression::ComputedMemberExpression(_) => {
                self.builder.unsupported("an optional chain", span)
            }
            _ => self.builder.unsupported(&construct_name(expression), span),
        }
    }

    /// Captures an object literal's properties onto `self.properties`, or names the first
    /// construct outside the grammar.
    fn object_properties(
        &mut self,
        properties: &[ObjectPropertyKind<'_>],
        depth: usize,
    ) -> Result<(), (String, Span)> {
        for property in properties {
            let property = match property {
                ObjectPropertyKind::ObjectProperty(property) => property,
                ObjectPropertyKind::SpreadProperty(spread) => {
                    return Err(("a spread".to_owned(), span_of(spread.as_ref())));
                }
            };
            if property.kind != PropertyKind::Init || property.method {
                return Err((
                    "a method or accessor".to_owned(),
                    span_of(property.as_ref()),
                ));
            }
            let key = match &property.key {
                PropertyKey::StaticIdentifier(identifier) if !property.computed => {
                    self.builder.name(identifier.name.as_str())
                }
                PropertyKey::StringLiteral(string) if !property.computed => {
                    self.builder.name(string.value.as_str())
                }
                key => match static_key(key, property.computed) {
                    Ok(key) => self.builder.name(&key),
                    Err(rejected) => return Err((rejected.construct, rejected.span)),
                },
            };
            let value = self.at_depth(&property.value, depth);
            self.properties.push((key, value));
        }
        Ok(())
    }

    /// Captures an array literal's items onto `self.links`, or names the first construct
    /// outside the grammar.
    fn array_items(
        &mut self,
        elements: &[ArrayExpressionElement<'_>],
        depth: usize,
    ) -> Result<(), (&'static str, Span)> {
        for element in elements {
            match element {
                ArrayExpressionElement::SpreadElement(spread) => {
                    return Err(("a spread", span_of(spread.as_ref())));
                }
                ArrayExpressionElement::Elision(hole) => {
                    return Err(("an array hole", span_of(hole.as_ref())));
                }
                _ => match element.as_expression() {
                    Some(item) => {
                        let item = self.at_depth(item, depth);
                        self.links.push(item);
                    }
                    None => return Err(("an array element outside the grammar", span_of(element))),
                },
            }
        }
        Ok(())
    }

    fn argument(&mut self, argument: &Argument<'_>, depth: usize) -> ExprId {
        match argument {
            Argument::SpreadElement(spread) => self
                .builder
                .unsupported("a spread", span_of(spread.as_ref())),
            _ => match argument.as_expression() {
                Some(expression) => self.at_depth(expression, depth),
                None => self
                    .builder
                    .unsupported("an argument outside the grammar", span_of(argument)),
            },
        }
    }

    fn number(&mut self, value: f64, span: Span) -> ExprId {
        if value.is_finite() {
            self.builder.number(value, span)
        } else {
            self.builder.unsupported("a non-finite number", span)
        }
    }
}
