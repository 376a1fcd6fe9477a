//! Renderers of diagnostics, one file per output format: [`render_pretty`] for people (source
//! line, caret, help and note, then a summary line) and [`render_json`] for programs.
//!
//! Invariant: renderers only read: the diagnostics and the source texts the check already
//! read; they never touch the file system.

mod json;
mod pretty;

pub use json::{Entry as JsonEntry, json_entries, render_json};
pub use pretty::{ColorChoice, render_pretty};
use serde::Serialize;

use super::{Diagnostic, Severity};

/// How many diagnostics of each severity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub errors: usize,
    pub warnings: usize,
    pub infos: usize,
}

impl Summary {
    pub fn of(diagnostics: &[Diagnostic]) -> Summary {
        let count = |severity| {
            diagnostics
                .iter()
                .filter(|d| d.severity == severity)
                .count()
        };
        Summary {
            errors: count(Severity::Error),
            warnings: count(Severity::Warning),
            infos: count(Severity::Info),
        }
    }
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let plural =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        write!(
            f,
            "{}, {}, {}",
            plural(self.errors, "error", "errors"),
            plural(self.warnings, "warning", "warnings"),
            plural(self.infos, "info", "infos")
        )
    }
}
