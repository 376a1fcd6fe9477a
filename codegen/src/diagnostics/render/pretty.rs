//! The human rendering: for each diagnostic `severity[CODE]: message`, the `file:line:col`, the
//! source line with a caret under the span, `help:` with the recovery and `note:` when there is
//! one; then a summary line. Drawn by annotate-snippets.
//!
//! Entry call: [`render_pretty`]. Invariant: colour only when asked for ([`ColorChoice`]), so
//! piped output and snapshots are plain text.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::ops::Range;

use annotate_snippets::{AnnotationKind, Group, Level, Origin, Renderer, Snippet};

use super::Summary;
use abgen_runtime::terminal::{ColorDepth, StreamKind, color_depth};

use crate::diagnostics::{Diagnostic, Location, Severity, Span, line_column};

/// Whether to style the output with ANSI colours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorChoice {
    Always,
    Never,
}

impl ColorChoice {
    /// Colour for a stream by the same rules as a plugin's command line and its terminal axis
    /// (FORCE_COLOR, CLICOLOR_FORCE, NO_COLOR, CLICOLOR, TERM=dumb, then a terminal or not), so
    /// abgen's own output and plugin output agree.
    pub fn for_terminal(is_terminal: bool) -> ColorChoice {
        Self::for_stream(&|name| std::env::var_os(name), is_terminal)
    }

    /// [`ColorChoice::for_terminal`] over a given environment.
    pub fn for_stream(
        env: &dyn Fn(&str) -> Option<std::ffi::OsString>,
        is_terminal: bool,
    ) -> ColorChoice {
        let kind = if is_terminal {
            StreamKind::Tty
        } else {
            StreamKind::Pipe
        };
        if color_depth(env, kind) == ColorDepth::None {
            ColorChoice::Never
        } else {
            ColorChoice::Always
        }
    }
}

/// Renders `diagnostics`, quoting source lines from `sources` (project-relative path → text),
/// followed by a summary line.
pub fn render_pretty(
    diagnostics: &[Diagnostic],
    sources: &BTreeMap<String, String>,
    color: ColorChoice,
) -> String {
    let renderer = match color {
        ColorChoice::Always => Renderer::styled(),
        ColorChoice::Never => Renderer::plain(),
    };
    let mut out = String::new();
    for diagnostic in diagnostics {
        let _ = writeln!(out, "{}\n", renderer.render(&report(diagnostic, sources)));
    }
    let summary = Summary::of(diagnostics);
    if diagnostics.is_empty() {
        out.push_str("No problems found.\n");
    } else {
        let _ = writeln!(out, "Found {summary}.");
    }
    out
}

fn report<'a>(diagnostic: &'a Diagnostic, sources: &'a BTreeMap<String, String>) -> Vec<Group<'a>> {
    let level = match diagnostic.severity {
        Severity::Error => Level::ERROR,
        Severity::Warning => Level::WARNING,
        Severity::Info => Level::INFO,
    };
    let title = level
        .primary_title(diagnostic.message.as_str())
        .id(diagnostic.code.as_str());
    let mut group = match &diagnostic.location {
        Some(location) => match excerpt(location, sources) {
            Some(snippet) => title.element(snippet),
            None => title.element(origin(location)),
        },
        None => Group::with_title(title),
    };
    if !diagnostic.recovery.is_empty() {
        group = group.element(Level::HELP.message(diagnostic.recovery.as_str()));
    }
    if let Some(note) = &diagnostic.note {
        group = group.element(Level::NOTE.message(note.as_str()));
    }
    vec![group]
}

/// The `--> file:line:col` line alone, for diagnostics without a quotable span.
fn origin(location: &Location) -> Origin<'_> {
    let origin = Origin::path(location.file.as_str());
    match (location.line, location.column) {
        (Some(line), column) => origin
            .line(line as usize)
            .char_column(column.unwrap_or(1) as usize),
        (None, _) => origin,
    }
}

/// The lines of the span, with the span relative to them; `None` when there is no span or the
/// file's text was not read.
fn excerpt<'a>(
    location: &'a Location,
    sources: &'a BTreeMap<String, String>,
) -> Option<Snippet<'a, annotate_snippets::Annotation<'a>>> {
    let span = location.span?;
    let source = sources.get(&location.file)?;
    let (lines, first_line, range) = lines_around(source, span);
    Some(
        Snippet::source(lines)
            .line_start(first_line)
            .path(location.file.as_str())
            .fold(true)
            .annotation(AnnotationKind::Primary.span(range)),
    )
}

/// The whole lines covering `span`, the 1-based number of the first, and the span within them
/// (an empty span is widened to the word or character it points at, so the caret has
/// something to stand under).
fn lines_around(source: &str, span: Span) -> (&str, usize, Range<usize>) {
    let clamp = |offset: u32| {
        let mut offset = (offset as usize).min(source.len());
        while !source.is_char_boundary(offset) {
            offset -= 1;
        }
        offset
    };
    let start = clamp(span.start);
    let end = clamp(span.end).max(start);
    let begin = source[..start].rfind('\n').map_or(0, |i| i + 1);
    let finish = source[end..].find('\n').map_or(source.len(), |i| end + i);
    let lines = &source[begin..finish];
    let mut range = start - begin..end - begin;
    if range.is_empty() {
        range.end = range.start + point_width(&lines[range.start..]);
    }
    let (first_line, _) = line_column(source, start as u32);
    (lines, first_line as usize, range)
}

/// How much of `rest` an empty span points at: the identifier starting there, else one
/// character (nothing at the end of a line).
fn point_width(rest: &str) -> usize {
    let is_word = |ch: char| ch.is_alphanumeric() || ch == '_' || ch == '$';
    let word: usize = rest
        .chars()
        .take_while(|&ch| is_word(ch))
        .map(char::len_utf8)
        .sum();
    if word > 0 {
        word
    } else {
        rest.chars()
            .next()
            .filter(|&ch| ch != '\n')
            .map_or(0, char::len_utf8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::Code;

    fn sources(file: &str, text: &str) -> BTreeMap<String, String> {
        BTreeMap::from([(file.to_owned(), text.to_owned())])
    }

    #[test]
    fn colour_follows_the_terminal_axis_rules() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(key, _)| *key == name)
                    .map(|(_, value)| std::ffi::OsString::from(value))
            }
        };
        use ColorChoice::{Always, Never};
        type Env = &'static [(&'static str, &'static str)];
        let table: &[(Env, bool, ColorChoice)] = &[
            (&[], true, Always),
            (&[], false, Never),
            (&[("NO_COLOR", "1")], true, Never),
            (&[("FORCE_COLOR", "1")], false, Always),
            (
                &[("FORCE_COLOR", "0"), ("CLICOLOR_FORCE", "1")],
                true,
                Never,
            ),
            (&[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")], false, Always),
            (&[("CLICOLOR", "0")], true, Never),
            (&[("TERM", "dumb")], true, Never),
        ];
        for (pairs, is_terminal, expected) in table {
            let env = env(pairs);
            assert_eq!(
                ColorChoice::for_stream(&env, *is_terminal),
                *expected,
                "{pairs:?}, terminal: {is_terminal}"
            );
        }
    }

    #[test]
    fn quotes_the_line_with_a_caret_help_and_summary() {
        let text = "import x from 'y';\nexport const config = { resourceUri: 'ui://a' };\n";
        let start = text.find("'ui://a'").expect("present") as u32;
        let diagnostic = Diagnostic::new(
            Code::AB4829,
            "two Apps share `ui://a`",
            "give each App its own URI",
        )
        .at(Location::span(
            "src/mcp/s/apps/b.tsx",
            text,
            Span::new(start, start + 8),
        ))
        .with_note("the host fetches an App by its URI");
        let out = render_pretty(
            &[diagnostic],
            &sources("src/mcp/s/apps/b.tsx", text),
            ColorChoice::Never,
        );
        insta::assert_snapshot!(out, @r"
        error[AB4829]: two Apps share `ui://a`
         --> src/mcp/s/apps/b.tsx:2:38
          |
        2 | export const config = { resourceUri: 'ui://a' };
          |                                      ^^^^^^^^
          |
          = help: give each App its own URI
          = note: the host fetches an App by its URI

        Found 1 error, 0 warnings, 0 infos.
        ");
    }

    #[test]
    fn without_source_shows_the_position_only() {
        let location = Location {
            line: Some(3),
            column: Some(2),
            ..Location::file("src/x.ts")
        };
        let diagnostic = Diagnostic::new(
            Code::AB5302,
            "`src/x.ts` is not valid UTF-8 at 3:2",
            "save it as UTF-8",
        )
        .at(location);
        let out = render_pretty(&[diagnostic], &BTreeMap::new(), ColorChoice::Never);
        assert!(out.contains("--> src/x.ts:3:2"), "{out}");
        assert!(out.contains("help: save it as UTF-8"), "{out}");
    }

    #[test]
    fn empty_spans_and_no_diagnostics() {
        let diagnostic = Diagnostic::new(Code::AB4000, "no name", "add one").at(Location::span(
            "a.ts",
            "ab",
            Span::new(2, 2),
        ));
        let out = render_pretty(&[diagnostic], &sources("a.ts", "ab"), ColorChoice::Never);
        assert!(out.contains("a.ts:1:3"), "{out}");
        assert_eq!(
            render_pretty(&[], &BTreeMap::new(), ColorChoice::Never),
            "No problems found.\n"
        );
    }
}
