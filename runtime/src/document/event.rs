//! Render events: what a render produces, in order, before and including its final document.
//!
//! Serialized flat as `{"type": …, "sequence": n, …}` (ARCHITECTURE.md §7). Invariant: sequence
//! numbers start at 0 and increase by one; `complete` is the last event of a render.

use serde::{Deserialize, Serialize};
use serde_json::{Number, Value};

use super::node::{Document, DocumentError};

/// One render event with its sequence number.
///
/// Serialized by hand so the keys come in the documented order: `type`, `sequence`, then the rest.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct RenderEvent {
    pub sequence: u64,
    #[serde(flatten)]
    pub kind: RenderEventKind,
}

impl Serialize for RenderEvent {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error as _, SerializeMap as _};
        let Value::Object(fields) = serde_json::to_value(&self.kind).map_err(S::Error::custom)?
        else {
            return Err(S::Error::custom(
                "a render event kind serializes to an object",
            ));
        };
        let mut map = serializer.serialize_map(Some(fields.len() + 1))?;
        if let Some(kind) = fields.get("type") {
            map.serialize_entry("type", kind)?;
        }
        map.serialize_entry("sequence", &self.sequence)?;
        for (key, value) in fields.iter().filter(|(key, _)| key.as_str() != "type") {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

/// What happened, tagged by `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum RenderEventKind {
    /// The first presentable snapshot: pending boundaries show their fallbacks.
    Shell { document: Document },
    /// A progress report from the route (`agent().progress.report()`).
    Progress {
        completed: Number,
        #[serde(skip_serializing_if = "Option::is_none")]
        total: Option<Number>,
        #[serde(skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    },
    /// A log record of the route (`agent().log.<level>(message, data?)`): never document
    /// content; each surface says where it goes (MCP `notifications/message`, stderr).
    Log {
        level: LogLevel,
        message: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        data: Option<Value>,
    },
    /// A boundary's content arrived; `document` is the new snapshot.
    Replace {
        #[serde(rename = "boundaryId")]
        boundary_id: String,
        document: Document,
    },
    /// A boundary failed (`boundaryId` set) or the invocation failed (no `boundaryId`).
    Error {
        #[serde(rename = "boundaryId", skip_serializing_if = "Option::is_none")]
        boundary_id: Option<String>,
        error: DocumentError,
    },
    /// The final document; nothing follows it.
    Complete { document: Document },
}

/// The levels a route logs at (MCP's, lowest first; critical, alert and emergency are left to
/// the server itself).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LogLevel {
    Debug,
    Info,
    Notice,
    Warning,
    Error,
}

impl LogLevel {
    /// The level's wire name (`debug`, …, `error`).
    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
        }
    }
}

impl RenderEvent {
    /// A log record as one stderr line (`warning: message {"data":…}`), the form hooks and the
    /// plugin's command line print; `None` for every other event.
    pub fn log_line(&self) -> Option<String> {
        let RenderEventKind::Log {
            level,
            message,
            data,
        } = &self.kind
        else {
            return None;
        };
        Some(match data {
            Some(data) => format!("{}: {message} {data}", level.as_str()),
            None => format!("{}: {message}", level.as_str()),
        })
    }

    /// Whether this is the last event of a render.
    pub fn is_complete(&self) -> bool {
        matches!(self.kind, RenderEventKind::Complete { .. })
    }
}
