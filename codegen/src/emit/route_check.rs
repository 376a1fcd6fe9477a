//! A written route as its schema check reads it. Entry: [`RouteForCheck::taking_forms`].
//!
//! The check asks two things of each route the manifest writer wrote: that the runtime can read
//! its text (`serde_json`, reading the whole manifest, with its recursion limit), and that it
//! passes the manifest schema.
//!
//! - The writer writes JSON by construction: each value is a serde value written by the
//!   canonical writer, its strings escaped and its numbers finite (`canonical_json_tests`). Of
//!   the reader's rules only its recursion limit can fail, and the writer counts the nesting as
//!   it writes ([`WrittenItem::depth`](super::canonical_json::WrittenItem)), so that is what is
//!   checked.
//! - Nearly all of a route's bytes are its schema forms, of which the manifest schema asks only
//!   the kind (`manifest_schema_reads_only_the_kind_of_a_schema_form` keeps it so). So the
//!   route is checked as a value with each of its forms the empty value of its kind, made from
//!   the route itself: reading its text back would read every form again.
//!
//! Invariant: [`RouteForCheck::value`] is what `serde_json` reads from the route's text, with
//! each form in its `schemas` emptied (tested on written routes).

use std::sync::Arc;

use abgen_runtime::manifest::{
    ProfileProjection, ProfileSchema, Route, RouteSchemas, SchemaProjection,
};
use serde_json::Value;

/// Containers `serde_json` opens before it stops with "recursion limit exceeded": it reads 127
/// nested arrays and objects, not 128.
pub(super) const SERDE_JSON_MAX_DEPTH: usize = 127;

/// A route written into the manifest, as its schema check reads it.
#[derive(Debug)]
pub(super) struct RouteForCheck {
    /// The route as `serde_json` reads its text, each schema form the empty value of its kind.
    pub value: Value,
    /// The most arrays and objects open at once in its text, counted from the manifest's root.
    pub depth: usize,
}

impl RouteForCheck {
    /// The check's reading of `route`, whose text the writer wrote `depth` containers deep at
    /// most; the route's schemas are taken (left empty), as the forms are done with once written.
    pub fn taking_forms(route: &mut Route, depth: usize) -> Result<Self, serde_json::Error> {
        let schemas = std::mem::take(&mut route.schemas);
        route.schemas = RouteSchemas {
            input: schemas.input.as_ref().map(forms_emptied),
            result: schemas.result.as_ref().map(forms_emptied),
        };
        drop(schemas);
        let value = serde_json::to_value(&*route);
        route.schemas = RouteSchemas::default();
        Ok(Self {
            value: value?,
            depth,
        })
    }

    /// Whether `serde_json` reads the route's text (within its recursion limit).
    pub fn readable(&self) -> bool {
        self.depth <= SERDE_JSON_MAX_DEPTH
    }
}

fn forms_emptied(projection: &SchemaProjection) -> SchemaProjection {
    SchemaProjection {
        json_schema: projection
            .json_schema
            .as_deref()
            .map(|form| Arc::new(empty_of_kind(form))),
        profiles: projection
            .profiles
            .iter()
            .map(|(name, profile)| {
                let form = empty_of_kind(profile.json_schema.written_from());
                let json_schema = ProfileSchema::Tree(Arc::new(form));
                (name.clone(), ProfileProjection { json_schema })
            })
            .collect(),
        source: projection.source,
    }
}

/// The empty value of `form`'s kind: `{}`, `[]`, `""`; a number or literal as it is.
fn empty_of_kind(form: &Value) -> Value {
    match form {
        Value::Object(_) => Value::Object(Default::default()),
        Value::Array(_) => Value::Array(Vec::new()),
        Value::String(_) => Value::String(String::new()),
        scalar => scalar.clone(),
    }
}

#[cfg(test)]
#[path = "route_check_tests.rs"]
mod tests;
