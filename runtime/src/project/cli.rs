//! The CLI projection: markdown (stable content), json (the final value), ndjson (every event).
//!
//! Entry: [`project_cli`]. Invariant: markdown and json read only the `complete` document, so
//! their output never shows a fallback or a half-finished boundary; ndjson shows everything.

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
            Some(document) => {
                json_line(document.value.as_ref().unwrap_or(&serde_json::Value::Null)) + "\n"
            }
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
