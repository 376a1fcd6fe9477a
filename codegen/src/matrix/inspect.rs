//! `abgen inspect --hooks`: the resolved hook table as aligned text, one line per route × host;
//! `FAILURE` is how a guard fails (`open`, `closed`) where the event can deny, `-` elsewhere.
//! Entry: [`render_hook_rows`]. The JSON form is the rows themselves ([`super::HookRow`]).

use super::resolve::HookRow;

const HEADER: [&str; 8] = [
    "ROUTE",
    "HOST",
    "NATIVE EVENT",
    "MATCHER",
    "STATE",
    "DEADLINE",
    "FAILURE",
    "REASON",
];

/// Aligned columns; `-` where a row has no value; no rows prints a sentence instead.
pub fn render_hook_rows(rows: &[HookRow]) -> String {
    if rows.is_empty() {
        return "No event routes.\n".to_owned();
    }
    let cells: Vec<[String; 8]> = rows
        .iter()
        .map(|row| {
            let or_dash = |value: &Option<String>| value.clone().unwrap_or_else(|| "-".into());
            [
                row.route.clone(),
                row.host.clone(),
                or_dash(&row.native_event),
                or_dash(&row.matcher),
                row.state.clone(),
                row.deadline_ms
                    .map_or_else(|| "-".into(), |ms| format!("{ms} ms")),
                or_dash(&row.failure),
                or_dash(&row.reason),
            ]
        })
        .collect();
    let mut widths = HEADER.map(str::len);
    for line in &cells {
        for (width, cell) in widths.iter_mut().zip(line) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let header = HEADER.map(str::to_owned);
    for line in std::iter::once(&header).chain(&cells) {
        let mut text = String::new();
        for (index, (cell, width)) in line.iter().zip(widths).enumerate() {
            if index + 1 == line.len() {
                text.push_str(cell);
            } else {
                text.push_str(&format!("{cell:<width$}  "));
            }
        }
        out.push_str(text.trim_end());
        out.push('\n');
    }
    out
}
