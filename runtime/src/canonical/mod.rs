//! The canonical event: what an event route receives, whichever host delivered the hook
//! (ARCHITECTURE.md §7; schema: `schemas/canonical-event.schema.json`).
//!
//! Host decoders (`crate::hosts`) build a [`CanonicalEvent`]; [`selectors_match`] re-checks a
//! route's `tools` selectors against its tool; [`bound_value`] and [`bound_text`] keep every
//! host-supplied value bounded. Invariant: a canonical event serializes to exactly what the
//! schema accepts, and nothing a host sent enters it unbounded: native fields by [`Bounds`], the
//! tool input and the prompt by the hook's payload budget and depth limit, with what was cut or
//! read lossily marked on them.

mod bound;
mod event;
mod selector;

pub use bound::{Bounds, bound_text, bound_value};
pub use event::{Axis, AxisSource, CanonicalEvent, CanonicalTool, Prompt, ToolSelector};
pub use selector::selectors_match;
