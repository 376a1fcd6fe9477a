//! One pass over the module's top-level statements: named exports, the default export's
//! site, the `config` export (accepted or with the reason its shape is rejected), the schema
//! exports of the config-export form, and a `'use client'` directive.
//!
//! Entry call: [`ModuleExports::collect`]. Invariant: only top-level statements are read, and
//! for `config` only the first statement exporting it counts (as in agent-bundle).

use oxc_ast::ast::{
    BindingPattern, Declaration, ExportDefaultDeclarationKind, Expression, ImportOrExportKind,
    Program, Statement, VariableDeclarationKind,
};

use super::position::span_of;
use super::scope::{bound_names, export_name};
use crate::diagnostics::Span;

/// Where the module's default export comes from.
pub enum DefaultSite<'a> {
    Missing,
    Expression(&'a Expression<'a>),
    /// `export default function …` (`is_async`).
    FunctionDeclaration {
        is_async: bool,
        span: Span,
    },
    ClassDeclaration {
        span: Span,
    },
    /// `export { local as default }`.
    Local {
        name: &'a str,
        span: Span,
    },
    /// `export { default } from './x'`, `export { Page as default } from './x'`.
    ReExport {
        span: Span,
    },
}

/// The statement exporting `config`.
pub enum ConfigExport<'a> {
    /// `export const config = <value>`; `span` covers the declarator.
    Value {
        value: &'a Expression<'a>,
        span: Span,
    },
    /// A shape AB4805 rejects, with agent-bundle's reason text.
    Rejected { reason: &'static str, span: Span },
}

/// Where a named `inputSchema` / `resultSchema` export comes from.
pub enum SchemaSource<'a> {
    /// `export const inputSchema = <init>`.
    Init(&'a Expression<'a>),
    /// `export { local as inputSchema }`, or `export let`/`var`/destructured (not followed).
    Local { name: &'a str, span: Span },
    /// `export { inputSchema } from './schemas'`.
    ReExport {
        source: &'a str,
        imported: String,
        span: Span,
    },
}

pub struct ModuleExports<'a> {
    /// Named exports, sorted and deduplicated, `default` excluded, type-only exports excluded.
    pub names: Vec<String>,
    pub default: DefaultSite<'a>,
    pub config: Option<ConfigExport<'a>>,
    pub input_schema: Option<SchemaSource<'a>>,
    pub result_schema: Option<SchemaSource<'a>>,
    pub use_client: Option<Span>,
}

impl<'a> ModuleExports<'a> {
    pub fn collect(program: &'a Program<'a>) -> Self {
        let mut exports = Self {
            names: Vec::new(),
            default: DefaultSite::Missing,
            config: None,
            input_schema: None,
            result_schema: None,
            use_client: program
                .directives
                .iter()
                .find(|directive| directive.expression.value == "use client")
                .map(span_of),
        };
        for statement in &program.body {
            exports.add_statement(statement);
        }
        exports.names.sort();
        exports.names.dedup();
        exports
    }

    fn add_statement(&mut self, statement: &'a Statement<'a>) {
        match statement {
            Statement::ExportDefaultDeclaration(export) => {
                self.default = match &export.declaration {
                    ExportDefaultDeclarationKind::FunctionDeclaration(function) => {
                        DefaultSite::FunctionDeclaration {
                            is_async: function.r#async,
                            span: span_of(function.as_ref()),
                        }
                    }
                    ExportDefaultDeclarationKind::ClassDeclaration(class) => {
                        DefaultSite::ClassDeclaration {
                            span: span_of(class.as_ref()),
                        }
                    }
                    ExportDefaultDeclarationKind::TSInterfaceDeclaration(_) => return,
                    kind => match kind.as_expression() {
                        Some(expression) => DefaultSite::Expression(expression),
                        None => return,
                    },
                };
            }
            Statement::ExportDeclaration(export) => {
                self.add_declaration(&export.declaration, span_of(export.as_ref()))
            }
            Statement::ExportNamedDeclaration(export)
                if export.export_kind != ImportOrExportKind::Type =>
            {
                for specifier in &export.specifiers {
                    if specifier.export_kind == ImportOrExportKind::Type {
                        continue;
                    }
                    let exported = export_name(&specifier.exported);
                    let local = specifier.local.name().as_str();
                    let span = span_of(specifier);
                    if exported == "default" {
                        self.default = DefaultSite::Local { name: local, span };
                        continue;
                    }
                    self.note_indirect(&exported, span);
                    self.set_schema(&exported, || SchemaSource::Local { name: local, span });
                    self.names.push(exported);
                }
            }
            Statement::ExportFromDeclaration(export)
                if export.export_kind != ImportOrExportKind::Type =>
            {
                for specifier in &export.specifiers {
                    if specifier.export_kind == ImportOrExportKind::Type {
                        continue;
                    }
                    let exported = export_name(&specifier.exported);
                    let span = span_of(specifier);
                    if exported == "default" {
                        self.default = DefaultSite::ReExport { span };
                        continue;
                    }
                    self.note_indirect(&exported, span);
                    let source = export.source.value.as_str();
                    let imported = export_name(&specifier.local);
                    self.set_schema(&exported, || SchemaSource::ReExport {
                        source,
                        imported,
                        span,
                    });
                    self.names.push(exported);
                }
            }
            Statement::ExportAllDeclaration(export)
                if export.export_kind != ImportOrExportKind::Type =>
            {
                if let Some(exported) = &export.exported {
                    self.names.push(export_name(exported));
                }
            }
            _ => {}
        }
    }

    fn add_declaration(&mut self, declaration: &'a Declaration<'a>, statement_span: Span) {
        match declaration {
            Declaration::VariableDeclaration(variables) => {
                for declarator in &variables.declarations {
                    let span = span_of(declarator);
                    let names = bound_names(&declarator.id);
                    let simple = matches!(declarator.id, BindingPattern::BindingIdentifier(_));
                    if names.contains(&"config") && self.config.is_none() {
                        self.config = Some(match (simple, variables.kind, &declarator.init) {
                            (false, _, _) => rejected("a destructuring declaration", span),
                            (true, VariableDeclarationKind::Const, Some(value)) => {
                                ConfigExport::Value { value, span }
                            }
                            (true, VariableDeclarationKind::Const, None) => {
                                rejected("a declaration without an initializer", span)
                            }
                            (true, _, _) => rejected("a mutable `let`/`var` declaration", span),
                        });
                    }
                    for name in names {
                        let source = match (&declarator.init, simple, variables.kind) {
                            (Some(init), true, VariableDeclarationKind::Const) => {
                                SchemaSource::Init(init)
                            }
                            _ => SchemaSource::Local { name, span },
                        };
                        self.set_schema(name, || source);
                        self.names.push(name.to_owned());
                    }
                }
            }
            Declaration::FunctionDeclaration(function) => {
                if let Some(id) = &function.id {
                    self.add_callable(id.name.as_str(), statement_span);
                }
            }
            Declaration::ClassDeclaration(class) => {
                if let Some(id) = &class.id {
                    self.add_callable(id.name.as_str(), statement_span);
                }
            }
            Declaration::TSEnumDeclaration(enumeration) => {
                self.names.push(enumeration.id.name.as_str().to_owned())
            }
            Declaration::TSImportEqualsDeclaration(import) => {
                self.names.push(import.id.name.as_str().to_owned())
            }
            Declaration::TSNamespaceDeclaration(_)
            | Declaration::TSExternalModuleDeclaration(_)
            | Declaration::TSGlobalDeclaration(_)
            | Declaration::TSTypeAliasDeclaration(_)
            | Declaration::TSInterfaceDeclaration(_) => {}
        }
    }

    fn add_callable(&mut self, name: &'a str, span: Span) {
        if name == "config" && self.config.is_none() {
            self.config = Some(rejected("a function or class declaration", span));
        }
        self.set_schema(name, || SchemaSource::Local { name, span });
        self.names.push(name.to_owned());
    }

    fn note_indirect(&mut self, exported: &str, span: Span) {
        if exported == "config" && self.config.is_none() {
            self.config = Some(rejected("an indirect `export { config }` clause", span));
        }
    }

    fn set_schema(&mut self, name: &str, source: impl FnOnce() -> SchemaSource<'a>) {
        let slot = match name {
            "inputSchema" => &mut self.input_schema,
            "resultSchema" => &mut self.result_schema,
            _ => return,
        };
        if slot.is_none() {
            *slot = Some(source());
        }
    }
}

fn rejected<'a>(reason: &'static str, span: Span) -> ConfigExport<'a> {
    ConfigExport::Rejected { reason, span }
}
