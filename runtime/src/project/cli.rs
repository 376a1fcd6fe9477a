//! The CLI projection: markdown (stable content), json (the final value), ndjson (every event),
//! and tty (a live progress line, then the final document).
//!
//! Entry: [`project_cli`], and [`TtyProjector`] for a terminal. Invariant: markdown and json read
//! only the `complete` document, so their output never shows a fallback or a half-finished
//! boundary; ndjson shows everything; tty draws the one progress line in place while the render
//! runs (redrawn only when its text changes) and erases it before the final document.

use std::fmt::Write as _;

use crate::document::{Document, Node, RenderEvent, RenderEventKind, Status};

/// The output formats of the CLI (`--format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CliFormat {
    Markdown,
    Json,
    Ndjson,
}

/// What the CLI prints and how it exits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CliOutput {
    pub stdout: String,
    /// 0 success, 1 represented error, 2 failed (or no `complete` at all).
    pub exit_code: i32,
}

/// Projects the events of one render.
pub fn project_cli(events: &[RenderEvent], format: CliFormat) -> CliOutput {
    let document = events.iter().rev().find_map(|event| match &event.kind {
        RenderEventKind::Complete { document } => Some(document),
        _ => None,
    });
    let exit_code = match document.map(|document| document.status) {
        Some(Status::Success) => 0,
        Some(Status::RepresentedError) => 1,
        Some(Status::Failed) | None => 2,
    };
    let stdout = match format {
        CliFormat::Ndjson => events.iter().map(|event| json_line(event) + "\n").collect(),
        CliFormat::Json => match document {
            Some(document) if document.status == Status::Failed => {
                json_line(&failure_value(document)) + "\n"
            }
            Some(document) => match (&document.value, document.status) {
                (Some(value), _) => json_line(value) + "\n",
                // A represented error without a value: the error is the final value.
                (None, Status::RepresentedError) => match first_error(&document.root) {
                    Some(error) => json_line(&error) + "\n",
                    None => "null\n".to_owned(),
                },
                (None, _) => "null\n".to_owned(),
            },
            None => {
                json_line(
                    &serde_json::json!({"error": {"code": "incomplete", "message": "the render never completed"}}),
                ) + "\n"
            }
        },
        CliFormat::Markdown => match document {
            Some(document) => markdown(&document.root),
            None => "**Error** (`incomplete`): the render never completed\n".to_owned(),
        },
    };
    CliOutput { stdout, exit_code }
}

fn failure_value(document: &Document) -> serde_json::Value {
    match &document.root {
        Node::Error { code, message } => {
            serde_json::json!({"error": {"code": code, "message": message}})
        }
        _ => serde_json::json!({"error": {"code": "failed", "message": "the render failed"}}),
    }
}

/// `{"error": {code, message}}` of the first represented error, depth first.
fn first_error(node: &Node) -> Option<serde_json::Value> {
    match node {
        Node::Error { code, message } => {
            Some(serde_json::json!({"error": {"code": code, "message": message}}))
        }
        Node::Result { children } | Node::Boundary { children, .. } => {
            children.iter().find_map(first_error)
        }
        _ => None,
    }
}

fn json_line(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value).unwrap_or_else(|error| format!("{{\"error\":\"{error}\"}}"))
}

/// The stable content of a document as Markdown: one block per node, blank lines between.
fn markdown(root: &Node) -> String {
    let mut blocks = Vec::new();
    collect_blocks(root, &mut blocks);
    let mut text = blocks.join("\n\n");
    text.push('\n');
    text
}

fn collect_blocks(node: &Node, blocks: &mut Vec<String>) {
    let block = match node {
        Node::Result { children } | Node::Boundary { children, .. } => {
            return children
                .iter()
                .for_each(|child| collect_blocks(child, blocks));
        }
        Node::Markdown { text } | Node::Text { text } | Node::Context { text } => {
            text.trim_end().to_owned()
        }
        Node::Notice { text } => format!("> {}", text.trim_end().replace('\n', "\n> ")),
        Node::Json { value } => {
            let pretty = serde_json::to_string_pretty(value).unwrap_or_default();
            format!("```json\n{pretty}\n```")
        }
        Node::Progress { .. } => return,
        Node::Image { mime_type, .. } => format!("[image: {mime_type}]"),
        Node::Audio { mime_type, .. } => format!("[audio: {mime_type}]"),
        Node::Resource {
            uri, name, text, ..
        } => {
            let label = name.as_deref().unwrap_or(uri);
            match text {
                Some(text) => format!("[{label}]({uri})\n\n{}", text.trim_end()),
                None => format!("[{label}]({uri})"),
            }
        }
        Node::Deny { reason } => format!("**Denied:** {reason}"),
        Node::Error { code, message } => {
            let mut block = String::new();
            let _ = write!(block, "**Error** (`{code}`): {message}");
            block
        }
    };
    if !block.is_empty() {
        blocks.push(block);
    }
}

/// The live projection for a terminal: feed it each event as it arrives and write what it
/// returns; the progress line is the newer of the streamed snapshot's `Agent.Progress` fallback
/// and the latest `progress.report()`.
#[derive(Debug, Default)]
pub struct TtyProjector {
    /// The line on screen now.
    drawn: Option<String>,
    /// The fallback of the latest snapshot.
    fallback: Option<String>,
    /// The latest progress report.
    reported: Option<String>,
    /// Whether the report came after the snapshot's fallback: the newer of the two is shown.
    report_is_newer: bool,
    /// The terminal's width: the line is cut to fit, so it never wraps and can be redrawn.
    columns: Option<u16>,
}

/// Erases the current line and returns the cursor to its start.
const ERASE_LINE: &str = "\r\x1b[2K";

impl TtyProjector {
    pub fn new(columns: Option<u16>) -> TtyProjector {
        TtyProjector {
            columns,
            ..TtyProjector::default()
        }
    }

    /// What to write for `event`: a redrawn progress line, the final document, or nothing.
    pub fn event(&mut self, event: &RenderEvent) -> String {
        match &event.kind {
            RenderEventKind::Shell { document } | RenderEventKind::Replace { document, .. } => {
                let fallback = first_progress(&document.root);
                if fallback == self.fallback {
                    // The same placeholder re-streamed: the line stays as it is.
                    return String::new();
                }
                self.fallback = fallback;
                self.report_is_newer = false;
            }
            RenderEventKind::Progress {
                completed,
                total,
                message,
            } => {
                self.reported = Some(progress_text(
                    Some(completed),
                    total.as_ref(),
                    message.as_deref(),
                ));
                self.report_is_newer = true;
            }
            RenderEventKind::Error { .. } => {}
            // A log record goes to stderr (`plugin_cli`), never into the progress line.
            RenderEventKind::Log { .. } => return String::new(),
            RenderEventKind::Complete { .. } => {
                let mut text = self.redraw(None);
                text.push_str(
                    &project_cli(std::slice::from_ref(event), CliFormat::Markdown).stdout,
                );
                return text;
            }
        }
        let line = if self.report_is_newer {
            self.reported.clone().or_else(|| self.fallback.clone())
        } else {
            self.fallback.clone().or_else(|| self.reported.clone())
        };
        self.redraw(line)
    }

    /// Erases the progress line, if one is drawn.
    pub fn clear(&mut self) -> String {
        self.redraw(None)
    }

    fn redraw(&mut self, line: Option<String>) -> String {
        let line = line.map(|line| self.fit(line));
        if line == self.drawn {
            return String::new();
        }
        let text = match &line {
            Some(line) => format!("{ERASE_LINE}{line}"),
            None => ERASE_LINE.to_owned(),
        };
        self.drawn = line;
        text
    }

    /// Cut to one column less than the terminal, so the cursor never wraps.
    fn fit(&self, line: String) -> String {
        match self.columns {
            Some(columns) if line.chars().count() >= usize::from(columns) => {
                let keep = usize::from(columns).saturating_sub(2);
                let mut cut: String = line.chars().take(keep).collect();
                cut.push('…');
                cut
            }
            _ => line,
        }
    }
}

/// The text of the first progress node, depth first.
fn first_progress(node: &Node) -> Option<String> {
    match node {
        Node::Progress {
            completed,
            total,
            message,
        } => Some(progress_text(
            completed.as_ref(),
            total.as_ref(),
            message.as_deref(),
        )),
        Node::Result { children } | Node::Boundary { children, .. } => {
            children.iter().find_map(first_progress)
        }
        _ => None,
    }
}

fn progress_text(
    completed: Option<&serde_json::Number>,
    total: Option<&serde_json::Number>,
    message: Option<&str>,
) -> String {
    let count = match (completed, total) {
        (Some(completed), Some(total)) => Some(format!("{completed}/{total}")),
        (Some(completed), None) => Some(completed.to_string()),
        _ => None,
    };
    match (message, count) {
        (Some(message), Some(count)) => format!("… {message} ({count})"),
        (Some(message), None) => format!("… {message}"),
        (None, Some(count)) => format!("… {count}"),
        (None, None) => "…".to_owned(),
    }
}
