//! Static extraction, one module at a time: parse with oxc, resolve bindings with
//! oxc_semantic, and read the route's definition, config, schema expressions and exports.
//!
//! Architecture Invariant: extraction never executes author code; anything outside the
//! static grammar is a diagnostic naming the construct and its position.

mod model;

use std::collections::BTreeMap;

pub use model::{
    Binding, ConstBinding, DefaultExport, ExtractedModule, ImportBinding, RouteForm, SchemaExpr,
};
use serde_json::{Map, Value};

use crate::diagnostics::{Diagnostic, Location};
use crate::project::ModuleKind;

/// The output of [`extract_module`]: what was learned, plus diagnostics (never an abort).
#[derive(Debug, Default)]
pub struct ExtractReturn {
    pub module: ExtractedModule,
    pub diagnostics: Vec<Diagnostic>,
}

/// Reads one route, layout or provider module whose path made it a `kind`.
pub fn extract_module(path: &str, kind: &ModuleKind, source: &str) -> ExtractReturn {
    let _ = (kind, source);
    ExtractReturn {
        module: ExtractedModule { path: path.to_owned(), ..ExtractedModule::default() },
        diagnostics: Vec::new(),
    }
}

/// The output of [`extract_config_module`].
#[derive(Debug, Default)]
pub struct ConfigModuleReturn {
    /// The static config object; `None` when the file declares none or it was rejected.
    pub value: Option<Map<String, Value>>,
    /// Where every value of `value` was written, keyed by JSON Pointer (`/plugin/name`, `/targets/1`).
    pub locations: BTreeMap<String, Location>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Reads `agent-bundle.config.{ts,mts,js,mjs,json}`: `export default defineConfig({...})` or a
/// plain object literal (JSON files are read with the same grammar).
pub fn extract_config_module(path: &str, source: &str) -> ConfigModuleReturn {
    let _ = (path, source);
    ConfigModuleReturn::default()
}
