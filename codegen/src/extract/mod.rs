//! Static extraction, one module at a time: parse with oxc, resolve bindings with
//! oxc_semantic, and read the route's definition, config, schema expressions and exports.
//!
//! Architecture Invariant: extraction never executes author code; anything outside the
//! static grammar is a diagnostic naming the construct and its position.

mod model;

pub use model::{
    Binding, ConstBinding, DefaultExport, ExtractedModule, ImportBinding, RouteForm, SchemaExpr,
};
