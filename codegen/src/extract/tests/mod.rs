//! Tests of extraction through one `check` helper per question, in the style of rust-analyzer:
//! inline fixtures whose expected diagnostics are written under the offending line as
//! `//    ^ AB4806` (the caret marks the column where the diagnostic starts).

mod config_files;
mod deep_forms;
mod diagnostics;
mod forms;
mod literal_grammar;
mod robustness;
mod snapshots;

use super::{ExtractReturn, extract_module};
use crate::diagnostics::Diagnostic;
use crate::project::ModuleKind;

pub fn tool() -> ModuleKind {
    ModuleKind::Tool {
        server: "demo".to_owned(),
        name: "search".to_owned(),
    }
}

pub fn event(name: &str) -> ModuleKind {
    ModuleKind::Event {
        event: name.to_owned(),
    }
}

/// Extracts `source` as `src/mcp/demo/tools/search.tsx` (or the path `kind` implies).
pub fn extract(kind: &ModuleKind, source: &str) -> ExtractReturn {
    extract_module(path_for(kind), kind, source)
}

fn path_for(kind: &ModuleKind) -> &'static str {
    match kind {
        ModuleKind::Event { .. } => "src/events/route.tsx",
        ModuleKind::Layout(_) => "src/layout.tsx",
        ModuleKind::Provider { .. } => "src/providers/auth.ts",
        ModuleKind::App { .. } => "src/mcp/demo/apps/board.tsx",
        ModuleKind::Resource { .. } => "src/mcp/demo/resources/notes.tsx",
        ModuleKind::Prompt { .. } => "src/mcp/demo/prompts/plan.tsx",
        _ => "src/mcp/demo/tools/search.tsx",
    }
}

/// One line per diagnostic: `AB4806 3:14 message`.
pub fn render_diagnostics(diagnostics: &[Diagnostic]) -> String {
    let mut lines: Vec<String> = diagnostics
        .iter()
        .map(|diagnostic| {
            let (line, column) = diagnostic.location.as_ref().map_or((0, 0), |location| {
                (location.line.unwrap_or(0), location.column.unwrap_or(0))
            });
            format!(
                "{} {line}:{column} {}",
                diagnostic.code.as_str(),
                diagnostic.message
            )
        })
        .collect();
    lines.sort();
    lines.join("\n")
}

/// Asserts that extracting `fixture` as `kind` yields exactly the annotated diagnostics.
///
/// An annotation line is a comment whose first non-space characters after `//` are carets;
/// it expects a diagnostic with the code that follows, starting at the caret's column on the
/// closest line above that is not an annotation. Returns the extraction for further asserts.
#[track_caller]
pub fn check_diagnostics(kind: &ModuleKind, fixture: &str) -> ExtractReturn {
    let mut expected = Vec::new();
    let mut last_code_line = 0;
    for (index, line) in fixture.lines().enumerate() {
        let trimmed = line.trim_start();
        let annotation = trimmed
            .strip_prefix("//")
            .map(str::trim_start)
            .filter(|rest| rest.starts_with('^'));
        match annotation {
            Some(rest) => {
                let caret_column = line.chars().position(|c| c == '^').unwrap_or(0) + 1;
                let code = rest.trim_start_matches('^').trim();
                expected.push(format!("{code} {last_code_line}:{caret_column}"));
            }
            None => last_code_line = index + 1,
        }
    }
    let extracted = extract(kind, fixture);
    let mut actual: Vec<String> = extracted
        .diagnostics
        .iter()
        .map(|diagnostic| {
            let location = diagnostic.location.as_ref();
            let line = location.and_then(|l| l.line).unwrap_or(0);
            let column = location.and_then(|l| l.column).unwrap_or(0);
            format!("{} {line}:{column}", diagnostic.code.as_str())
        })
        .collect();
    expected.sort();
    actual.sort();
    assert_eq!(
        actual,
        expected,
        "diagnostics:\n{}",
        render_diagnostics(&extracted.diagnostics)
    );
    extracted
}

/// A captured schema expression spelled back as source, with each identifier's binding in
/// brackets: `z[zod#z].object({id: z[zod#z].string()})`.
pub fn schema_text(module: &super::ExtractedModule, source: &str, id: super::ExprId) -> String {
    expr_text(module.expr(source, id))
}

fn expr_text(expr: super::Expr<'_>) -> String {
    use super::{BindingView, ExprKind};
    match expr.kind() {
        ExprKind::Call { callee, args } => {
            let args: Vec<String> = args.iter().map(expr_text).collect();
            format!("{}({})", expr_text(callee), args.join(", "))
        }
        ExprKind::Member { object, property } => format!("{}.{property}", expr_text(object)),
        ExprKind::Ident { name, binding } => match binding {
            BindingView::Import { source, imported } => format!("{name}[{source}#{imported}]"),
            BindingView::LocalConst { name: target } => format!("{name}[const {target}]"),
            BindingView::Local => format!("{name}[local]"),
            BindingView::Global => format!("{name}[global]"),
        },
        ExprKind::Literal(literal) => literal.value().to_string(),
        ExprKind::Object { properties } => {
            let properties: Vec<String> = properties
                .iter()
                .map(|(key, value)| format!("{key}: {}", expr_text(value)))
                .collect();
            format!("{{{}}}", properties.join(", "))
        }
        ExprKind::Array { items } => {
            let items: Vec<String> = items.iter().map(expr_text).collect();
            format!("[{}]", items.join(", "))
        }
        ExprKind::Regex { pattern, flags } => format!("/{pattern}/{flags}"),
        ExprKind::Unsupported { construct } => format!("<{construct}>"),
    }
}
