//! Bounds on what one render may produce, enforced while decoding.
//!
//! Invariant: every limit is finite, so a hostile or runaway stream ends in a `limit-exceeded`
//! failure instead of unbounded memory or time.

use serde::{Deserialize, Serialize};

/// Limits of one render (the manifest may set them per route).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DocumentLimits {
    /// Flight bytes accepted for one render.
    pub max_bytes: usize,
    /// Nodes (and JSON values) in one snapshot.
    pub max_nodes: usize,
    /// Nesting depth of elements and values.
    pub max_depth: usize,
    /// Render events, `complete` included.
    pub max_events: usize,
}

impl Default for DocumentLimits {
    fn default() -> Self {
        Self {
            max_bytes: 16 * 1024 * 1024,
            max_nodes: 100_000,
            max_depth: 256,
            max_events: 10_000,
        }
    }
}
