//! The project: its config (`agent-bundle.config.*` + package.json) and the source modules
//! discovered by path convention.

mod model;

pub use model::{LayoutScope, ModuleKind, SourceModule};
