//! Extraction of one route, layout or provider module: parse, collect top-level bindings and
//! exports, read the route's declaration, run the per-kind checks.
//!
//! Entry call: [`extract`]. Invariant: after a parse error only facts the recovered program
//! states directly are kept (imports, exports, the default export's kind, `'use client'`), and
//! no contract check runs, so a syntax error never cascades into contract errors.

use std::cell::RefCell;

use oxc_allocator::Allocator;
use oxc_ast::ast::{
    ImportDeclarationSpecifier, ImportOrExportKind, Program, Statement, StringLiteral,
};

use super::ExtractReturn;
use super::checks::{CheckContext, check_module};
use super::definition::analyse_default;
use super::entry::entry_facts;
use super::exports::ModuleExports;
use super::model::{ConstBinding, DefaultExport, ExtractedModule, ModuleRequest, SchemaNodes};
use super::parse::parse_module;
use super::position::Positions;
use super::route::{ConfigState, read_route};
use super::schema_expr::{capture, is_capturable_const};
use super::scope::TopLevel;
use crate::diagnostics::{Code, Diagnostic, Location};
use crate::project::ModuleKind;

/// Every static `import` and `export … from` of `program`, with where its specifier stands.
fn module_requests(program: &Program<'_>, positions: &Positions<'_>) -> Vec<ModuleRequest> {
    let request = |source: &StringLiteral<'_>, type_only: bool| ModuleRequest {
        specifier: source.value.to_string(),
        type_only,
        location: positions.of(source),
    };
    program
        .body
        .iter()
        .filter_map(|statement| match statement {
            Statement::ImportDeclaration(import) => {
                let every_specifier_typed = import.specifiers.as_ref().is_some_and(|specifiers| {
                    !specifiers.is_empty()
                        && specifiers.iter().all(|specifier| {
                            matches!(specifier, ImportDeclarationSpecifier::ImportSpecifier(named)
                                if named.import_kind == ImportOrExportKind::Type)
                        })
                });
                let type_only =
                    import.import_kind == ImportOrExportKind::Type || every_specifier_typed;
                Some(request(&import.source, type_only))
            }
            Statement::ExportFromDeclaration(export) => Some(request(
                &export.source,
                export.export_kind == ImportOrExportKind::Type,
            )),
            Statement::ExportAllDeclaration(export) => Some(request(
                &export.source,
                export.export_kind == ImportOrExportKind::Type,
            )),
            _ => None,
        })
        .collect()
}

thread_local! {
    /// The parse arena of this thread, reset after every file: a fresh arena per file made each
    /// parse write to memory never touched before (the freed arenas of earlier files are not
    /// handed out again soon enough), and first touches of memory were most of `check`'s time.
    /// Beside it, the schema arena every file of this thread captures into, copied out at its
    /// exact size once the file is read (`SchemaNodes::take_compact`).
    static ARENAS: RefCell<(Allocator, SchemaNodes)> = RefCell::default();
}

pub fn extract(path: &str, kind: &ModuleKind, source: &str) -> ExtractReturn {
    extract_then(path, kind, source, Nodes::Kept, |_| ()).0
}

/// What becomes of a module's schema nodes once its extraction's `then` step has read them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Nodes {
    /// Copied out of the thread's arena at their exact size, into the returned module.
    Kept,
    /// Left in the arena for the next file: the returned module has none
    /// ([`ExtractedModule::release_schema_nodes`]).
    Released,
}

/// [`extract`], then `then` on the module while its schema nodes are still in this thread's
/// arena (and in its caches), before they are kept or released as `nodes` says.
pub(super) fn extract_then<T>(
    path: &str,
    kind: &ModuleKind,
    source: &str,
    nodes: Nodes,
    then: impl FnOnce(&ExtractReturn) -> T,
) -> (ExtractReturn, T) {
    // With the AST in `allocator` and the schema expressions captured in `arena` (left empty
    // for the next file); nothing returned borrows from either.
    let extract = |allocator: &Allocator, arena: &mut SchemaNodes| {
        let mut extracted = extract_module_in(allocator, std::mem::take(arena), path, kind, source);
        extracted.module.read_presence();
        let answer = then(&extracted);
        *arena = std::mem::take(&mut extracted.module.schemas);
        match nodes {
            Nodes::Kept => extracted.module.schemas = arena.take_compact(),
            Nodes::Released => {
                arena.clear();
                extracted.module.release_schema_nodes();
            }
        }
        (extracted, answer)
    };
    ARENAS.with(|arenas| match arenas.try_borrow_mut() {
        Ok(mut arenas) => {
            let (allocator, arena) = &mut *arenas;
            let extracted = extract(allocator, arena);
            allocator.reset();
            extracted
        }
        // An extraction that runs inside another on this thread (a `then` step that reads an
        // imported module) gets arenas of its own.
        Err(_) => extract(&Allocator::default(), &mut SchemaNodes::default()),
    })
}

/// [`extract_then`]'s extraction, capturing into `nodes`, which the returned module holds.
fn extract_module_in(
    allocator: &Allocator,
    nodes: SchemaNodes,
    path: &str,
    kind: &ModuleKind,
    source: &str,
) -> ExtractReturn {
    let positions = Positions::new(path, source);
    let mut diagnostics = Vec::new();
    let mut module = ExtractedModule {
        path: path.to_owned(),
        schemas: nodes,
        ..ExtractedModule::default()
    };
    let parsed = parse_module(allocator, &positions, source, &mut diagnostics);
    let Some(program) = &parsed.program else {
        return ExtractReturn {
            module,
            diagnostics,
        };
    };

    let top = TopLevel::collect(program);
    let exports = ModuleExports::collect(program);
    let analysis = analyse_default(&exports.default, &top);
    module.imports = top.imports.clone();
    module.requests = module_requests(program, &positions);
    module.exports = exports.names.clone();
    module.use_client = exports.use_client.is_some();
    module.default_export = analysis.kind;
    if let ModuleKind::ServerEntry { server } = kind {
        let facts = entry_facts(program);
        if facts.commonjs_default && module.default_export == DefaultExport::Missing {
            // The bundler exposes a whole-object `module.exports` as the default export.
            module.default_export = DefaultExport::Other;
        }
        if module.default_export == DefaultExport::Missing {
            diagnostics.push(entry_without_factory(
                server,
                facts.connect.map(|span| positions.location(span)),
                &positions,
            ));
        }
    }
    if !parsed.clean {
        return ExtractReturn {
            module,
            diagnostics,
        };
    }

    let schemas = &mut module.schemas;
    module.consts = top
        .consts
        .iter()
        .filter(|(_, declaration)| is_capturable_const(declaration.init))
        .map(|(name, declaration)| {
            let binding = ConstBinding {
                exported: declaration.exported,
                init: capture(declaration.init, &top, source, schemas),
            };
            ((*name).to_owned(), binding)
        })
        .collect();

    let is_route = matches!(
        kind,
        ModuleKind::Tool { .. }
            | ModuleKind::Resource { .. }
            | ModuleKind::Prompt { .. }
            | ModuleKind::App { .. }
            | ModuleKind::Event { .. }
            | ModuleKind::Cli { .. }
            | ModuleKind::Script { rendered: true, .. }
            | ModuleKind::ToolCli { .. }
    );
    let config_state = if is_route {
        read_route(
            &mut module,
            &analysis,
            &exports,
            &top,
            &positions,
            &mut diagnostics,
        )
    } else {
        ConfigState::Read
    };
    let definition_rejected = match &analysis.problem {
        Some(problem) if is_route || analysis.definition.is_some() => {
            diagnostics.push(
                Diagnostic::new(
                    Code::AB4810,
                    format!("unsupported route definition: {}", problem.message),
                    "Write `export default defineTool({ ... }, handler)` or `export default events.<family>.<event>({ ... }, handler)` with an inline object literal and no wrappers or aliases.",
                )
                .at(positions.location(problem.span)),
            );
            true
        }
        _ => false,
    };
    let context = CheckContext {
        kind,
        module: &module,
        config_state,
        definition_rejected,
        use_client: exports.use_client,
        default_span: analysis.span,
        positions: &positions,
    };
    check_module(&context, &mut diagnostics);
    ExtractReturn {
        module,
        diagnostics,
    }
}

/// AB4730: a stdio entry without a default-exported server factory, so the lifecycle shell has
/// nothing to call; `connect` is where it connects a transport itself, when it does.
fn entry_without_factory(
    server: &str,
    connect: Option<Location>,
    positions: &Positions<'_>,
) -> Diagnostic {
    let path = positions.path();
    let (message, location) = match connect {
        Some(location) => (
            format!(
                "`{path}` connects a transport at its top level and has no default export, so it cannot be built under the lifecycle shell"
            ),
            location,
        ),
        None => (
            format!(
                "`{path}` has no default export: the stdio entry of server `{server}` must default-export its server factory"
            ),
            Location {
                line: Some(1),
                column: Some(1),
                ..Location::file(path)
            },
        ),
    };
    Diagnostic::new(
        Code::AB4730,
        message,
        format!("write `export default () => new McpServer({{ name: '{server}', version: '1.0.0' }})` (or `module.exports = () => …`) and leave connecting to the shell; or declare the server with `command`, `url` or a `{{ prebuilt }}` entry your own build produced"),
    )
    .at(location)
    .with_note("the shell redirects console output before the module runs and owns stdout, signals and shutdown")
}
