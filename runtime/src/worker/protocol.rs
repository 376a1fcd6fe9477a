//! The worker protocol's messages (schemas/worker-protocol.schema.json), as serde types.
//!
//! Host → worker: `render`, `abort`, `schemas`. Worker → host: `hello` (first), `flight`
//! (+ payload), `progress`, `log`, `end`, `error`, `schemas`. Invariant: every message after `hello`
//! names its request `id`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

use crate::document::{DocumentError, LogLevel};

/// The protocol version this runtime speaks.
pub const WORKER_PROTOCOL: u32 = 7;

/// What a worker must say in its hello for the host to accept its streams.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkerIdentity {
    pub protocol: u32,
    /// The exact React version (the artifact pins it).
    pub react: String,
    /// The artifact digest (the epoch).
    pub artifact: String,
}

/// The kind of route a render is for (and, as [`RenderRequest::invocation`], how it was invoked).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RouteKind {
    Tool,
    Resource,
    Prompt,
    Event,
    /// A rendered `src/cli/**` command.
    Cli,
    /// A rendered `src/scripts/*.tsx` script.
    Script,
}

/// Bounds the worker enforces by aborting the render.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RenderLimits {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_flight_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_elapsed_ms: Option<u64>,
}

/// One render request. For an event route, `input` is `{canonical, native, provenance}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RenderRequest {
    pub id: u64,
    pub route: String,
    pub kind: RouteKind,
    /// How the render was invoked when that is not the route's own kind (a tool run from the
    /// plugin's command line is [`RouteKind::Cli`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invocation: Option<RouteKind>,
    pub input: Value,
    #[serde(default)]
    pub context: Map<String, Value>,
    /// Provider values injected by a test: `provider(key)` resolves to the value as given.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub providers: Map<String, Value>,
    #[serde(default)]
    pub limits: RenderLimits,
}

/// A request for the JSON Schemas of a route whose zod schemas only exist at run time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SchemasRequest {
    pub id: u64,
    pub route: String,
    pub kind: RouteKind,
}

/// A route's JSON Schemas as zod's `toJSONSchema` prints them (2020-12): the input as accepted,
/// the result as returned; `None` for a side the route does not declare.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ComputedSchemas {
    pub input: Option<Value>,
    pub result: Option<Value>,
}

/// Messages from the host to the worker.
#[expect(
    clippy::large_enum_variant,
    reason = "a message is built, serialized into a frame and dropped; none is kept in a collection"
)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum HostMessage {
    Render(RenderRequest),
    Abort { id: u64, reason: String },
    Schemas(SchemasRequest),
}

/// Messages from the worker to the host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum WorkerMessage {
    Hello(WorkerIdentity),
    /// The frame's payload holds the Flight bytes.
    Flight {
        id: u64,
    },
    Progress {
        id: u64,
        completed: Number,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        total: Option<Number>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    },
    /// A log record of the route (`agent().log.<level>(message, data?)`).
    Log {
        id: u64,
        level: LogLevel,
        message: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        data: Option<Value>,
    },
    End {
        id: u64,
    },
    /// The render could not start or broke outside React (`invalid-input`, `unknown-route`, …).
    Error {
        id: u64,
        error: DocumentError,
    },
    /// The answer to a [`SchemasRequest`].
    Schemas {
        id: u64,
        #[serde(flatten)]
        schemas: ComputedSchemas,
    },
}
