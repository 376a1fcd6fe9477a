//! Host profile checks of a checked project: for every selected host with a schema profile,
//! every tool's translated input schema must project without accepting less (AB5210).
//!
//! Entry call: [`check_route_profiles`], inside each route's translation task. Invariant: one
//! diagnostic per tool and host; a schema left to run time is judged by the runtime when it
//! exists, not here.

use super::profile::Profile;
use super::routes::{RouteSchema, RouteSchemas};
use super::shape::{prints_object_root, root_combinator};
use crate::diagnostics::{Code, Diagnostic};

/// AB5210 for the route `id` if its input schema is one a selected host's profile cannot take
/// as it is.
pub fn check_route_profiles(id: &str, route: &RouteSchemas, targets: &[&str]) -> Vec<Diagnostic> {
    let RouteSchema::Static(schema) = &route.input else {
        return Vec::new();
    };
    let mut diagnostics = Vec::new();
    for target in targets {
        if Profile::for_target(target).is_none() {
            continue;
        }
        // Read from the IR: the same answer as `profile::check_input_root` on the printed
        // JSON, without printing it.
        let reason = if !prints_object_root(&schema.schema) {
            "the root is not `type: \"object\"`".to_owned()
        } else if let Some(keyword) = root_combinator(&schema.schema) {
            format!("the root has `{keyword}`")
        } else {
            continue;
        };
        let mut diagnostic = Diagnostic::new(
            Code::AB5210,
            format!(
                "the input schema of `{id}` cannot be given to {target} as it is: {reason}"
            ),
            "Make the input a `z.object({...})` at the root (move a union or intersection into a property), or drop this host from the targets.",
        )
        .with_note(format!(
            "{target} refuses or silently drops tools whose input root is not a plain object; abgen does not loosen the schema for it."
        ));
        if let Some(location) = &route.input_location {
            diagnostic = diagnostic.at(location.clone());
        }
        diagnostics.push(diagnostic);
    }
    diagnostics
}
