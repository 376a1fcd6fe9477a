//! The per-host hook tables of the manifest, and [`HookView`], the part of the manifest the hook
//! client reads alone.
//!
//! `abgen-host hook --host H --event E` must answer inside a host deadline of about a second,
//! so it reads only [`HookView`] (identity, digest, `hooks`, limits, and the id and config of
//! each route a hook names, for its `tools` selectors): a canonical manifest is read only as far
//! as those routes, and serde skips every other member of any other, the route schemas
//! included, without building values for it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::model::{Application, Limits};

/// Host name (`claude`, …) → the bindings of that host, sorted by canonical event.
pub type HookTables = BTreeMap<String, Vec<HookBinding>>;

/// One native hook registration and the route it serves.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HookBinding {
    /// The host's event name (`PostToolUse`).
    pub native_event: String,
    /// The host matcher written in the host's hook document, when the binding filters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matcher: Option<String>,
    /// The route ids that answer; one event route per canonical event today.
    pub routes: Vec<String>,
    /// The canonical event (`tool/after`), as passed to `abgen-host hook --event`.
    pub event: String,
    /// The runtime's own budget: it answers (or gives up) within this many milliseconds.
    pub deadline_ms: u64,
    /// The timeout written into the host's hook document, in seconds.
    pub timeout_sec: u64,
    /// Which envelope decoder reads the host's stdin payload.
    pub decoder: String,
    /// Which encoder writes the host's native output.
    pub encoder: String,
    pub fallback: HookFallback,
    /// The part of `deadline_ms` kept for the standalone fallback (the host matrix's cold-worker
    /// time): the warm attempt gets only the rest, so a slow warm runtime cannot starve it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cold_worker_ms: Option<u64>,
    /// What the hook answers when it cannot give the route's answer (absent: open).
    #[serde(default, skip_serializing_if = "HookFailure::is_open")]
    pub failure: HookFailure,
    /// The largest stdin payload read (the host matrix's budget); `None`: the manifest's
    /// `limits.hookInputMaxBytes`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload_max_bytes: Option<u64>,
    /// Nesting kept of payload values; `None`: [`DEFAULT_PAYLOAD_MAX_DEPTH`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload_max_depth: Option<u64>,
}

/// The nesting a binding without `payloadMaxDepth` keeps.
pub const DEFAULT_PAYLOAD_MAX_DEPTH: u64 = 64;

/// How a guard fails: what the hook answers when it cannot give the route's own answer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HookFailure {
    /// Answer nothing, so the host proceeds: every host's own default for a failed hook.
    #[default]
    Open,
    /// Answer with the host's native deny and a reason naming what failed.
    Closed,
}

impl HookFailure {
    pub const fn is_open(&self) -> bool {
        matches!(self, HookFailure::Open)
    }

    /// The option's value as routes write it (`'open'`, `'closed'`).
    pub const fn as_str(self) -> &'static str {
        match self {
            HookFailure::Open => "open",
            HookFailure::Closed => "closed",
        }
    }
}

/// What a hook does when no warm runtime answers in time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HookFallback {
    /// Answer honestly with no guidance.
    #[default]
    None,
    /// Start the worker once for this event.
    Standalone,
}

/// The slice of the manifest the hook client needs.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HookView {
    pub manifest_version: u32,
    pub application: Application,
    pub digest: String,
    pub hooks: HookTables,
    pub limits: Limits,
    /// The routes the bindings of `hooks` name, in id order; no other route.
    pub routes: Vec<HookRoute>,
}

/// A route as the hook client sees it: its id and static config, never its schemas.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct HookRoute {
    pub id: String,
    pub config: Map<String, Value>,
}

impl HookView {
    /// The binding for `event` on `host`, if the artifact registered one.
    pub fn binding(&self, host: &str, event: &str) -> Option<&HookBinding> {
        self.hooks
            .get(host)?
            .iter()
            .find(|binding| binding.event == event)
    }

    /// The route `id`, if the manifest lists it.
    pub fn route(&self, id: &str) -> Option<&HookRoute> {
        self.routes.iter().find(|route| route.id == id)
    }
}
