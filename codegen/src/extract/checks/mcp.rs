//! Contracts of MCP routes: tools, resources and prompts need both schemas and an async
//! handler (AB4810), never export `execute` or `render` (AB4811), and declare `render` and
//! `execution` well-formed (AB4835, AB4836), list `excludeClients` as client-name prefixes
//! (AB5320), and name what the model reads of a tool's result as `model` (AB5322); an App needs a
//! static `resourceUri` (AB4812); no routed module or App value-imports a compiler-carrying
//! framework entry, and no App a Node-only one (AB4837; an App's bundle checks what it imports in
//! turn, `crate::apps`).
//!
//! Entry calls: [`check_mcp_route`], [`check_app`].

use serde_json::Value;

use super::CheckContext;
use crate::diagnostics::{Code, Diagnostic};
use crate::extract::model::{DefaultExport, RouteForm};
use crate::project::ModuleKind;

/// The largest `render.maxElapsedMs`: one day.
const MAX_ELAPSED_MS: u64 = 86_400_000;
const TASK_SUPPORT: [&str; 3] = ["forbidden", "optional", "required"];
/// The longest `excludeClients` prefix (seed 002: non-empty strings of at most 128 characters).
const MAX_CLIENT_PREFIX_CHARS: usize = 128;
/// What a tool's `model` may name: the result's content blocks or its structured value.
const MODEL_VIEWS: [&str; 2] = ["content", "structured"];

pub fn check_mcp_route(context: &CheckContext<'_>, diagnostics: &mut Vec<Diagnostic>) {
    let module = context.module;
    let noun = route_noun(context.kind);
    if let Some(RouteForm::DefineEvent { event }) = &module.form {
        diagnostics.push(
            Diagnostic::new(
                Code::AB4810,
                format!("the {noun} route is defined with `events` (event `{event}`)"),
                "Define MCP routes with `defineTool({ ... }, handler)`.",
            )
            .at(context.route_location()),
        );
    } else if !context.definition_rejected {
        check_schemas_and_handler(context, noun, diagnostics);
    }
    for name in ["execute", "render"] {
        if module.exports.iter().any(|export| export == name) {
            diagnostics.push(
                Diagnostic::new(
                    Code::AB4811,
                    format!("the {noun} route exports `{name}`"),
                    "Remove the export; the route's default export is its handler.",
                )
                .at(context.route_location()),
            );
        }
    }
    if context.config_read() {
        check_render(context, diagnostics);
        check_execution(context, noun, diagnostics);
        check_exclude_clients(context, diagnostics);
        if matches!(context.kind, ModuleKind::Tool { .. }) {
            check_model(context, diagnostics);
        }
    }
}

/// Framework entries that carry the compiler: never in a routed module or an App (seed 002's
/// AB4837 list; `agent-bundle/app`, `/routes`, `/launch-env`, `/mcp-entry` are bundle-safe).
const COMPILER_CARRYING: [&str; 7] = [
    "agent-bundle",
    "agent-bundle/api",
    "agent-bundle/config",
    "agent-bundle/eval",
    "agent-bundle/rstest",
    "agent-bundle/test",
    "agent-bundle/test/browser",
];
/// What an App, a browser document, cannot carry beyond those: Node-only framework entries and
/// Node built-ins (the App bundle refuses the same, `templates/esbuild-app.mjs`).
const NODE_ONLY: [&str; 3] = [
    "agent-bundle/mcp-entry",
    "agent-bundle/launch-env",
    "@agent-bundle/runtime",
];

pub fn check_app(context: &CheckContext<'_>, diagnostics: &mut Vec<Diagnostic>) {
    if !context.config_read() {
        return;
    }
    match context.module.config.get("resourceUri") {
        Some(Value::String(uri)) if !uri.trim().is_empty() => {}
        found => diagnostics.push(
            Diagnostic::new(
                Code::AB4812,
                match found {
                    None => "the App route has no static `config.resourceUri`".to_owned(),
                    Some(_) => {
                        "the App route's `config.resourceUri` is not a non-empty string".to_owned()
                    }
                },
                "Declare `export const config = { resourceUri: 'ui://<server>/<app>' }`.",
            )
            .at(context.value_location("/resourceUri")),
        ),
    }
}

/// AB4837: a value import of a compiler-carrying framework entry in a routed module or an App,
/// or, in an App (`browser`), of a Node-only entry or a Node built-in. A type-only import is
/// erased and fine.
pub fn check_framework_imports(
    context: &CheckContext<'_>,
    browser: bool,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let mut reported = std::collections::BTreeSet::new();
    for import in &context.module.imports {
        let specifier = import.source.as_str();
        let compiler = COMPILER_CARRYING.contains(&specifier);
        let node_only = NODE_ONLY.contains(&specifier)
            || specifier.starts_with("@agent-bundle/runtime/")
            || specifier.starts_with("node:");
        if import.type_only || !(compiler || (browser && node_only)) || !reported.insert(specifier)
        {
            continue;
        }
        let source = context.positions.source();
        let location = ['\'', '"']
            .iter()
            .find_map(|quote| source.find(&format!("{quote}{specifier}{quote}")))
            .map_or_else(
                || crate::diagnostics::Location::file(context.positions.path()),
                |at| {
                    let at = at as u32;
                    context.positions.location(crate::diagnostics::Span::new(
                        at,
                        at + specifier.len() as u32 + 2,
                    ))
                },
            );
        let diagnostic = if browser {
            Diagnostic::new(
                Code::AB4837,
                format!(
                    "the App imports `{specifier}`, which carries compiler or Node-only code and cannot run in a browser"
                ),
                "Import only browser code into an App: call the plugin's tools through `agent-bundle/app` (`createAppClient`); `import type` is fine for types.",
            )
        } else {
            Diagnostic::new(
                Code::AB4837,
                format!(
                    "the route imports `{specifier}`, which carries the compiler and is not part of a built plugin"
                ),
                "Import routes from `agent-bundle/routes` and keep `agent-bundle/config` to `agent-bundle.config.ts`; `import type` is fine for types.",
            )
        };
        diagnostics.push(diagnostic.at(location));
    }
}

fn check_schemas_and_handler(
    context: &CheckContext<'_>,
    noun: &str,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let module = context.module;
    let input = module.input_schema.is_some()
        || (context.config_read()
            && module
                .config
                .get("inputJsonSchema")
                .is_some_and(Value::is_object));
    let result = module.result_schema.is_some();
    let definition = module.form == Some(RouteForm::DefineTool);
    let missing = match (input, result) {
        (true, true) => None,
        (false, true) => Some("`inputSchema`"),
        (true, false) => Some("`resultSchema`"),
        (false, false) => Some("`inputSchema` and `resultSchema`"),
    };
    if let Some(missing) = missing {
        let message = if definition {
            format!("the {noun} definition's options have no {missing}")
        } else {
            format!("the {noun} route is missing the named export {missing}")
        };
        let recovery = if definition {
            "Add `inputSchema` and `resultSchema` (zod schemas) to the options; a literal `inputJsonSchema` also serves as input."
        } else {
            "Export `inputSchema` and `resultSchema` (zod schemas) beside the default handler."
        };
        diagnostics
            .push(Diagnostic::new(Code::AB4810, message, recovery).at(context.route_location()));
    }
    if definition {
        return;
    }
    // Seed 000's `export default function Audit({ input, signal })`: a route component may be
    // synchronous and suspend below itself, so any function is a route component.
    let problem = match module.default_export {
        DefaultExport::AsyncFunction
        | DefaultExport::Function
        | DefaultExport::ReExport
        | DefaultExport::Definition => None,
        DefaultExport::Missing => Some("has no default export"),
        DefaultExport::Other => Some("has a default export that is not a function"),
    };
    if let Some(problem) = problem {
        diagnostics.push(
            Diagnostic::new(
                Code::AB4810,
                format!("the {noun} route {problem}"),
                "Export the route component as `export default function Route({ input, signal }) { ... }` (it may be async).",
            )
            .at(context.route_location()),
        );
    }
}

pub(super) fn check_render(context: &CheckContext<'_>, diagnostics: &mut Vec<Diagnostic>) {
    let Some(render) = context.module.config.get("render") else {
        return;
    };
    let well_formed = render.as_object().is_some_and(|render| {
        render.len() == 1
            && render
                .get("maxElapsedMs")
                .and_then(Value::as_u64)
                .is_some_and(|ms| (1..=MAX_ELAPSED_MS).contains(&ms))
    });
    if !well_formed {
        diagnostics.push(
            Diagnostic::new(
                Code::AB4835,
                "`config.render` is not `{ maxElapsedMs: <positive integer> }`",
                format!("Write `render: {{ maxElapsedMs: 60000 }}` with at most {MAX_ELAPSED_MS} ms (one day)."),
            )
            .at(context.value_location("/render")),
        );
    }
}

fn check_execution(context: &CheckContext<'_>, noun: &str, diagnostics: &mut Vec<Diagnostic>) {
    let Some(execution) = context.module.config.get("execution") else {
        return;
    };
    if !matches!(context.kind, ModuleKind::Tool { .. }) {
        diagnostics.push(
            Diagnostic::new(
                Code::AB4836,
                format!("`config.execution` is declared on a {noun} route"),
                "Remove `execution`; only tools support task execution.",
            )
            .at(context.value_location("/execution")),
        );
        return;
    }
    let well_formed = execution.as_object().is_some_and(|execution| {
        execution.len() == 1
            && execution
                .get("taskSupport")
                .and_then(Value::as_str)
                .is_some_and(|value| TASK_SUPPORT.contains(&value))
    });
    if !well_formed {
        diagnostics.push(
            Diagnostic::new(
                Code::AB4836,
                "`config.execution` is not `{ taskSupport: 'forbidden' | 'optional' | 'required' }`",
                "Write `execution: { taskSupport: 'optional' }` (or `forbidden`, `required`).",
            )
            .at(context.value_location("/execution")),
        );
    }
}

fn route_noun(kind: &ModuleKind) -> &'static str {
    match kind {
        ModuleKind::Resource { .. } => "resource",
        ModuleKind::Prompt { .. } => "prompt",
        _ => "tool",
    }
}

/// `excludeClients` is matched case-insensitively as a prefix of the negotiated client name: an
/// empty prefix would hide the tool from every client, and a long one can never match a name.
fn check_exclude_clients(context: &CheckContext<'_>, diagnostics: &mut Vec<Diagnostic>) {
    let Some(value) = context.module.config.get("excludeClients") else {
        return;
    };
    let problem = match value.as_array() {
        None => Some(("/excludeClients".to_owned(), "is not an array".to_owned())),
        Some(prefixes) => prefixes.iter().enumerate().find_map(|(index, prefix)| {
            let problem = match prefix.as_str() {
                None => "is not a string",
                Some(text) if text.trim().is_empty() => {
                    "is empty, which would hide the tool from every client"
                }
                Some(text) if text.chars().count() > MAX_CLIENT_PREFIX_CHARS => {
                    "is longer than 128 characters"
                }
                Some(_) => return None,
            };
            Some((
                format!("/excludeClients/{index}"),
                format!("entry {index} {problem}"),
            ))
        }),
    };
    if let Some((pointer, problem)) = problem {
        diagnostics.push(
            Diagnostic::new(
                Code::AB5320,
                format!("`config.excludeClients` {problem}"),
                "List MCP client-name prefixes of 1 to 128 characters, e.g. `excludeClients: ['codex']`; they match case-insensitively.",
            )
            .at(context.value_location(&pointer)),
        );
    }
}

/// `model` says what the model is handed of a tool's result, whatever the host would pick.
fn check_model(context: &CheckContext<'_>, diagnostics: &mut Vec<Diagnostic>) {
    let Some(value) = context.module.config.get("model") else {
        return;
    };
    if value
        .as_str()
        .is_some_and(|view| MODEL_VIEWS.contains(&view))
    {
        return;
    }
    diagnostics.push(
        Diagnostic::new(
            Code::AB5322,
            format!("`config.model` is {value}, which names no view of a tool's result"),
            "Write `model: 'content'` (the model reads the Markdown the handler renders) or \
             `model: 'structured'` (it reads the result value as JSON), or leave it out to keep \
             what each host does.",
        )
        .at(context.value_location("/model")),
    );
}
