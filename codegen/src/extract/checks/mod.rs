//! Per-kind contract checks on an extracted module: MCP routes, Apps, event routes, rendered
//! commands and scripts, layouts and providers. Entry call: [`check_module`].
//!
//! Invariant: checks read only the extracted model (no AST), and a check whose input was
//! already rejected (a config that is not static, a definition that is not readable) stays
//! silent, so one mistake yields one diagnostic.

mod cli;
pub use cli::projection_words;
mod event;
mod layout;
mod mcp;

use super::model::ExtractedModule;
use super::position::Positions;
use super::route::ConfigState;
use crate::diagnostics::{Code, Diagnostic, Location, Span};
use crate::project::ModuleKind;

/// What the checks need to know about one module.
pub struct CheckContext<'c> {
    pub kind: &'c ModuleKind,
    pub module: &'c ExtractedModule,
    pub config_state: ConfigState,
    /// The definition already got an AB4810 for its shape.
    pub definition_rejected: bool,
    pub use_client: Option<Span>,
    /// Where the default export stands, when there is one.
    pub default_span: Option<Span>,
    pub positions: &'c Positions<'c>,
}

impl CheckContext<'_> {
    /// Where the config value at `pointer` was written, else where the route is declared.
    pub fn value_location(&self, pointer: &str) -> Location {
        self.module
            .config_locations
            .get(pointer)
            .cloned()
            .unwrap_or_else(|| self.route_location())
    }

    /// The definition call or `config` export, else the default export, else the file.
    pub fn route_location(&self) -> Location {
        match (&self.module.definition_location, self.default_span) {
            (Some(location), _) => location.clone(),
            (None, Some(span)) => self.positions.location(span),
            (None, None) => Location::file(self.positions.path()),
        }
    }

    pub fn config_read(&self) -> bool {
        self.config_state == ConfigState::Read
    }
}

pub fn check_module(context: &CheckContext<'_>, diagnostics: &mut Vec<Diagnostic>) {
    match context.kind {
        ModuleKind::Tool { .. } | ModuleKind::Resource { .. } | ModuleKind::Prompt { .. } => {
            mcp::check_mcp_route(context, diagnostics);
        }
        ModuleKind::App { .. } => mcp::check_app(context, diagnostics),
        ModuleKind::Event { event } => event::check_event_route(event, context, diagnostics),
        ModuleKind::Layout(_) => layout::check_layout(context, diagnostics),
        ModuleKind::Provider { .. } => layout::check_provider(context, diagnostics),
        ModuleKind::Cli { .. } | ModuleKind::Script { rendered: true, .. } => {
            cli::check_rendered_command(context, diagnostics);
        }
        ModuleKind::ToolCli { .. } => cli::check_tool_projection(context, diagnostics),
        // A plain script runs as its own Node program: no route contract applies.
        ModuleKind::Script {
            rendered: false, ..
        }
        | ModuleKind::ServerEntry { .. }
        | ModuleKind::Imported => return,
    }
    let browser = matches!(context.kind, ModuleKind::App { .. });
    mcp::check_framework_imports(context, browser, diagnostics);
    if let Some(span) = context.use_client {
        diagnostics.push(
            Diagnostic::new(
                Code::AB5303,
                "`'use client'` directive in a module the build renders on the server",
                "Remove the directive; Agent Documents have no client components.",
            )
            .at(context.positions.location(span)),
        );
    }
}
