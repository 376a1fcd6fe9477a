//! Locations of spans inside one source, computed from a line index built once per file.
//!
//! `Location::span` rescans the source for every call; extraction records a location for every
//! config value, so a large literal would cost quadratic time. Entry call: [`Positions::location`].
//! Invariant: the result equals `Location::span(path, source, span)` for every span.

use oxc_span::GetSpan;

use crate::diagnostics::{Location, Span};

/// A file's path and text with the byte offsets where its lines start.
pub struct Positions<'s> {
    path: &'s str,
    source: &'s str,
    line_starts: Vec<u32>,
}

impl<'s> Positions<'s> {
    pub fn new(path: &'s str, source: &'s str) -> Self {
        let newlines = memchr::memchr_iter(b'\n', source.as_bytes());
        // Counting first (a vector scan) sizes the table once instead of growing it line by line.
        let mut line_starts = Vec::with_capacity(newlines.clone().count() + 1);
        line_starts.push(0);
        line_starts.extend(newlines.map(|at| at as u32 + 1));
        Self {
            path,
            source,
            line_starts,
        }
    }

    pub fn path(&self) -> &'s str {
        self.path
    }

    pub fn source(&self) -> &'s str {
        self.source
    }

    /// The location of an AST node.
    pub fn of(&self, node: &impl GetSpan) -> Location {
        let span = node.span();
        self.location(Span::new(span.start, span.end))
    }

    pub fn location(&self, span: Span) -> Location {
        let mut offset = (span.start as usize).min(self.source.len());
        while !self.source.is_char_boundary(offset) {
            offset -= 1;
        }
        let line_index = self
            .line_starts
            .partition_point(|start| *start as usize <= offset)
            - 1;
        let line_start = self.line_starts[line_index] as usize;
        let column = self.source[line_start..offset].chars().count() + 1;
        Location {
            file: self.path.to_owned(),
            span: Some(span),
            line: Some(line_index as u32 + 1),
            column: Some(column as u32),
        }
    }
}

/// Converts an oxc span into the diagnostics span.
pub fn span_of(node: &impl GetSpan) -> Span {
    let span = node.span();
    Span::new(span.start, span.end)
}

#[cfg(test)]
mod tests {
    use super::Positions;
    use crate::diagnostics::{Location, Span};

    #[test]
    fn agrees_with_location_span_everywhere() {
        let source = "a\nbé ü\r\n\n  x = `é`;\nlast";
        let positions = Positions::new("f.ts", source);
        for start in 0..=source.len() as u32 + 2 {
            let span = Span::new(start, start);
            assert_eq!(
                positions.location(span),
                Location::span("f.ts", source, span),
                "{start}"
            );
        }
    }
}
