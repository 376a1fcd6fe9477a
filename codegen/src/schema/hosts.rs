//! Host profile checks of a checked project: for every selected host with a schema profile,
//! every tool's translated input schema must project without accepting less (AB5210).
//!
//! Entry calls: [`profile_refusal`], inside each route's translation task, then
//! [`ProfileRefusal::diagnostics`] once the selected hosts are known. Invariant: one diagnostic
//! per tool and host; a schema left to run time is judged by the runtime when it exists, not
//! here.

use super::profile::Profile;
use super::routes::{RouteSchema, RouteSchemas};
use super::shape::{prints_object_root, root_combinator};
use crate::diagnostics::{Code, Diagnostic, Location};

/// Why a route's translated input schema is one no host with a schema profile takes as it
/// is. The reason is the same for every such host, so it is read once per route, before the
/// check knows which hosts are selected.
#[derive(Clone, Debug, PartialEq)]
pub struct ProfileRefusal {
    reason: String,
    location: Option<Location>,
}

/// The [`ProfileRefusal`] of `route`'s input schema, if a host profile refuses it.
pub fn profile_refusal(route: &RouteSchemas) -> Option<ProfileRefusal> {
    let RouteSchema::Static(schema) = &route.input else {
        return None;
    };
    // Read from the IR: the same answer as `profile::check_input_root` on the printed JSON,
    // without printing it.
    let reason = if !prints_object_root(&schema.schema) {
        "the root is not `type: \"object\"`".to_owned()
    } else {
        format!("the root has `{}`", root_combinator(&schema.schema)?)
    };
    Some(ProfileRefusal {
        reason,
        location: route.input_location.clone(),
    })
}

impl ProfileRefusal {
    /// AB5210 for the route `id`, once for each of `targets` that has a schema profile.
    pub fn diagnostics(&self, id: &str, targets: &[&str]) -> Vec<Diagnostic> {
        let reason = &self.reason;
        targets
            .iter()
            .filter(|target| Profile::for_target(target).is_some())
            .map(|target| {
                let diagnostic = Diagnostic::new(
                    Code::AB5210,
                    format!(
                        "the input schema of `{id}` cannot be given to {target} as it is: {reason}"
                    ),
                    "Make the input a `z.object({...})` at the root (move a union or intersection into a property), or drop this host from the targets.",
                )
                .with_note(format!(
                    "{target} refuses or silently drops tools whose input root is not a plain object; abgen does not loosen the schema for it."
                ));
                match &self.location {
                    Some(location) => diagnostic.at(location.clone()),
                    None => diagnostic,
                }
            })
            .collect()
    }
}
