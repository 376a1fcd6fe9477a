//! Diagnostics are data: one serializable [`Diagnostic`] type used by every stage, rendered
//! separately by `render` (human with source excerpts, or JSON). User errors never abort a
//! stage: a stage returns its output plus diagnostics.

mod codes;
pub mod render;

pub use codes::Code;
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Info,
}

/// A byte range in one source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub const fn new(start: u32, end: u32) -> Self {
        Self { start, end }
    }
}

/// Where a diagnostic points: a project-relative file (always `/`-separated), and optionally a
/// span inside it with its 1-based line and column (columns count Unicode scalar values).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Location {
    pub file: String,
    pub span: Option<Span>,
    pub line: Option<u32>,
    pub column: Option<u32>,
}

impl Location {
    /// A whole file, with no position inside it.
    pub fn file(file: impl Into<String>) -> Self {
        Self {
            file: file.into(),
            span: None,
            line: None,
            column: None,
        }
    }

    /// A span of `source`, the text of `file`; line and column are computed here.
    pub fn span(file: impl Into<String>, source: &str, span: Span) -> Self {
        let (line, column) = line_column(source, span.start);
        Self {
            file: file.into(),
            span: Some(span),
            line: Some(line),
            column: Some(column),
        }
    }
}

/// 1-based line and column of a byte offset; offsets past the end clamp to the end.
pub fn line_column(source: &str, offset: u32) -> (u32, u32) {
    let mut offset = (offset as usize).min(source.len());
    while !source.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &source[..offset];
    // memchr counts newlines a vector at a time: a route's input location is its file's
    // line count away from the start.
    let line = memchr::memchr_iter(b'\n', before.as_bytes()).count() + 1;
    let line_start = memchr::memrchr(b'\n', before.as_bytes()).map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (line as u32, column as u32)
}

/// One finding about the user's project.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Diagnostic {
    pub code: Code,
    pub severity: Severity,
    /// What is wrong, in one line; names in backticks.
    pub message: String,
    pub location: Option<Location>,
    /// What to do about it, in one line.
    pub recovery: String,
    /// Why it matters, when that is not obvious from the message.
    pub note: Option<String>,
}

impl Diagnostic {
    /// A diagnostic with the code's default severity.
    pub fn new(code: Code, message: impl Into<String>, recovery: impl Into<String>) -> Self {
        Self {
            code,
            severity: code.default_severity(),
            message: message.into(),
            location: None,
            recovery: recovery.into(),
            note: None,
        }
    }

    #[must_use]
    pub fn at(mut self, location: Location) -> Self {
        self.location = Some(location);
        self
    }

    #[must_use]
    pub fn with_severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }

    #[must_use]
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.note = Some(note.into());
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// Sorts diagnostics into their reported order: by file, position, then code.
pub fn sort(diagnostics: &mut [Diagnostic]) {
    diagnostics.sort_by(|a, b| {
        let key = |d: &Diagnostic| {
            let (file, start) = d.location.as_ref().map_or(("", 0), |l| {
                (l.file.as_str(), l.span.map_or(0, |s| s.start))
            });
            (file.to_owned(), start, d.code, d.message.clone())
        };
        key(a).cmp(&key(b))
    });
}
