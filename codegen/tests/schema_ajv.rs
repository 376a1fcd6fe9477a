//! Ajv (pinned in the workspace's package.json, the validator of the MCP TypeScript SDK)
//! compiles every projection abgen prints, under the draft the projection declares: draft-07
//! for `draft-07-lax` and `cursor`, 2020-12 for `2020-12`, `claude` and `codex`.

mod schema_support;

use abgen::schema::profile::{Profile, project};
use schema_support::{node_json, printed_schemas};
use serde_json::{Value, json};

/// Schemas Ajv's strict mode refuses for a reason that is the author's, with the reason.
const REFUSED_BY_DESIGN: &[(&str, &str)] = &[(
    "meta-extra-key/",
    "`.meta({ foo: 1 })` copies an unknown keyword into the schema, as zod does; Ajv's strict \
     mode refuses unknown keywords in its 2020-12 forms (both sides × 2020-12, claude, codex)",
)];
/// How many projections [`REFUSED_BY_DESIGN`] covers; Ajv must refuse exactly these.
const REFUSED_BY_DESIGN_COUNT: usize = 6;

#[test]
fn ajv_compiles_every_projection() {
    let mut batch = Vec::new();
    for (name, schema) in printed_schemas() {
        for profile in Profile::ALL {
            let projected =
                project(&schema, profile, false).expect("non-root projections never fail");
            batch
                .push(json!({ "name": format!("{name}/{}", profile.name()), "schema": projected }));
        }
    }
    assert!(batch.len() > 2_000, "only {} projections", batch.len());
    let refused = node_json(
        "fixtures/schemas/ajv-compile.mjs",
        Some(&Value::Array(batch).to_string()),
    );
    let unexpected: Vec<&Value> = refused
        .as_array()
        .into_iter()
        .flatten()
        .filter(|entry| {
            let name = entry["name"].as_str().unwrap_or_default();
            !REFUSED_BY_DESIGN
                .iter()
                .any(|(prefix, _)| name.starts_with(prefix))
        })
        .collect();
    assert!(unexpected.is_empty(), "Ajv refuses: {unexpected:#?}");
    let refused_count = refused.as_array().map_or(0, Vec::len);
    assert_eq!(refused_count, REFUSED_BY_DESIGN_COUNT, "{refused:#?}");
}
