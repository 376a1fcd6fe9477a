//! The serde types of the canonical event, with their exact JSON shape.
//!
//! Field names are camelCase; optional members are omitted when absent, never `null`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One hook delivery, host-neutral.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CanonicalEvent {
    /// The canonical event (`tool/after`).
    pub event: String,
    /// The host that delivered it (`claude`).
    pub host: String,
    /// Which revision of the host's hook contract the decoder implements.
    pub contract_revision: String,
    /// The same for a host's retry of the same delivery, different for any other delivery.
    pub idempotency_key: String,
    /// The host's conversation or session.
    pub session: Axis,
    /// The project directory the agent works in.
    pub workspace: Axis,
    /// The tool the event concerns (tool events only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<CanonicalTool>,
    /// The submitted prompt (prompt events only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<Prompt>,
    /// The host's documented payload fields, bounded, in the order the host sent them.
    pub native: Map<String, Value>,
}

/// An identity axis: either known (and where from) or honestly unknown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "kebab-case")]
pub enum Axis {
    Available { value: String, source: AxisSource },
    Unavailable { reason: String },
}

impl Axis {
    /// The value, when available.
    pub fn value(&self) -> Option<&str> {
        match self {
            Axis::Available { value, .. } => Some(value),
            Axis::Unavailable { .. } => None,
        }
    }
}

/// Where an available axis value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AxisSource {
    /// The host said so, in the payload or its documented environment.
    Native,
    /// Inferred from something the host said (a working directory standing in for the project).
    Derived,
}

/// The tool a tool event concerns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CanonicalTool {
    pub selector: ToolSelector,
    /// The host's own tool name (`Write`, `mcp__plugin_curator_library__search_books`).
    pub name: String,
    /// The tool's input as the host sent it, whole down to the host's depth limit.
    pub input: Value,
    /// Whether something nested deeper than the depth limit was cut out of `input`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// Whether a string of `input` held a lone UTF-16 surrogate escape, read as U+FFFD.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub lossy: bool,
}

/// The submitted prompt, whole (the payload budget bounds it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Prompt {
    pub text: String,
    /// Whether the text was cut (never by this runtime's decoders today; kept for the schema).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// Whether the text held a lone UTF-16 surrogate escape, read as U+FFFD.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub lossy: bool,
}

/// The host-neutral kind of a tool; routes select tools by it (`tools: ['file.write']`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ToolSelector {
    #[serde(rename = "shell")]
    Shell,
    #[serde(rename = "file.read")]
    FileRead,
    #[serde(rename = "file.write")]
    FileWrite,
    #[serde(rename = "mcp")]
    Mcp,
    #[serde(rename = "agent")]
    Agent,
    #[serde(rename = "other")]
    Other,
}

impl ToolSelector {
    /// The selector as routes write it.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolSelector::Shell => "shell",
            ToolSelector::FileRead => "file.read",
            ToolSelector::FileWrite => "file.write",
            ToolSelector::Mcp => "mcp",
            ToolSelector::Agent => "agent",
            ToolSelector::Other => "other",
        }
    }
}
