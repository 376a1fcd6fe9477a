use std::path::Path;
use std::sync::Arc;

use abgen_runtime::manifest::{ProfileProjection, ProfileSchema, Route, read_manifest};
use abgen_runtime::schema_profile::Profile;
use serde_json::Value;

use super::RouteForCheck;
use crate::emit::canonical_json::canonical_member_item;

/// What the manifest's reader makes of `text` as an item of `routes` (`serde_json`, reading the
/// whole document into values), with each form in its `schemas` emptied: the oracle.
fn read_back(text: &str) -> Option<Value> {
    let document: Value = serde_json::from_str(&format!("{{\"routes\": [{text}]}}")).ok()?;
    let mut route = document["routes"][0].clone();
    for side in ["input", "result"] {
        let Some(Value::Object(projection)) = route.pointer_mut(&format!("/schemas/{side}")) else {
            continue;
        };
        let mut forms: Vec<&mut Value> = Vec::new();
        for (key, member) in projection.iter_mut() {
            match (key.as_str(), member) {
                ("jsonSchema", form) => forms.push(form),
                ("profiles", Value::Object(profiles)) => forms.extend(
                    profiles
                        .values_mut()
                        .filter_map(|profile| profile.get_mut("jsonSchema")),
                ),
                _ => {}
            }
        }
        for form in forms {
            match form {
                Value::Object(form) => form.clear(),
                Value::Array(form) => form.clear(),
                Value::String(form) => form.clear(),
                _ => {}
            }
        }
    }
    Some(route)
}

/// The curator's routes, each with the forms a build writes: trees as a manifest is read, and a
/// form written from the canonical one.
fn written_routes() -> Vec<Route> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/manifests/curator.json");
    let mut routes = read_manifest(&manifest).unwrap().routes;
    for route in &mut routes {
        let Some(input) = route.schemas.input.as_mut() else {
            continue;
        };
        if let Some(canonical) = &input.json_schema {
            let json_schema = ProfileSchema::FromCanonical {
                canonical: Arc::clone(canonical),
                profile: Profile::Codex,
            };
            input
                .profiles
                .insert("codex".to_owned(), ProfileProjection { json_schema });
        }
    }
    routes
}

#[test]
fn a_route_checked_is_its_text_read_back_with_its_forms_emptied() {
    let routes = written_routes();
    let with_forms = routes
        .iter()
        .filter(|route| {
            route
                .schemas
                .input
                .as_ref()
                .is_some_and(|input| input.profiles.len() > 1)
        })
        .count();
    assert!(with_forms > 0, "a route with profile forms of both kinds");
    for mut route in routes {
        let item = canonical_member_item(&route).unwrap();
        let checked = RouteForCheck::taking_forms(&mut route, item.depth).unwrap();
        assert_eq!(
            Some(&checked.value),
            read_back(&item.text).as_ref(),
            "{}",
            route.id
        );
        assert!(checked.readable());
        assert_eq!(route.schemas, Default::default(), "the forms are taken");
    }
}

/// The check reads a form for its kind alone: an empty form of each kind stays that kind.
#[test]
fn a_form_is_emptied_to_its_kind() {
    for (form, emptied) in [
        (
            serde_json::json!({ "type": "object" }),
            serde_json::json!({}),
        ),
        (serde_json::json!(true), serde_json::json!(true)),
        (serde_json::json!([1]), serde_json::json!([])),
        (serde_json::json!("text"), serde_json::json!("")),
        (serde_json::json!(2.5), serde_json::json!(2.5)),
    ] {
        assert_eq!(super::empty_of_kind(&form), emptied);
    }
}
