//! Small questions about oxc expressions shared by every reader: unwrapping casts and
//! parentheses, and naming a construct the way the agent-bundle diagnostics name it.
//!
//! Entry calls: [`unwrap_expression`], [`construct_name`]. Invariant: both are total (no input
//! makes them fail) and neither recurses without bound.

use oxc_ast::ast::{Expression, UnaryOperator};

/// How deep the extractor's own readers recurse into one value before giving up on it.
pub const MAX_VALUE_DEPTH: usize = 256;

/// The expression under parentheses, `as`, `satisfies`, `!`, `<T>x` and `x<T>`.
pub fn unwrap_expression<'e, 'a>(mut expression: &'e Expression<'a>) -> &'e Expression<'a> {
    loop {
        expression = match expression {
            Expression::ParenthesizedExpression(inner) => &inner.expression,
            Expression::TSAsExpression(inner) => &inner.expression,
            Expression::TSSatisfiesExpression(inner) => &inner.expression,
            Expression::TSNonNullExpression(inner) => &inner.expression,
            Expression::TSTypeAssertion(inner) => &inner.expression,
            Expression::TSInstantiationExpression(inner) => &inner.expression,
            _ => return expression,
        };
    }
}

/// Names a construct as a user reads it (`a call expression`), for "outside the grammar" messages.
pub fn construct_name(expression: &Expression<'_>) -> String {
    let name = match unwrap_expression(expression) {
        Expression::Identifier(identifier) if identifier.name == "undefined" => {
            "the non-JSON value `undefined`"
        }
        Expression::Identifier(identifier) => {
            return format!("a reference to the identifier \"{}\"", identifier.name);
        }
        Expression::CallExpression(_) => "a call expression",
        Expression::NewExpression(_) => "a `new` expression",
        Expression::TemplateLiteral(_) => "a template literal with substitutions",
        Expression::TaggedTemplateExpression(_) => "a tagged template expression",
        Expression::ArrowFunctionExpression(_) | Expression::FunctionExpression(_) => {
            "a function expression"
        }
        Expression::ClassExpression(_) => "a class expression",
        Expression::BigIntLiteral(_) => "a bigint literal",
        Expression::RegExpLiteral(_) => "a regular expression literal",
        Expression::StaticMemberExpression(_)
        | Expression::ComputedMemberExpression(_)
        | Expression::PrivateFieldExpression(_) => "a member expression",
        Expression::ChainExpression(_) => "an optional chain",
        Expression::BinaryExpression(_) => "a binary expression",
        Expression::LogicalExpression(_) => "a logical expression",
        Expression::ConditionalExpression(_) => "a conditional expression",
        Expression::AssignmentExpression(_) => "an assignment expression",
        Expression::SequenceExpression(_) => "a sequence expression",
        Expression::AwaitExpression(_) => "an await expression",
        Expression::YieldExpression(_) => "a yield expression",
        Expression::UpdateExpression(_) => "an update expression",
        Expression::UnaryExpression(unary) => match unary.operator {
            UnaryOperator::UnaryNegation | UnaryOperator::UnaryPlus => "a signed non-number",
            UnaryOperator::Typeof => "a `typeof` expression",
            UnaryOperator::Void => "a `void` expression",
            UnaryOperator::Delete => "a `delete` expression",
            UnaryOperator::LogicalNot | UnaryOperator::BitwiseNot => "a unary expression",
        },
        Expression::ThisExpression(_) => "a `this` expression",
        Expression::Super(_) => "a `super` expression",
        Expression::ImportExpression(_) => "a dynamic import",
        Expression::ImportMeta(_) => "an `import.meta` expression",
        Expression::NewTarget(_) => "a `new.target` expression",
        Expression::JSXElement(_) | Expression::JSXFragment(_) => "a JSX element",
        Expression::ObjectExpression(_) => "an object literal",
        Expression::ArrayExpression(_) => "an array literal",
        Expression::StringLiteral(_)
        | Expression::NumericLiteral(_)
        | Expression::BooleanLiteral(_)
        | Expression::NullLiteral(_) => "a literal",
        _ => "an expression outside the grammar",
    };
    name.to_owned()
}
