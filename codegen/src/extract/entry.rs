//! What a handwritten stdio entry (`src/mcp/<id>.ts`, `.cjs`, …) states at its top level: a
//! CommonJS `module.exports = <factory>` (the bundler's default export) and a transport
//! connected at the top level, which no lifecycle shell can wrap (AB4730).

use oxc_ast::ast::{AssignmentTarget, Expression, Program, Statement};

use super::position::span_of;
use crate::diagnostics::Span;

/// Top-level facts of an entry module.
#[derive(Debug, Default)]
pub struct EntryFacts {
    /// A whole-object `module.exports = …` assignment (`exports.x = …` is a named export).
    pub commonjs_default: bool,
    /// The first top-level `….connect(…)` call.
    pub connect: Option<Span>,
}

pub fn entry_facts(program: &Program<'_>) -> EntryFacts {
    let mut facts = EntryFacts::default();
    for statement in &program.body {
        let Statement::ExpressionStatement(statement) = statement else {
            continue;
        };
        let expression = unwrap(&statement.expression);
        if let Expression::AssignmentExpression(assignment) = expression
            && let AssignmentTarget::StaticMemberExpression(member) = &assignment.left
            && member.property.name == "exports"
            && matches!(&member.object, Expression::Identifier(object) if object.name == "module")
        {
            facts.commonjs_default = true;
        }
        if facts.connect.is_none() && calls_connect(expression) {
            facts.connect = Some(span_of(&statement.expression));
        }
    }
    facts
}

/// `x.connect(…)`, also awaited or at the head of a `.then(…)`/`.catch(…)` chain.
fn calls_connect(expression: &Expression<'_>) -> bool {
    let Expression::CallExpression(call) = unwrap(expression) else {
        return false;
    };
    match unwrap(&call.callee) {
        Expression::StaticMemberExpression(member) if member.property.name == "connect" => true,
        Expression::StaticMemberExpression(member) => calls_connect(&member.object),
        _ => false,
    }
}

fn unwrap<'e, 'a>(expression: &'e Expression<'a>) -> &'e Expression<'a> {
    match expression {
        Expression::AwaitExpression(inner) => unwrap(&inner.argument),
        Expression::ParenthesizedExpression(inner) => unwrap(&inner.expression),
        _ => expression,
    }
}
