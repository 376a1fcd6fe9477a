//! Reads `agent-bundle.config.{ts,mts,js,mjs,json}` statically: `export default
//! defineConfig({...})` (the helper imported from `agent-bundle/config`, aliases allowed), a
//! plain `export default {...}`, a reference to a top-level `const` holding the object, or a
//! JSON file read as one expression with the same literal grammar.
//!
//! Entry call: [`extract`]. Invariant: a factory function or any computed value is a diagnostic
//! (AB4806) and never executed; a value that is not an object is AB4805.

use oxc_allocator::Allocator;
use oxc_ast::ast::{Argument, Expression};
use serde_json::Value;

use super::ConfigModuleReturn;
use super::exports::{DefaultSite, ModuleExports};
use super::literal::{LiteralReader, Rejected};
use super::parse::{parse_json, parse_module};
use super::position::{Positions, span_of};
use super::route::{dynamic_config, not_an_object};
use super::scope::TopLevel;
use super::syntax::unwrap_expression;
use crate::diagnostics::{Code, Diagnostic, Location};

const CONFIG_PACKAGE: &str = "agent-bundle/config";

pub fn extract(path: &str, source: &str) -> ConfigModuleReturn {
    let positions = Positions::new(path, source);
    let mut output = ConfigModuleReturn::default();
    let allocator = Allocator::default();
    if path.ends_with(".json") {
        if let Some(expression) =
            parse_json(&allocator, &positions, source, &mut output.diagnostics)
        {
            read_object(&expression, None, &positions, &mut output);
        }
        return output;
    }
    let parsed = parse_module(&allocator, &positions, source, &mut output.diagnostics);
    let Some(program) = parsed.program.as_ref().filter(|_| parsed.clean) else {
        return output;
    };
    let top = TopLevel::collect(program);
    let exports = ModuleExports::collect(program);
    let value = match &exports.default {
        DefaultSite::Expression(expression) => config_expression(expression, &top),
        DefaultSite::Local { name, span } => match top.const_declaration(name) {
            Some(declaration) => Ok(declaration.init),
            None => Err(Rejected {
                construct: format!("a reference to the identifier \"{name}\""),
                span: *span,
            }),
        },
        DefaultSite::FunctionDeclaration { span, .. } => Err(Rejected {
            construct: "a function declaration".to_owned(),
            span: *span,
        }),
        DefaultSite::ClassDeclaration { span } => Err(Rejected {
            construct: "a class declaration".to_owned(),
            span: *span,
        }),
        DefaultSite::ReExport { span } => Err(Rejected {
            construct: "a re-export".to_owned(),
            span: *span,
        }),
        DefaultSite::Missing => {
            output.diagnostics.push(
                Diagnostic::new(
                    Code::AB4805,
                    "the config file has no default export",
                    "Write `export default defineConfig({ plugin: { name: '…' } })`.",
                )
                .at(Location::file(path)),
            );
            return output;
        }
    };
    match value {
        Ok(expression) => read_object(expression, Some(&top), &positions, &mut output),
        Err(rejected) => output
            .diagnostics
            .push(dynamic_config(&rejected, &positions)),
    }
    output
}

/// The object expression a default export stands for: `defineConfig(x)`, an identifier bound
/// to a top-level `const`, or the expression itself.
fn config_expression<'e, 'a>(
    expression: &'e Expression<'a>,
    top: &TopLevel<'a>,
) -> Result<&'e Expression<'a>, Rejected> {
    let expression = unwrap_expression(expression);
    match expression {
        Expression::CallExpression(call) if is_define_config(&call.callee, top) => {
            match call.arguments.as_slice() {
                [Argument::SpreadElement(spread)] => Err(Rejected {
                    construct: "a spread".to_owned(),
                    span: span_of(spread.as_ref()),
                }),
                [argument] => argument
                    .as_expression()
                    .map(unwrap_expression)
                    .ok_or_else(|| Rejected {
                        construct: "an argument outside the grammar".to_owned(),
                        span: span_of(argument),
                    }),
                _ => Err(Rejected {
                    construct: format!(
                        "a `defineConfig` call with {} arguments",
                        call.arguments.len()
                    ),
                    span: span_of(call.as_ref()),
                }),
            }
        }
        Expression::Identifier(identifier) => match top.const_declaration(identifier.name.as_str())
        {
            Some(declaration) => Ok(declaration.init),
            None => Ok(expression),
        },
        _ => Ok(expression),
    }
}

fn is_define_config(callee: &Expression<'_>, top: &TopLevel<'_>) -> bool {
    let Expression::Identifier(identifier) = unwrap_expression(callee) else {
        return false;
    };
    top.import(identifier.name.as_str()).is_some_and(|import| {
        import.source == CONFIG_PACKAGE && import.imported == "defineConfig" && !import.type_only
    })
}

fn read_object<'a>(
    expression: &Expression<'a>,
    top: Option<&TopLevel<'a>>,
    positions: &Positions<'_>,
    output: &mut ConfigModuleReturn,
) {
    let mut reader = LiteralReader::new(top, positions);
    match reader.read(expression, "") {
        Ok(Value::Object(object)) => {
            reader.locations.remove("");
            output.value = Some(object);
            output.locations = reader.locations;
        }
        Ok(other) => {
            output
                .diagnostics
                .push(not_an_object("the config", &other, positions, expression))
        }
        Err(rejected) => output
            .diagnostics
            .push(dynamic_config(&rejected, positions)),
    }
}
