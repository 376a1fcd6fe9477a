//! The JSON rendering: `{"diagnostics":[{code, severity, message, file, line, column,
//! recovery, note?}], "summary":{errors, warnings, infos}}` on one line.
//!
//! Entry call: [`render_json`]. Invariant: field names and order are a stable contract for
//! tools; positions are 1-based and `null` when a diagnostic has none.

use serde::Serialize;

use super::Summary;
use crate::diagnostics::{Code, Diagnostic, Severity};

#[derive(Serialize)]
struct Report<'a> {
    diagnostics: Vec<Entry<'a>>,
    summary: Summary,
}

/// One diagnostic as programs read it; also the `diagnostics` items of `abgen build --json`
/// (`schemas/build-report.schema.json`).
#[derive(Debug, Serialize)]
pub struct Entry<'a> {
    code: Code,
    severity: Severity,
    message: &'a str,
    file: Option<&'a str>,
    line: Option<u32>,
    column: Option<u32>,
    recovery: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<&'a str>,
}

/// Every diagnostic in its JSON shape, in order.
pub fn json_entries(diagnostics: &[Diagnostic]) -> Vec<Entry<'_>> {
    diagnostics
        .iter()
        .map(|d| {
            let location = d.location.as_ref();
            Entry {
                code: d.code,
                severity: d.severity,
                message: &d.message,
                file: location.map(|l| l.file.as_str()),
                line: location.and_then(|l| l.line),
                column: location.and_then(|l| l.column),
                recovery: &d.recovery,
                note: d.note.as_deref(),
            }
        })
        .collect()
}

/// One JSON document (with a final newline) describing `diagnostics`.
pub fn render_json(diagnostics: &[Diagnostic]) -> String {
    let report = Report {
        diagnostics: json_entries(diagnostics),
        summary: Summary::of(diagnostics),
    };
    // Serializing plain strings, numbers and options cannot fail.
    let mut out = serde_json::to_string(&report).unwrap_or_default();
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::Location;

    #[test]
    fn renders_the_documented_shape() {
        let diagnostics = [
            Diagnostic::new(Code::AB4802, "two modules", "rename one").at(Location::span(
                "src/a.ts",
                "ab\ncd",
                crate::diagnostics::Span::new(3, 4),
            )),
            Diagnostic::new(Code::AB5305, "no name", "add a config").with_note("why"),
        ];
        let value: serde_json::Value =
            serde_json::from_str(&render_json(&diagnostics)).expect("json");
        assert_eq!(
            value,
            serde_json::json!({
                "diagnostics": [
                    {"code": "AB4802", "severity": "error", "message": "two modules", "file": "src/a.ts",
                     "line": 2, "column": 1, "recovery": "rename one"},
                    {"code": "AB5305", "severity": "error", "message": "no name", "file": null,
                     "line": null, "column": null, "recovery": "add a config", "note": "why"}
                ],
                "summary": {"errors": 2, "warnings": 0, "infos": 0}
            })
        );
    }
}
