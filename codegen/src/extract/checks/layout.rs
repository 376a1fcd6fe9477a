//! Contracts of layouts (AB4830: a function default export, and none of the route exports)
//! and providers (AB4940: a function default export). Entry calls: [`check_layout`],
//! [`check_provider`].

use super::CheckContext;
use crate::diagnostics::{Code, Diagnostic};
use crate::extract::model::DefaultExport;

/// Exports that make a module a route, which a layout must not have.
const ROUTE_EXPORTS: [&str; 5] = ["config", "inputSchema", "resultSchema", "execute", "render"];

pub fn check_layout(context: &CheckContext<'_>, diagnostics: &mut Vec<Diagnostic>) {
    if let Some(problem) = not_a_function(context.module.default_export) {
        diagnostics.push(
            Diagnostic::new(
                Code::AB4830,
                format!("the layout {problem}"),
                "Export the layout component: `export default function Layout({ children }) { ... }`.",
            )
            .at(context.route_location()),
        );
    }
    for name in ROUTE_EXPORTS {
        if context.module.exports.iter().any(|export| export == name) {
            diagnostics.push(
                Diagnostic::new(
                    Code::AB4830,
                    format!("the layout exports `{name}`, which only routes declare"),
                    "Remove the export; a layout only wraps the routes of its scope.",
                )
                .at(context.route_location()),
            );
        }
    }
}

pub fn check_provider(context: &CheckContext<'_>, diagnostics: &mut Vec<Diagnostic>) {
    if let Some(problem) = not_a_function(context.module.default_export) {
        diagnostics.push(
            Diagnostic::new(
                Code::AB4940,
                format!("the provider {problem}"),
                "Export the provider factory: `export default async function provide() { ... }`.",
            )
            .at(context.route_location()),
        );
    }
}

/// Why a default export is not a function, if it is not one (a re-export is judged at run time).
fn not_a_function(default_export: DefaultExport) -> Option<&'static str> {
    match default_export {
        DefaultExport::AsyncFunction | DefaultExport::Function | DefaultExport::ReExport => None,
        DefaultExport::Missing => Some("has no default export"),
        DefaultExport::Definition => Some("default export is a route definition, not a function"),
        DefaultExport::Other => Some("default export is not a function"),
    }
}
