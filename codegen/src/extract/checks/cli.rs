//! Contracts of rendered commands (`src/cli/**`) and rendered scripts (`src/scripts/*.tsx`): an
//! `export const config` (optional) with a string `description` and a well-formed `render`
//! budget (AB4835), optional `inputSchema`/`resultSchema` exports (the command's flags come from
//! the input schema), and a default-exported route component (AB4815). `defineTool` and
//! `events.*` are an MCP tool's and an event's forms, never a command's.
//!
//! A tool's `<tool>.cli.ts` projection is a static `config` alone: `command` (its words, as one
//! string or a list), and optionally `description` and `confirm` (AB4841).
//!
//! Entry calls: [`check_rendered_command`], [`check_tool_projection`].

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

/// The keys of a projection's `config` abgen builds.
const PROJECTION_KEYS: [&str; 3] = ["command", "description", "confirm"];

pub fn check_tool_projection(context: &CheckContext<'_>, diagnostics: &mut Vec<Diagnostic>) {
    if !context.config_read() {
        return;
    }
    let config = &context.module.config;
    let mut refuse = |pointer: &str, problem: String| {
        diagnostics.push(
            Diagnostic::new(
                Code::AB4841,
                format!("the projection's `config` {problem}"),
                "Write `export const config = { command: 'find', description: '...' }` (`command` one or more lowercase words; `confirm: true` to ask first).",
            )
            .at(context.value_location(pointer)),
        );
    };
    match config.get("command") {
        None => refuse("", "has no `command`".to_owned()),
        Some(command) => {
            if projection_words(command).is_none() {
                refuse(
                    "/command",
                    "`command` is not lowercase words (letters, digits, `-`, `_`)".to_owned(),
                );
            }
        }
    }
    if config
        .get("description")
        .is_some_and(|value| !matches!(value, Value::String(text) if !text.trim().is_empty()))
    {
        refuse(
            "/description",
            "`description` is not a non-empty string".to_owned(),
        );
    }
    if config
        .get("confirm")
        .is_some_and(|value| !value.is_boolean())
    {
        refuse("/confirm", "`confirm` is not a boolean".to_owned());
    }
    for key in config.keys() {
        if !PROJECTION_KEYS.contains(&key.as_str()) {
            refuse(
                &format!("/{key}"),
                format!(
                    "has `{key}`, which abgen does not build (it builds `command`, `description` and `confirm`)"
                ),
            );
        }
    }
}

/// A projection's `command` as its words: `'shelf find'` or `['shelf', 'find']`.
pub fn projection_words(command: &Value) -> Option<Vec<String>> {
    let words: Vec<String> = match command {
        Value::String(text) => text.split_whitespace().map(str::to_owned).collect(),
        Value::Array(items) => items
            .iter()
            .map(|item| item.as_str().map(str::to_owned))
            .collect::<Option<_>>()?,
        _ => return None,
    };
    (!words.is_empty() && words.iter().all(|word| crate::graph::is_command_word(word)))
        .then_some(words)
}
