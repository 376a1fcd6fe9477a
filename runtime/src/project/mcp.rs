//! The MCP projection: a render's events to `notifications/progress` params while it runs and
//! one final `CallToolResult`, `ReadResourceResult` or `GetPromptResult`.
//!
//! Entry: [`McpProgress::on_event`] for each event as it arrives (the server streams), then
//! [`call_tool_result`] on the final document; [`project_mcp`] does both over a finished render.
//! A resource read and a prompt get take the same content blocks ([`read_resource_result`],
//! [`get_prompt_result`]); a document that failed or represents an error is their caller's
//! JSON-RPC error, since neither result has an `isError`.
//! Invariants: progress goes out only for a request with a progressToken, only with a strictly
//! larger `progress` than the last one sent, never with content, never after `complete`; the
//! result holds every content node in document order or is a [`McpProjectionError`] — rich
//! content a client cannot take is never dropped silently.

use serde_json::{Map, Number, Value, json};

use crate::document::{Document, Node, RenderEvent, RenderEventKind, Status};

/// What the requesting client and the route allow.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct McpOptions {
    /// The request's `_meta.progressToken` (a string or a number), if it sent one.
    pub progress_token: Option<Value>,
    /// Whether the client takes `image` content blocks (the host matrix says, per client).
    pub accepts_image: bool,
    /// Whether the client takes `audio` content blocks.
    pub accepts_audio: bool,
    /// Whether the route declared a text fallback for rich content the client cannot take.
    pub rich_fallback: bool,
    /// Whether a result's text is its value as JSON, for a route whose model reads the
    /// structured value on a client that hands its model only content.
    pub value_as_text: bool,
    /// Whether a result's value travels in `_meta` ([`STRUCTURED_META_KEY`]) instead of
    /// `structuredContent`, for a route whose model reads content on a client that would hand its
    /// model only the structured value.
    pub value_in_meta: bool,
}

/// The `_meta` member that carries a result's value when `structuredContent` cannot (see
/// [`McpOptions::value_in_meta`]); `agent-bundle/app`'s typed calls read it there.
pub const STRUCTURED_META_KEY: &str = "abgen.dev/structuredContent";

/// Why a document cannot be answered to this client.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum McpProjectionError {
    #[error(
        "the document holds {kind} content ({mime_type}), which this client does not accept, and the route declares no fallback"
    )]
    RichContent {
        kind: &'static str,
        mime_type: String,
    },
    #[error("a tool result cannot hold {0}; it belongs in a hook document")]
    HookOnly(&'static str),
    /// The route failed, or rendered an `Agent.Error`: `[code] message`.
    #[error("[{code}] {message}")]
    Failed { code: String, message: String },
}

/// A finished render, projected.
#[derive(Debug, Clone, PartialEq)]
pub struct McpProjection {
    /// The `params` of each `notifications/progress`, in order.
    pub progress: Vec<Value>,
    /// The `CallToolResult`, or why there is none.
    pub result: Result<Value, McpProjectionError>,
}

/// Projects a whole render: progress for every event, the result of its `complete` document (a
/// render without one is a failed result).
pub fn project_mcp(events: &[RenderEvent], options: &McpOptions) -> McpProjection {
    let mut progress = McpProgress::new(options.progress_token.clone());
    let notifications = events
        .iter()
        .flat_map(|event| progress.on_event(event))
        .collect();
    let complete = events.iter().find_map(|event| match &event.kind {
        RenderEventKind::Complete { document } => Some(document),
        _ => None,
    });
    let result = match complete {
        Some(document) => call_tool_result(document, options),
        None => Ok(error_result("incomplete", "the render never completed")),
    };
    McpProjection {
        progress: notifications,
        result,
    }
}

/// The progress notifications of one request.
#[derive(Debug, Clone)]
pub struct McpProgress {
    token: Option<Value>,
    last: Option<f64>,
    /// The message of the last notification sent.
    last_message: Option<String>,
    complete: bool,
}

impl McpProgress {
    /// `token`: the request's progressToken; without one nothing is ever sent.
    pub fn new(token: Option<Value>) -> Self {
        Self {
            token,
            last: None,
            last_message: None,
            complete: false,
        }
    }

    /// The `notifications/progress` params this event adds: a progress report, or the progress
    /// fallbacks a snapshot shows while its boundaries are pending.
    pub fn on_event(&mut self, event: &RenderEvent) -> Vec<Value> {
        if self.token.is_none() || self.complete {
            return Vec::new();
        }
        let mut reports = Vec::new();
        match &event.kind {
            RenderEventKind::Progress {
                completed,
                total,
                message,
            } => reports.push((Some(completed), total, message)),
            RenderEventKind::Shell { document } | RenderEventKind::Replace { document, .. } => {
                collect_progress(&document.root, &mut reports);
            }
            // A log record becomes `notifications/message`, not progress (`mcp/server.rs`).
            RenderEventKind::Error { .. } | RenderEventKind::Log { .. } => {}
            RenderEventKind::Complete { .. } => self.complete = true,
        }
        reports
            .into_iter()
            .filter_map(|(completed, total, message)| self.params(completed, total, message))
            .collect()
    }

    fn params(
        &mut self,
        completed: Option<&Number>,
        total: &Option<Number>,
        message: &Option<String>,
    ) -> Option<Value> {
        let progress = match completed {
            Some(completed) => {
                let value = completed.as_f64().filter(|value| value.is_finite())?;
                if self.last.is_some_and(|last| value <= last) {
                    return None;
                }
                self.last = Some(value);
                completed.clone()
            }
            // A progress with only a message (`<Agent.Progress message="…" />`, a Suspense
            // fallback seen again in every snapshot while it is pending) is sent once per
            // message. MCP's progress must increase, so it moves the counter on by one.
            None => {
                if message.is_none() || *message == self.last_message {
                    return None;
                }
                let value = self.last.map_or(1.0, |last| last.floor() + 1.0);
                self.last = Some(value);
                // A whole number (floor + 1), written as one.
                Number::from(value as i64)
            }
        };
        self.last_message.clone_from(message);
        let mut params = Map::new();
        params.insert("progressToken".into(), self.token.clone()?);
        params.insert("progress".into(), Value::Number(progress));
        if let Some(total) = total {
            params.insert("total".into(), Value::Number(total.clone()));
        }
        if let Some(message) = message {
            params.insert("message".into(), message.clone().into());
        }
        Some(Value::Object(params))
    }
}

/// One progress to report: `completed` is `None` for a progress node that only has a message.
type Report<'d> = (Option<&'d Number>, &'d Option<Number>, &'d Option<String>);

fn collect_progress<'d>(node: &'d Node, reports: &mut Vec<Report<'d>>) {
    match node {
        Node::Progress {
            completed,
            total,
            message,
        } => reports.push((completed.as_ref(), total, message)),
        Node::Result { children } | Node::Boundary { children, .. } => {
            for child in children {
                collect_progress(child, reports);
            }
        }
        _ => {}
    }
}

/// The `CallToolResult` of a final document.
pub fn call_tool_result(
    document: &Document,
    options: &McpOptions,
) -> Result<Value, McpProjectionError> {
    if document.status == Status::Failed {
        let mut result = match &document.root {
            Node::Error { code, message } => error_result(code, message),
            _ => error_result("failed", "the render failed"),
        };
        insert_meta(&mut result, document);
        return Ok(result);
    }
    let mut blocks = Blocks::default();
    blocks.node(&document.root, options)?;
    let mut content = blocks.finish();
    if let (true, Some(value)) = (options.value_as_text, &document.value) {
        content.retain(|block| block["type"] != "text");
        content.insert(0, text_block(value.to_string()));
    }
    let mut result = Map::new();
    if let Some(value) = &document.value {
        if value.is_object() && !options.value_in_meta {
            result.insert("structuredContent".into(), value.clone());
        }
        // A client that reads only `content` still gets the value.
        if content.is_empty() {
            content.push(text_block(value.to_string()));
        }
    }
    result.insert("content".into(), Value::Array(content));
    if document.status == Status::RepresentedError {
        result.insert("isError".into(), true.into());
    }
    let mut result = Value::Object(result);
    insert_meta(&mut result, document);
    if let (true, Some(value)) = (options.value_in_meta, &document.value)
        && value.is_object()
    {
        let meta = result
            .as_object_mut()
            .expect("a result is an object")
            .entry("_meta")
            .or_insert_with(|| json!({}));
        if let Some(meta) = meta.as_object_mut() {
            meta.insert(STRUCTURED_META_KEY.into(), value.clone());
        }
    }
    Ok(result)
}

/// The content blocks of a document that succeeded, in document order (the value's JSON text when
/// nothing else is there); the failure of one that did not.
fn success_blocks(
    document: &Document,
    options: &McpOptions,
) -> Result<Vec<Value>, McpProjectionError> {
    if document.status != Status::Success {
        let (code, message) = match first_error(&document.root) {
            Some((code, message)) => (code.to_owned(), message.to_owned()),
            None => ("failed".to_owned(), "the render failed".to_owned()),
        };
        return Err(McpProjectionError::Failed { code, message });
    }
    let mut blocks = Blocks::default();
    blocks.node(&document.root, options)?;
    let mut content = blocks.finish();
    if let (true, Some(value)) = (content.is_empty(), &document.value) {
        content.push(text_block(value.to_string()));
    }
    Ok(content)
}

fn first_error(node: &Node) -> Option<(&str, &str)> {
    match node {
        Node::Error { code, message } => Some((code, message)),
        Node::Result { children } | Node::Boundary { children, .. } => {
            children.iter().find_map(first_error)
        }
        _ => None,
    }
}

/// The `ReadResourceResult` of a resource route's final document: its text runs as one text
/// content of `uri` (typed `mime_type`), rich blocks as blobs, embedded resources as they are.
pub fn read_resource_result(
    document: &Document,
    uri: &str,
    mime_type: Option<&str>,
    options: &McpOptions,
) -> Result<Value, McpProjectionError> {
    let contents: Vec<Value> = success_blocks(document, options)?
        .into_iter()
        .map(|block| match block["type"].as_str() {
            Some("resource") => block["resource"].clone(),
            Some("image" | "audio") => {
                json!({"uri": uri, "mimeType": block["mimeType"], "blob": block["data"]})
            }
            Some("resource_link") => {
                json!({"uri": uri, "mimeType": "text/uri-list", "text": block["uri"]})
            }
            _ => {
                let mut content = json!({"uri": uri, "text": block["text"]});
                if let Some(mime_type) = mime_type {
                    content["mimeType"] = mime_type.into();
                }
                content
            }
        })
        .collect();
    let mut result = json!({"contents": contents});
    insert_meta(&mut result, document);
    Ok(result)
}

/// The `GetPromptResult` of a prompt route's final document: one user message per content block.
pub fn get_prompt_result(
    document: &Document,
    description: Option<&str>,
    options: &McpOptions,
) -> Result<Value, McpProjectionError> {
    let messages: Vec<Value> = success_blocks(document, options)?
        .into_iter()
        .map(|content| json!({"role": "user", "content": content}))
        .collect();
    let mut result = json!({"messages": messages});
    if let Some(description) = description {
        result["description"] = description.into();
    }
    insert_meta(&mut result, document);
    Ok(result)
}

fn error_result(code: &str, message: &str) -> Value {
    json!({"content": [text_block(format!("[{code}] {message}"))], "isError": true})
}

fn insert_meta(result: &mut Value, document: &Document) {
    if let (Some(metadata), Some(result)) = (&document.metadata, result.as_object_mut()) {
        result.insert("_meta".into(), Value::Object(metadata.clone()));
    }
}

fn text_block(text: String) -> Value {
    json!({"type": "text", "text": text})
}

/// Content blocks in document order; adjacent markdown and text run into one block.
#[derive(Default)]
struct Blocks {
    blocks: Vec<Value>,
    /// Markdown or text waiting for its neighbours.
    run: Option<String>,
}

impl Blocks {
    fn node(&mut self, node: &Node, options: &McpOptions) -> Result<(), McpProjectionError> {
        let block = match node {
            Node::Result { children } | Node::Boundary { children, .. } => {
                return children
                    .iter()
                    .try_for_each(|child| self.node(child, options));
            }
            Node::Markdown { text } | Node::Text { text } => {
                let run = self.run.get_or_insert_with(String::new);
                if !run.is_empty() {
                    run.truncate(run.trim_end_matches('\n').len());
                    run.push_str("\n\n");
                }
                run.push_str(text);
                return Ok(());
            }
            // Progress is what notifications are for; the result holds only the outcome.
            Node::Progress { .. } => return Ok(()),
            Node::Json { value } => text_block(value.to_string()),
            Node::Context { text } => text_block(text.clone()),
            Node::Notice { text } => {
                json!({"type": "text", "text": text, "annotations": {"audience": ["user"]}})
            }
            Node::Error { code, message } => text_block(format!("[{code}] {message}")),
            Node::Image { data, mime_type } => {
                rich("image", data, mime_type, options.accepts_image, options)?
            }
            Node::Audio { data, mime_type } => {
                rich("audio", data, mime_type, options.accepts_audio, options)?
            }
            Node::Resource {
                uri,
                name,
                mime_type,
                text,
            } => resource(uri, name.as_deref(), mime_type.as_deref(), text.as_deref()),
            Node::Deny { .. } => return Err(McpProjectionError::HookOnly("a deny node")),
        };
        self.flush();
        self.blocks.push(block);
        Ok(())
    }

    fn flush(&mut self) {
        if let Some(run) = self.run.take() {
            self.blocks.push(text_block(run));
        }
    }

    fn finish(mut self) -> Vec<Value> {
        self.flush();
        self.blocks
    }
}

fn rich(
    kind: &'static str,
    data: &str,
    mime_type: &str,
    accepted: bool,
    options: &McpOptions,
) -> Result<Value, McpProjectionError> {
    if accepted {
        Ok(json!({"type": kind, "data": data, "mimeType": mime_type}))
    } else if options.rich_fallback {
        Ok(text_block(format!(
            "[{kind} ({mime_type}) not shown: this client does not display {kind}]"
        )))
    } else {
        Err(McpProjectionError::RichContent {
            kind,
            mime_type: mime_type.to_owned(),
        })
    }
}

/// Embedded when the document carries the text, else a link (named by its URI when the
/// document gives no name: MCP requires one).
fn resource(uri: &str, name: Option<&str>, mime_type: Option<&str>, text: Option<&str>) -> Value {
    let mut resource = Map::new();
    resource.insert("uri".into(), uri.into());
    if let Some(mime_type) = mime_type {
        resource.insert("mimeType".into(), mime_type.into());
    }
    match text {
        Some(text) => {
            resource.insert("text".into(), text.into());
            json!({"type": "resource", "resource": resource})
        }
        None => {
            let mut link = Map::new();
            link.insert("type".into(), "resource_link".into());
            link.insert("name".into(), name.unwrap_or(uri).into());
            link.extend(resource);
            Value::Object(link)
        }
    }
}
