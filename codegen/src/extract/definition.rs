//! Recognises the definition forms of the default export: `defineTool({...}, handler)` and
//! `events.<family>.<event>({...}, handler)` called through named, non-type imports from
//! `agent-bundle/routes`, and judges every other default export (function, async function,
//! re-export, alias, wrapper).
//!
//! Entry call: [`analyse_default`]. Invariant: a definition counts only when its callee
//! resolves in the module scope to the helper itself, so a local `defineTool` never does.

use oxc_ast::ast::{Argument, Expression, ObjectExpression};

use super::exports::DefaultSite;
use super::model::{Binding, DefaultExport, RouteForm};
use super::position::span_of;
use super::scope::{TopLevel, function_expression};
use super::syntax::unwrap_expression;
use crate::diagnostics::Span;

/// The package whose helpers declare routes.
pub const ROUTES_PACKAGE: &str = "agent-bundle/routes";

/// A callee that names one of the route helpers.
enum Helper {
    DefineTool,
    /// The kebab-cased event path of `events.<family>.<event>` (`model-switch/before`).
    Event(String),
    /// `routes.defineTool` through `import * as routes`: recognisable, but not a supported form.
    Namespace,
}

/// A definition call the default export makes directly.
pub struct Definition<'a> {
    pub form: RouteForm,
    pub span: Span,
    /// The inline options object; `None` when the call's shape is unsupported (see `problem`).
    pub options: Option<&'a ObjectExpression<'a>>,
}

/// Why the default export is not a statically readable definition (AB4810), with its span.
pub struct DefinitionProblem {
    pub message: String,
    pub span: Span,
}

/// What the default export is, and the definition it makes, if any.
pub struct DefaultAnalysis<'a> {
    pub kind: DefaultExport,
    /// Where the default export stands, when the module has one.
    pub span: Option<Span>,
    pub definition: Option<Definition<'a>>,
    pub problem: Option<DefinitionProblem>,
}

pub fn analyse_default<'a>(site: &DefaultSite<'a>, top: &TopLevel<'a>) -> DefaultAnalysis<'a> {
    let plain = |kind, span| DefaultAnalysis {
        kind,
        span,
        definition: None,
        problem: None,
    };
    match site {
        DefaultSite::Missing => plain(DefaultExport::Missing, None),
        DefaultSite::ReExport { span } => plain(DefaultExport::ReExport, Some(*span)),
        DefaultSite::ClassDeclaration { span } => plain(DefaultExport::Other, Some(*span)),
        DefaultSite::FunctionDeclaration { is_async, span } => {
            plain(function_kind(*is_async), Some(*span))
        }
        DefaultSite::Local { name, span } => analyse_identifier(name, *span, top),
        DefaultSite::Expression(expression) => analyse_expression(expression, top),
    }
}

fn analyse_expression<'a>(
    expression: &'a Expression<'a>,
    top: &TopLevel<'a>,
) -> DefaultAnalysis<'a> {
    let expression = unwrap_expression(expression);
    let span = Some(span_of(expression));
    let other = |problem| DefaultAnalysis {
        kind: DefaultExport::Other,
        span,
        definition: None,
        problem,
    };
    if let Some(is_async) = function_expression(expression) {
        return DefaultAnalysis {
            kind: function_kind(is_async),
            span,
            definition: None,
            problem: None,
        };
    }
    match expression {
        Expression::Identifier(identifier) => {
            analyse_identifier(identifier.name.as_str(), span_of(expression), top)
        }
        Expression::CallExpression(call) => {
            match helper(&call.callee, top) {
                Some(Helper::Namespace) => other(Some(DefinitionProblem {
                    message: format!(
                        "the definition calls a helper through a namespace import of `{ROUTES_PACKAGE}`"
                    ),
                    span: span_of(&call.callee),
                })),
                Some(found) => {
                    let form = match found {
                        Helper::Event(event) => RouteForm::DefineEvent { event },
                        _ => RouteForm::DefineTool,
                    };
                    let (options, problem) =
                        read_arguments(&form, &call.arguments, span_of(expression));
                    let definition = Definition {
                        form,
                        span: span_of(expression),
                        options,
                    };
                    DefaultAnalysis {
                        kind: DefaultExport::Definition,
                        span,
                        definition: Some(definition),
                        problem,
                    }
                }
                None => other(wrapped_definition(&call.arguments, top, 0).map(|inner| {
                    DefinitionProblem {
                        message: format!(
                            "the default export wraps the route definition in a call to `{}`",
                            callee_text(&call.callee)
                        ),
                        span: inner,
                    }
                })),
            }
        }
        _ => other(None),
    }
}

/// `export default name` / `export { name as default }`: a function, a re-exported import,
/// or (an error) an alias of a definition built elsewhere in the module.
fn analyse_identifier<'a>(name: &str, span: Span, top: &TopLevel<'a>) -> DefaultAnalysis<'a> {
    let plain = |kind, problem| DefaultAnalysis {
        kind,
        span: Some(span),
        definition: None,
        problem,
    };
    if let Some(is_async) = top.function(name) {
        return plain(function_kind(is_async), None);
    }
    let aliased = top.const_declaration(name).is_some_and(|declaration| {
        matches!(
            unwrap_expression(declaration.init),
            Expression::CallExpression(call)
                if matches!(helper(&call.callee, top), Some(Helper::DefineTool | Helper::Event(_)))
        )
    });
    if aliased {
        let message = format!("the default export aliases the definition held by `{name}`");
        return plain(
            DefaultExport::Other,
            Some(DefinitionProblem { message, span }),
        );
    }
    match top.resolve(name) {
        Binding::Import { .. } => plain(DefaultExport::ReExport, None),
        _ => plain(DefaultExport::Other, None),
    }
}

/// Checks the call's shape: exactly (options, handler), options an inline object literal.
fn read_arguments<'a>(
    form: &RouteForm,
    arguments: &'a [Argument<'a>],
    call_span: Span,
) -> (Option<&'a ObjectExpression<'a>>, Option<DefinitionProblem>) {
    let helper = match form {
        RouteForm::DefineEvent { event } => format!("events.{}", event_member_path(event)),
        _ => "defineTool".to_owned(),
    };
    if arguments.len() != 2 {
        let message = format!(
            "`{helper}` takes exactly 2 arguments (options, handler), found {}",
            arguments.len()
        );
        return (
            None,
            Some(DefinitionProblem {
                message,
                span: call_span,
            }),
        );
    }
    let first = &arguments[0];
    match first.as_expression().map(unwrap_expression) {
        Some(Expression::ObjectExpression(object)) => (Some(object), None),
        _ => {
            let message = format!("the options of `{helper}` are not an inline object literal");
            (
                None,
                Some(DefinitionProblem {
                    message,
                    span: span_of(first),
                }),
            )
        }
    }
}

/// The span of a definition call nested in call arguments (`wrap(defineTool(...))`).
fn wrapped_definition(
    arguments: &[Argument<'_>],
    top: &TopLevel<'_>,
    depth: usize,
) -> Option<Span> {
    if depth > 16 {
        return None;
    }
    arguments
        .iter()
        .filter_map(Argument::as_expression)
        .find_map(|argument| match unwrap_expression(argument) {
            Expression::CallExpression(call) if helper(&call.callee, top).is_some() => {
                Some(span_of(call.as_ref()))
            }
            Expression::CallExpression(call) => wrapped_definition(&call.arguments, top, depth + 1),
            _ => None,
        })
}

/// Which helper `callee` names, resolving its root identifier in the module scope.
fn helper(callee: &Expression<'_>, top: &TopLevel<'_>) -> Option<Helper> {
    let mut members = Vec::new();
    let mut current = unwrap_expression(callee);
    while let Expression::StaticMemberExpression(member) = current {
        members.push(member.property.name.as_str());
        current = unwrap_expression(&member.object);
    }
    let Expression::Identifier(root) = current else {
        return None;
    };
    let import = top.import(root.name.as_str())?;
    if import.source != ROUTES_PACKAGE || import.type_only {
        return None;
    }
    members.reverse();
    match (import.imported.as_str(), members.as_slice()) {
        ("defineTool", []) => Some(Helper::DefineTool),
        ("events", [_, ..]) => Some(Helper::Event(
            members
                .iter()
                .map(|m| kebab_case(m))
                .collect::<Vec<_>>()
                .join("/"),
        )),
        ("*", ["defineTool"] | ["events", _, ..]) => Some(Helper::Namespace),
        _ => None,
    }
}

/// `modelSwitch` → `model-switch`.
pub fn kebab_case(camel: &str) -> String {
    let mut kebab = String::with_capacity(camel.len() + 4);
    for character in camel.chars() {
        if character.is_ascii_uppercase() {
            if !kebab.is_empty() {
                kebab.push('-');
            }
            kebab.push(character.to_ascii_lowercase());
        } else {
            kebab.push(character);
        }
    }
    kebab
}

/// `model-switch/before` → `modelSwitch.before`, as the author writes it after `events.`.
pub fn event_member_path(event: &str) -> String {
    event
        .split('/')
        .map(|segment| {
            let mut camel = String::with_capacity(segment.len());
            let mut upper = false;
            for character in segment.chars() {
                match (character, upper) {
                    ('-', _) => upper = true,
                    (c, true) => {
                        camel.push(c.to_ascii_uppercase());
                        upper = false;
                    }
                    (c, false) => camel.push(c),
                }
            }
            camel
        })
        .collect::<Vec<_>>()
        .join(".")
}

fn function_kind(is_async: bool) -> DefaultExport {
    if is_async {
        DefaultExport::AsyncFunction
    } else {
        DefaultExport::Function
    }
}

/// A short spelling of a callee for messages (`wrap`, `helpers.wrap`, or `a function`).
fn callee_text(callee: &Expression<'_>) -> String {
    let mut segments = Vec::new();
    let mut current = unwrap_expression(callee);
    loop {
        match current {
            Expression::Identifier(identifier) => {
                segments.push(identifier.name.as_str());
                break;
            }
            Expression::StaticMemberExpression(member) => {
                segments.push(member.property.name.as_str());
                current = unwrap_expression(&member.object);
            }
            _ => return "a function".to_owned(),
        }
    }
    segments.reverse();
    segments.join(".")
}
