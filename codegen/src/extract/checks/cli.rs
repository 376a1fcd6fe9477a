//! Contracts of rendered commands (`src/cli/**`) and rendered scripts (`src/scripts/*.tsx`): an
//! `export const config` (optional) with a string `description` and a well-formed `render`
//! budget (AB4835), optional `inputSchema`/`resultSchema` exports (the command's flags come from
//! the input schema), and a default-exported route component (AB4815). `defineTool` and
//! `events.*` are an MCP tool's and an event's forms, never a command's.
//!
//! Entry call: [`check_rendered_command`].

use serde_json::Value;

use super::CheckContext;
use crate::diagnostics::{Code, Diagnostic};
use crate::extract::model::{DefaultExport, RouteForm};
use crate::project::ModuleKind;

pub fn check_rendered_command(context: &CheckContext<'_>, diagnostics: &mut Vec<Diagnostic>) {
    let module = context.module;
    let noun = match context.kind {
        ModuleKind::Script { .. } => "script",
        _ => "command",
    };
    let mut refuse = |message: String, recovery: &str, location| {
        diagnostics.push(Diagnostic::new(Code::AB4815, message, recovery).at(location));
    };
    let component = "Export the component as `export default function Command({ input, signal }) { ... }` (it may be async), with `export const config = { description: '...' }` and an optional `export const inputSchema = z.object({ ... })` for its flags.";
    match &module.form {
        Some(RouteForm::DefineTool) => refuse(
            format!("the {noun} is defined with `defineTool`, an MCP tool's form"),
            component,
            context.route_location(),
        ),
        Some(RouteForm::DefineEvent { event }) => refuse(
            format!("the {noun} is defined with `events` (event `{event}`)"),
            component,
            context.route_location(),
        ),
        Some(RouteForm::ConfigExport) | None if !context.definition_rejected => {
            let problem = match module.default_export {
                DefaultExport::AsyncFunction
                | DefaultExport::Function
                | DefaultExport::ReExport
                | DefaultExport::Definition => None,
                DefaultExport::Missing => Some("has no default export"),
                DefaultExport::Other => Some("has a default export that is not a function"),
            };
            if let Some(problem) = problem {
                let at = context.default_span.map_or_else(
                    || context.route_location(),
                    |span| context.positions.location(span),
                );
                refuse(format!("the {noun} {problem}"), component, at);
            }
        }
        _ => {}
    }
    for name in ["execute", "render"] {
        if module.exports.iter().any(|export| export == name) {
            refuse(
                format!("the {noun} exports `{name}`"),
                "Remove the export; the default export is the component that renders it.",
                context.route_location(),
            );
        }
    }
    if !context.config_read() {
        return;
    }
    if let Some(description) = module.config.get("description")
        && !matches!(description, Value::String(text) if !text.trim().is_empty())
    {
        refuse(
            format!("the {noun}'s `config.description` is not a non-empty string"),
            "Write `description: 'What the command does.'`; help lists it.",
            context.value_location("/description"),
        );
    }
    super::mcp::check_render(context, diagnostics);
}
