//! The warm protocol's messages (schemas/warm-protocol.schema.json): one request frame from the
//! client, then either the render's events (the §7 render event JSON, ending with `complete`)
//! or one refusal frame.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The protocol revision both ends must speak.
pub const WARM_PROTOCOL: u32 = 3;

/// A render request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WarmRequest {
    pub protocol: u32,
    /// The artifact digest the client was built with; a server of another digest refuses.
    pub digest: String,
    pub kind: WarmKind,
    /// The route id (`event:tool/after`).
    pub route: String,
    /// A tool route's input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<Value>,
    /// An event route's props: the canonical event, its native fields and their provenance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<Value>,
    /// How long the client waits for `complete`, from when it sent the request.
    pub deadline_ms: u64,
}

/// What kind of route a request renders.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WarmKind {
    Tool,
    Event,
}

/// A server's refusal: `{"type": "refused", "code": …, "message": …}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WarmRefusal {
    pub code: String,
    pub message: String,
}

impl WarmRefusal {
    pub fn new(code: &str, message: impl Into<String>) -> Self {
        Self {
            code: code.to_owned(),
            message: message.into(),
        }
    }

    /// The refusal as its frame.
    pub fn to_frame(&self) -> Value {
        serde_json::json!({"type": "refused", "code": self.code, "message": self.message})
    }
}
