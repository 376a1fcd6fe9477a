//! Static extraction, one module at a time: parse with oxc, resolve the module scope's
//! bindings, and read the route's definition, config, schema expressions and exports.
//!
//! Entry calls: [`extract_module`] (routes, layouts, providers; [`extract_module_then`] to read
//! a module's schema expressions in its own task) and [`extract_config_module`]
//! (`agent-bundle.config.*`). Reading order of the files: `module` and `config_module` drive the
//! rest; `parse` (with the `nesting` guard), `scope` (bindings, and why not `oxc_semantic`),
//! `exports`, `definition` (the `defineTool` / `events.*` forms), `route` (options and config
//! into the model), `literal` (the static grammar), `schema_expr` (captured schema expressions, into the index arena of `model`),
//! `checks/` (per-kind contracts).
//!
//! Architecture Invariant: extraction never executes author code; anything outside the
//! static grammar is a diagnostic naming the construct and its position.

mod checks;
pub use checks::projection_words;
mod config_module;
mod definition;
mod entry;
mod exports;
mod literal;
mod model;
mod module;
mod nesting;
mod parse;
mod position;
mod route;
mod schema_expr;
mod scope;
mod syntax;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

pub use model::{
    Binding, BindingView, ConstBinding, DefaultExport, Expr, ExprId, ExprKind, Exprs,
    ExtractedModule, ImportBinding, Literal, ModuleRequest, Properties, RouteForm, SchemaNodes,
    SchemaPresence,
};
pub use nesting::MAX_NESTING;
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
    crate::stack::with_parse_stack(|| module::extract(path, kind, source))
}

/// [`extract_module`], then `then` on what it learned while the module's captured schema
/// expressions are still in this thread's arena; the module returned keeps none of them
/// ([`ExtractedModule::schemas`]). For a caller that reads all it needs of them in `then`, as
/// `abgen check` translates each route in the task that extracted it: the next file reuses
/// their memory instead of the run keeping every module's.
pub fn extract_module_then<T>(
    path: &str,
    kind: &ModuleKind,
    source: &str,
    then: impl FnOnce(&ExtractReturn) -> T,
) -> (ExtractReturn, T) {
    crate::stack::with_parse_stack(|| {
        module::extract_then(path, kind, source, module::Nodes::Released, then)
    })
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
    crate::stack::with_parse_stack(|| config_module::extract(path, source))
}
