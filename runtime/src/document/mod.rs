//! The Agent Document: the immutable result of one render, and the render events that lead to it.
//!
//! Entry types: [`Document`] (the final value and every snapshot) and [`RenderEvent`] (the stream
//! the decoder produces: shell, progress, replace, error, complete). Invariant: the serde JSON of
//! these types is exactly the contract of ARCHITECTURE.md §7 and schemas/agent-document.schema.json.

mod children;
mod event;
mod limits;
mod node;

pub use children::Children;
pub(crate) use children::{ChildrenBuilder, NearBoundaries, PartStack, StackedList};
pub use event::{LogLevel, RenderEvent, RenderEventKind};
pub use limits::DocumentLimits;
pub use node::{BoundaryState, Document, DocumentError, Node, Status};
