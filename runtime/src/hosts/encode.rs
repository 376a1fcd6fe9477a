//! Encoding a hook answer as a host's native output, driven by one [`Encoder`] row per output
//! shape (the manifest's `encoder` id).
//!
//! Entry: [`Encoder::encode`]. Invariant: an encoder only ever writes what its event accepts;
//! anything else in the answer is left out and named in [`NativeOutput::dropped`], and an answer
//! with nothing deliverable prints nothing at all.

use serde_json::{Map, Value};

use crate::project::hook::HookAnswer;

/// What an event can carry back to its host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Accepts {
    /// Text added to the agent's context.
    pub context: bool,
    /// A deny (or block) with a reason.
    pub deny: bool,
    /// A message shown to the user.
    pub notice: bool,
}

/// One native output shape.
pub struct Encoder {
    pub id: &'static str,
    pub accepts: Accepts,
    /// Writes the host's JSON for `answer`, which holds only what `accepts` allows and is not
    /// empty. Every host reads a deny from this JSON on exit 0, so no encoder uses exit 2
    /// (Claude erases the prompt on it, Codex needs stderr with it, Cursor blocks on it).
    pub write: fn(native_event: &str, answer: &HookAnswer) -> Map<String, Value>,
}

/// What the hook process prints and how it exits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NativeOutput {
    /// Empty, or one JSON object and a newline.
    pub stdout: String,
    pub exit_code: i32,
    /// The kinds of content the event cannot carry that the answer held (`"a deny"`, …).
    pub dropped: Vec<&'static str>,
}

impl Encoder {
    /// The native output of `answer` for `native_event`.
    pub fn encode(&self, native_event: &str, answer: &HookAnswer) -> NativeOutput {
        let mut deliverable = answer.clone();
        let mut dropped = Vec::new();
        let mut keep = |accepted: bool, list: &mut Vec<String>, what: &'static str| {
            if !accepted && !list.is_empty() {
                list.clear();
                dropped.push(what);
            }
        };
        keep(self.accepts.context, &mut deliverable.context, "context");
        keep(self.accepts.deny, &mut deliverable.deny, "a deny");
        keep(self.accepts.notice, &mut deliverable.notice, "a notice");
        let object = if deliverable.is_empty() {
            Map::new()
        } else {
            (self.write)(native_event, &deliverable)
        };
        // `{}` says nothing, and Codex fails a hook whose stdout is JSON it cannot use.
        let stdout = if object.is_empty() {
            String::new()
        } else {
            format!("{}\n", Value::Object(object))
        };
        NativeOutput {
            stdout,
            exit_code: 0,
            dropped,
        }
    }
}
