//! The project: its config (`agent-bundle.config.*` + package.json) and the source modules
//! discovered by path convention, read through one [`SourceReader`] seam and extracted in
//! parallel.
//!
//! Entry calls, in order: [`load_config`], [`discover_modules`], [`load_modules`] (or
//! [`walk_modules`] and [`load_modules_from`], which read modules while the walk goes on); what
//! abgen does not build of the config and the conventions is [`support`]'s to report.

pub mod config;
mod discover;
pub mod imports;
mod load;
mod model;
mod reader;
pub mod support;
mod texts;

pub use config::{ConfigReturn, ProjectConfig, ServerMode, Target, load_config};
pub(crate) use discover::is_symlink;
pub use discover::{
    DiscoverReturn, ModuleWalk, classify, discover_modules, symlink_not_followed, walk_modules,
};
pub use load::{
    ExtractionCache, LoadReturn, LoadedModule, load_modules, load_modules_from,
    load_modules_reusing, load_modules_then,
};
pub use model::{LayoutScope, ModuleKind, SourceModule};
pub use reader::{FsReader, ReadFailure, SourceReader, read_text};
pub use texts::{KeepTexts, ReleasedTexts, TextDigest, read_released_again};
