//! Parsing one file with oxc: the source type from the path, the nesting guard, and oxc's
//! errors turned into AB5300 diagnostics. Entry calls: [`parse_module`], [`parse_json`].
//!
//! Invariant: a file is parsed at most once, and never when [`nesting_overflow`] refuses it; the
//! callers run the parse and every walk of its AST inside [`crate::stack::with_parse_stack`].

use oxc_allocator::Allocator;
use oxc_ast::ast::{Expression, Program};
use oxc_parser::Parser;
use oxc_span::SourceType;

use super::nesting::{MAX_NESTING, nesting_overflow};
use super::position::Positions;
use crate::diagnostics::{Code, Diagnostic, Span};

/// The parsed program, or `None` when it could not be parsed at all; `clean` is false when oxc
/// reported errors (the program then holds only what oxc recovered).
pub struct ParsedModule<'a> {
    pub program: Option<Program<'a>>,
    pub clean: bool,
}

/// Parses a module; every parse error is pushed as AB5300.
pub fn parse_module<'a>(
    allocator: &'a Allocator,
    positions: &Positions<'_>,
    source: &'a str,
    diagnostics: &mut Vec<Diagnostic>,
) -> ParsedModule<'a> {
    let source_type = source_type(positions.path());
    if let Some(offset) = nesting_overflow(source, source_type.is_jsx()) {
        diagnostics.push(too_deep(positions, offset));
        return ParsedModule {
            program: None,
            clean: false,
        };
    }
    let returned = Parser::new(allocator, source, source_type).parse();
    let clean = returned.diagnostics.is_empty() && !returned.panicked;
    for error in returned.diagnostics.iter() {
        diagnostics.push(parse_error(
            positions,
            &error.message,
            error.labels.first().map(|l| l.span()),
        ));
    }
    if returned.panicked && returned.diagnostics.is_empty() {
        diagnostics.push(parse_error(positions, "the parser stopped early", None));
    }
    let program = (!returned.panicked).then_some(returned.program);
    ParsedModule { program, clean }
}

/// Parses a JSON file as one expression, so values keep their positions; `None` on errors.
pub fn parse_json<'a>(
    allocator: &'a Allocator,
    positions: &Positions<'_>,
    source: &'a str,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<Expression<'a>> {
    if let Some(offset) = nesting_overflow(source, false) {
        diagnostics.push(too_deep(positions, offset));
        return None;
    }
    match Parser::new(allocator, source, SourceType::mjs()).parse_expression() {
        Ok(expression) => Some(expression),
        Err(errors) => {
            for error in errors.iter() {
                let span = error.labels.first().map(|l| l.span());
                diagnostics.push(parse_error(positions, &error.message, span));
            }
            None
        }
    }
}

/// The source type a path's extension selects; TypeScript with JSX for anything unknown,
/// since that grammar accepts the most of what authors write.
pub fn source_type(path: &str) -> SourceType {
    let extension = path.rsplit_once('.').map_or("", |(_, extension)| extension);
    match extension {
        "ts" | "mts" | "cts" => SourceType::ts(),
        "js" | "mjs" | "cjs" => SourceType::mjs(),
        "jsx" => SourceType::jsx(),
        _ => SourceType::tsx(),
    }
}

fn parse_error(
    positions: &Positions<'_>,
    message: &str,
    span: Option<oxc_span::Span>,
) -> Diagnostic {
    let diagnostic = Diagnostic::new(
        Code::AB5300,
        format!("syntax error: {message}"),
        "Fix the syntax error; abgen reads the file only once it parses.",
    );
    match span {
        Some(span) => diagnostic.at(positions.location(Span::new(span.start, span.end))),
        None => diagnostic.at(crate::diagnostics::Location::file(positions.path())),
    }
}

fn too_deep(positions: &Positions<'_>, offset: u32) -> Diagnostic {
    Diagnostic::new(
        Code::AB5300,
        format!(
            "the file nests brackets, expressions, statements or types more than {MAX_NESTING} levels deep"
        ),
        "Flatten the nesting: a long `else if` chain can be a `switch` or a lookup table, and deeply nested data can move into a separate JSON asset.",
    )
    .with_note("abgen refuses such files before parsing them instead of risking a stack overflow")
    .at(positions.location(Span::new(offset, offset + 1)))
}
