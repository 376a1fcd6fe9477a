//! Document nodes and the document envelope, with their exact JSON shape.
//!
//! `Document::new` derives the status from the tree: a document holding an error node is a
//! represented error. Invariant: a final document never holds a boundary node; snapshots (shell,
//! replace) may, with state pending, resolved or error.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

use super::children::Children;

/// The outcome of an invocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Rendered completely, with no represented error.
    Success,
    /// Completed, but the document holds an error node (a failed boundary or `<Agent.Error>`).
    RepresentedError,
    /// The invocation failed: the root is the error node saying why.
    Failed,
}

/// An error as documents and render events carry it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DocumentError {
    pub code: String,
    pub message: String,
}

impl DocumentError {
    pub fn new(code: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            code: code.into(),
            message: message.into(),
        }
    }
}

/// The state of a Suspense boundary in a snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BoundaryState {
    /// Its content has not arrived: the children are the fallback.
    Pending,
    Resolved,
    /// Its content failed: the one child is the error node.
    Error,
}

/// One node of the document tree, tagged by `kind`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Node {
    Result {
        children: Children,
    },
    Markdown {
        text: String,
    },
    Text {
        text: String,
    },
    Json {
        value: Value,
    },
    Progress {
        /// Absent when the progress only says what is happening (a Suspense fallback's message).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        completed: Option<Number>,
        #[serde(skip_serializing_if = "Option::is_none")]
        total: Option<Number>,
        #[serde(skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    },
    Image {
        /// Base64 of the bytes.
        data: String,
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    Audio {
        data: String,
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    Resource {
        uri: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        #[serde(rename = "mimeType", skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        text: Option<String>,
    },
    Context {
        text: String,
    },
    Deny {
        reason: String,
    },
    Notice {
        text: String,
    },
    Error {
        code: String,
        message: String,
    },
    Boundary {
        id: String,
        state: BoundaryState,
        children: Children,
    },
}

impl Node {
    /// An error node for `error`.
    pub fn error(error: &DocumentError) -> Self {
        Node::Error {
            code: error.code.clone(),
            message: error.message.clone(),
        }
    }

    /// Whether this node or any node below it is an error node.
    pub fn holds_error(&self) -> bool {
        match self {
            Node::Error { .. } => true,
            Node::Result { children } | Node::Boundary { children, .. } => children.holds_error(),
            _ => false,
        }
    }
}

/// The versioned, immutable result of a render (and the shape of every snapshot).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Document {
    pub version: u32,
    pub status: Status,
    pub root: Node,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
}

impl Document {
    /// The current document version.
    pub const VERSION: u32 = 1;

    /// This document with `metadata` (the merged `<Agent.Result metadata>`).
    pub fn with_metadata(mut self, metadata: Option<Map<String, Value>>) -> Self {
        self.metadata = metadata;
        self
    }

    /// A completed document; its status is `represented-error` when the tree holds an error node.
    pub fn new(root: Node, value: Option<Value>) -> Self {
        let status = if root.holds_error() {
            Status::RepresentedError
        } else {
            Status::Success
        };
        Self {
            version: Self::VERSION,
            status,
            root,
            value,
            metadata: None,
        }
    }

    /// The document of a failed invocation: its root is the error.
    pub fn failed(error: &DocumentError) -> Self {
        Self {
            version: Self::VERSION,
            status: Status::Failed,
            root: Node::error(error),
            value: None,
            metadata: None,
        }
    }
}
