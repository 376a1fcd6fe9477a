//! Static zod → JSON Schema: the schema IR, the translator from captured zod expressions, the
//! 2020-12 printer that reproduces zod 4.6.7's `z.toJSONSchema`, and the host projections.
//!
//! Entry calls: [`translate_routes`] (every tool of a checked project, with AB51xx fallback
//! warnings; or [`translate_in_task`], one route in the task that extracts it, and
//! [`collect_translations`] once all are), [`translate_const`] (one exported const of one module, for tests and tools),
//! [`print_2020_12`] and [`profile::project`].
//!
//! Reading order: `ir`; `translate` (+ `zod_calls`, `methods`, `modules`); `print`
//! (+ `print_scalars`, `formats`); `shape` (what prints, read from the IR); `routes`; `profile`
//! (dialect and host projections: `abgen_runtime::schema_profile`, which the MCP server also
//! applies to schemas computed at run time); `hosts` (AB5210 for selected hosts); `select` (what
//! `abgen schema` prints).
//!
//! Architecture Invariant: nothing here executes author code. What cannot be known statically
//! is not an error: the route's schema is left to run time with a warning naming the construct.

mod formats;
mod hosts;
pub mod ir;
mod methods;
mod modules;
pub mod print;
mod print_scalars;
mod routes;
mod select;
mod shape;
mod translate;
mod zod_calls;

/// The dialect and host projections of printed schemas, shared with the runtime (which applies
/// them to schemas computed at run time).
pub use abgen_runtime::schema_profile as profile;

pub use ir::{Io, Kind, Schema};
pub use modules::{ImportedModules, ModuleSet};
pub use print::{DRAFT_2020_12, Unrepresentable, print_2020_12};
pub use routes::{
    RouteSchema, RouteSchemas, RouteTranslation, SchemaReturn, StaticSchema, TranslateOptions,
    TranslationCache, collect_translations, translate_const, translate_in_task, translate_routes,
    translate_routes_reusing,
};
pub use select::{SelectError, select_schema};
pub use shape::{printable, prints_object_root, root_combinator};
pub use translate::Fallback;

/// One place where abgen's output differs from zod's on purpose, keyed by the oracle corpus
/// case (`fixtures/schemas/cases.mjs`) that shows it.
#[derive(Clone, Copy, Debug)]
pub struct Difference {
    pub case: &'static str,
    pub reason: &'static str,
}

/// Every known difference from zod 4.6.7's `z.toJSONSchema` output. The corpus test fails on
/// any difference not listed here, and on a listed one that no longer differs.
pub const DIFFERENCES_FROM_ZOD: &[Difference] = &[
    Difference {
        case: "tuple-empty",
        reason: "zod prints `prefixItems: []` for `z.tuple([])`, which the 2020-12 meta-schema \
                 refuses (`prefixItems` needs at least one schema); abgen leaves `prefixItems` \
                 out, which accepts the same values (`items: false` still allows none)",
    },
    Difference {
        case: "tool-shared-fields",
        reason: "a spread (`...base.shape`) inside `z.object({...})` is not followed: the \
             extractor keeps object literals with static keys only, so the schema falls back \
             to run time (AB5104) instead of being printed",
    },
];
