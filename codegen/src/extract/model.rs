//! What extraction learns about one module: plain owned data, produced inside the per-file
//! parallel task so that no later stage parses a file again.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::diagnostics::{Location, Span};

/// How a route module declares itself.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "form", rename_all = "kebab-case")]
pub enum RouteForm {
    /// `export default defineTool({...}, handler)` (the import may be aliased).
    DefineTool,
    /// `export default events.<family>.<event>({...}, handler)`; `event` is kebab-cased
    /// (`events.modelSwitch.before` → `model-switch/before`, `events.stop` → `stop`).
    DefineEvent { event: String },
    /// `export const config = {...}` (optional) + named schema exports + a default export.
    ConfigExport,
}

/// What the module's default export is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DefaultExport {
    #[default]
    Missing,
    AsyncFunction,
    /// A non-async function (declaration, expression or arrow).
    Function,
    /// A `defineTool(...)` / `events.*(...)` call recognised as [`RouteForm`].
    Definition,
    /// A re-export (`export { default } from './x'`) judged at run time.
    ReExport,
    /// Anything else (an identifier, another call, a literal, a class).
    Other,
}

/// One `import` binding of the module.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ImportBinding {
    /// The local name (`tool` in `import { defineTool as tool }`).
    pub local: String,
    /// The module specifier as written.
    pub source: String,
    /// The imported name: an export name, `default`, or `*` for a namespace import.
    pub imported: String,
    pub type_only: bool,
}

/// One static module request of the module: an `import` (a side-effect import included) or an
/// `export … from`, in source order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ModuleRequest {
    /// The module specifier as written.
    pub specifier: String,
    /// Erased by TypeScript (`import type`, or every named specifier `type`): nothing is loaded.
    pub type_only: bool,
    /// Where the specifier's string literal stands.
    pub location: Location,
}

/// What a schema expression's identifier refers to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Binding {
    /// An import binding: `source` is the specifier, `imported` the export name (`*` for a namespace).
    Import { source: String, imported: String },
    /// A top-level `const` of this module, found in [`ExtractedModule::consts`] under `name`.
    LocalConst { name: String },
    /// A binding the extractor does not follow (a parameter, a `let`, a nested declaration).
    Local,
    /// No binding in the module (a global).
    Global,
}

/// An owned, unresolved tree of a schema expression (a zod call chain) with spans and the
/// bindings it references. Translation to JSON Schema is the `schema` stage's job.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum SchemaExpr {
    /// `callee(args…)`; a method call has a [`SchemaExpr::Member`] callee.
    Call {
        callee: Box<SchemaExpr>,
        args: Vec<SchemaExpr>,
        span: Span,
    },
    /// `object.property` (also `object['property']` with a literal key).
    Member {
        object: Box<SchemaExpr>,
        property: String,
        span: Span,
    },
    /// `binding` and a literal's `value` are boxed: they are the two large payloads, and every
    /// node (a `Vec` element, a boxed callee) is as large as the largest variant, and a
    /// project's trees are held until the end of the run (at most 48 bytes: a test holds it).
    Ident {
        name: String,
        binding: Box<Binding>,
        span: Span,
    },
    /// A string, number, boolean or null literal (casts unwrapped).
    Literal {
        value: Box<Value>,
        span: Span,
    },
    /// An object literal with static keys, in source order.
    Object {
        properties: Vec<(String, SchemaExpr)>,
        span: Span,
    },
    Array {
        items: Vec<SchemaExpr>,
        span: Span,
    },
    Regex {
        pattern: Box<str>,
        flags: Box<str>,
        span: Span,
    },
    /// Anything outside the grammar above (a function, a spread, a template with substitutions…),
    /// named as a user would read it (`a function expression`).
    Unsupported {
        construct: String,
        span: Span,
    },
}

/// A top-level `const` whose initializer was captured as a schema expression.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ConstBinding {
    pub exported: bool,
    pub init: SchemaExpr,
}

/// Everything extraction learns about one source module.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ExtractedModule {
    /// Project-relative, `/`-separated path.
    pub path: String,
    /// `None` when the module declares itself in no recognised form.
    pub form: Option<RouteForm>,
    /// The static options object (the `defineTool` / `events.*` first argument or the
    /// `config` export) without `inputSchema`/`resultSchema`. Empty when absent or rejected.
    pub config: Map<String, Value>,
    /// Where every value of `config` was written, keyed by JSON Pointer (`/resourceUri`,
    /// `/tools/0`), for diagnostics of later stages.
    pub config_locations: BTreeMap<String, Location>,
    /// Where the definition call or `config` export stands.
    pub definition_location: Option<Location>,
    pub input_schema: Option<SchemaExpr>,
    pub result_schema: Option<SchemaExpr>,
    /// Top-level `const`s whose initializers are captured (for schema references).
    pub consts: BTreeMap<String, ConstBinding>,
    pub imports: Vec<ImportBinding>,
    /// Every static `import` and `export … from`, in source order.
    pub requests: Vec<ModuleRequest>,
    /// Names of the module's named exports, sorted (`default` excluded).
    pub exports: Vec<String>,
    pub default_export: DefaultExport,
    /// The module opens with a `'use client'` directive.
    pub use_client: bool,
}

#[cfg(test)]
mod tests {
    use super::SchemaExpr;

    /// Every node of a captured tree is as large as the largest variant, and a project's trees
    /// live until the end of the run: a variant growing past this makes `check` touch more memory.
    #[test]
    fn a_schema_node_stays_small() {
        assert!(
            std::mem::size_of::<SchemaExpr>() <= 48,
            "SchemaExpr is {} bytes",
            std::mem::size_of::<SchemaExpr>()
        );
    }
}
