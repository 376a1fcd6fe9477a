//! Projections of a printed JSON Schema 2020-12 for dialects and hosts, selected by a profile
//! name: `2020-12` (canonical), `draft-07-lax`, and the host profiles `claude`, `codex`,
//! `cursor`.
//!
//! Entry calls: [`Profile::parse`], [`project`]. They work on printed JSON (not the compiler's
//! IR), so a schema computed at run time gets the same projections: this one implementation is
//! what `abgen` writes into the manifest for static schemas and what `abgen-host mcp` applies,
//! per connecting client, to the schemas zod computes in the render worker. Invariant: a projection
//! accepts every value the 2020-12 form accepts; where a host cannot take a schema without
//! accepting less, [`project`] returns a [`ProfileProblem`] (reported as AB5210), never a
//! silently narrower schema.
//!
//! What each profile changes, and why (hosts' known rejections):
//!
//! Every profile, the canonical `2020-12` included, writes a tuple as seed 002 says: it keeps
//! `prefixItems` and min/max items, and its `items` becomes `anyOf` of every position (and the
//! rest), never `items: false`. A validator with draft-07 keyword semantics (Cursor's, the MCP
//! TypeScript SDK client's) reads `items: false` as "no item at all" and rejects every valid
//! tuple; with `anyOf`, any position may hold any position's type, so draft-07 semantics accept
//! more than the tuple. Under 2020-12 semantics a closed tuple stays exact (`maxItems` leaves
//! `items` nothing to apply to); only a `.rest()` tuple's rest positions may also match a prefix
//! schema. The printer itself stays zod's exact output (the oracle corpus compares it).
//!
//! | profile | changes |
//! | --- | --- |
//! | `2020-12` | tuples as above |
//! | `draft-07-lax` | `$schema` draft-07; tuples as above; `format` is left out (2020-12 reads it as an annotation, draft-07 validators may assert it and would then accept less; the `pattern` zod writes beside it stays) |
//! | `claude` | 2020-12 with tuples as above; the input root must be a plain `type: "object"` with no root `anyOf`/`oneOf`/`allOf`/`not`/`if`/`$ref` (Claude Code drops such tools silently) |
//! | `codex` | 2020-12 with `properties: {}` on every object schema that has none (Codex needs it; it accepts the same values); same root rule as `claude` |
//! | `cursor` | `draft-07-lax` (Cursor validates with draft-07 semantics), and every type list `type: [A, B]` becomes `anyOf` of single types (Cursor's client rejects type lists); same root rule |

use serde_json::{Map, Value, json};

/// The `$schema` of JSON Schema 2020-12, the canonical dialect (what zod's `toJSONSchema` and
/// abgen's static printer write).
pub const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

/// The `$schema` of draft-07.
pub const DRAFT_07: &str = "http://json-schema.org/draft-07/schema#";

/// A projection, by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Profile {
    Canonical,
    Draft07Lax,
    Claude,
    Codex,
    Cursor,
}

impl Profile {
    pub const ALL: [Profile; 5] = [
        Profile::Canonical,
        Profile::Draft07Lax,
        Profile::Claude,
        Profile::Codex,
        Profile::Cursor,
    ];

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|profile| profile.name() == name)
    }

    pub const fn name(self) -> &'static str {
        match self {
            Profile::Canonical => "2020-12",
            Profile::Draft07Lax => "draft-07-lax",
            Profile::Claude => "claude",
            Profile::Codex => "codex",
            Profile::Cursor => "cursor",
        }
    }

    /// The host profile of a build target, if the host has one.
    pub fn for_target(target: &str) -> Option<Self> {
        match target {
            "claude" => Some(Profile::Claude),
            "codex" => Some(Profile::Codex),
            "cursor" => Some(Profile::Cursor),
            _ => None,
        }
    }

    /// The draft the projection declares in `$schema`.
    pub const fn draft(self) -> &'static str {
        match self {
            Profile::Draft07Lax | Profile::Cursor => DRAFT_07,
            Profile::Canonical | Profile::Claude | Profile::Codex => DRAFT_2020_12,
        }
    }

    const fn is_host(self) -> bool {
        matches!(self, Profile::Claude | Profile::Codex | Profile::Cursor)
    }
}

/// Why a host cannot take a schema as it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProfileProblem {
    pub profile: Profile,
    pub reason: String,
}

/// Root keywords a host's tool list refuses in an input schema.
const ROOT_COMBINATORS: [&str; 8] = [
    "anyOf", "oneOf", "allOf", "not", "if", "then", "else", "$ref",
];

/// Projects a printed 2020-12 `schema`; `input` says whether it is a tool's input (whose root
/// hosts require to be a plain object).
pub fn project(schema: &Value, profile: Profile, input: bool) -> Result<Value, ProfileProblem> {
    if input {
        check_input_root(schema, profile)?;
    }
    project_owned(schema.clone(), profile, input)
}

/// [`project`] of a schema the caller gives up: the projection is made in it, not in a copy.
pub fn project_owned(
    mut schema: Value,
    profile: Profile,
    input: bool,
) -> Result<Value, ProfileProblem> {
    if input {
        check_input_root(&schema, profile)?;
    }
    loosen_tuples(&mut schema);
    Ok(finish_projection(schema, profile))
}

/// [`project`] of the schema whose canonical form (its projection for [`Profile::Canonical`])
/// is `canonical`, made from that form: every profile loosens tuples first and the canonical
/// form has, so this is the rest of `profile`'s projection. Lets a caller project a schema for
/// its canonical form without a copy, and for the other profiles from that form.
pub fn project_canonical_form(
    canonical: &Value,
    profile: Profile,
    input: bool,
) -> Result<Value, ProfileProblem> {
    if input {
        check_input_root(canonical, profile)?;
    }
    Ok(finish_projection(canonical.clone(), profile))
}

/// The steps of a projection after tuples are loosened.
fn finish_projection(mut projected: Value, profile: Profile) -> Value {
    match profile {
        Profile::Canonical | Profile::Claude => {}
        Profile::Draft07Lax => drop_formats(&mut projected),
        Profile::Codex => add_missing_properties(&mut projected),
        Profile::Cursor => {
            drop_formats(&mut projected);
            split_type_lists(&mut projected);
        }
    }
    if let Value::Object(root) = &mut projected {
        root.insert("$schema".to_owned(), json!(profile.draft()));
    }
    projected
}

/// Whether `profile`'s form of a schema differs from the schema's canonical form `canonical`
/// (the projection of [`Profile::Canonical`]); the root rule of a host profile, which
/// [`check_input_root`] decides, aside. Cheaper than [`project`]: nothing is copied. A manifest
/// writes a host's form only where it differs.
pub fn differs_from_canonical(profile: Profile, canonical: &Value) -> bool {
    match profile {
        Profile::Canonical | Profile::Claude => false,
        Profile::Codex => any_schema(canonical, &mut |node| lacks_properties(node)),
        Profile::Draft07Lax | Profile::Cursor => true,
    }
}

/// Whether a host profile can take `schema` as a tool's input (its root must be a plain
/// object); dialect profiles take any root. Cheaper than [`project`]: nothing is copied.
pub fn check_input_root(schema: &Value, profile: Profile) -> Result<(), ProfileProblem> {
    if !profile.is_host() {
        return Ok(());
    }
    root_is_plain_object(schema).map_err(|reason| ProfileProblem { profile, reason })
}

fn root_is_plain_object(schema: &Value) -> Result<(), String> {
    let Value::Object(root) = schema else {
        return Err("the root is not a schema object".to_owned());
    };
    if root.get("type") != Some(&json!("object")) {
        return Err("the root is not `type: \"object\"`".to_owned());
    }
    match ROOT_COMBINATORS.iter().find(|key| root.contains_key(**key)) {
        Some(key) => Err(format!("the root has `{key}`")),
        None => Ok(()),
    }
}

/// Every subschema of `value`, itself included, visited depth-first.
fn for_each_schema(value: &mut Value, visit: &mut impl FnMut(&mut Map<String, Value>)) {
    crate::stack::recurse(|| for_each_schema_here(value, visit));
}

fn for_each_schema_here(value: &mut Value, visit: &mut impl FnMut(&mut Map<String, Value>)) {
    match value {
        Value::Object(map) => {
            visit(map);
            for (key, child) in map.iter_mut() {
                // Values of these keywords are data, not schemas.
                if matches!(key.as_str(), "const" | "enum" | "default" | "examples") {
                    continue;
                }
                if key == "properties" {
                    if let Value::Object(properties) = child {
                        for property in properties.values_mut() {
                            for_each_schema(property, visit);
                        }
                    }
                    continue;
                }
                for_each_schema(child, visit);
            }
        }
        Value::Array(items) => {
            for item in items {
                for_each_schema(item, visit);
            }
        }
        _ => {}
    }
}

/// Whether `visit` holds for a subschema of `value`, itself included, as [`for_each_schema`]
/// visits them.
fn any_schema(value: &Value, visit: &mut impl FnMut(&Map<String, Value>) -> bool) -> bool {
    crate::stack::recurse(|| any_schema_here(value, visit))
}

fn any_schema_here(value: &Value, visit: &mut impl FnMut(&Map<String, Value>) -> bool) -> bool {
    match value {
        Value::Object(map) => {
            visit(map)
                || map.iter().any(|(key, child)| match key.as_str() {
                    "const" | "enum" | "default" | "examples" => false,
                    "properties" => match child {
                        Value::Object(properties) => properties
                            .values()
                            .any(|property| any_schema(property, visit)),
                        _ => false,
                    },
                    _ => any_schema(child, visit),
                })
        }
        Value::Array(items) => items.iter().any(|item| any_schema(item, visit)),
        _ => false,
    }
}

fn loosen_tuples(schema: &mut Value) {
    for_each_schema(schema, &mut |node| {
        let Some(Value::Array(positions)) = node.get("prefixItems") else {
            return;
        };
        let mut accepted: Vec<Value> = positions.clone();
        match node.get("items") {
            Some(Value::Bool(false)) | None => {}
            Some(rest) => accepted.push(rest.clone()),
        }
        if accepted.is_empty() {
            // An empty tuple: `maxItems: 0` already says it all.
            node.remove("items");
        } else {
            node.insert("items".to_owned(), json!({ "anyOf": accepted }));
        }
    });
}

fn drop_formats(schema: &mut Value) {
    for_each_schema(schema, &mut |node| {
        if node.get("format").is_some_and(Value::is_string) {
            node.remove("format");
        }
    });
}

fn add_missing_properties(schema: &mut Value) {
    for_each_schema(schema, &mut |node| {
        if lacks_properties(node) {
            node.insert("properties".to_owned(), json!({}));
        }
    });
}

/// An object schema without `properties`, which Codex needs.
fn lacks_properties(node: &Map<String, Value>) -> bool {
    node.get("type").and_then(Value::as_str) == Some("object") && !node.contains_key("properties")
}

fn split_type_lists(schema: &mut Value) {
    for_each_schema(schema, &mut |node| {
        let Some(Value::Array(kinds)) = node.get("type") else {
            return;
        };
        let branches: Vec<Value> = kinds.iter().map(|kind| json!({ "type": kind })).collect();
        node.remove("type");
        // A node that already has `anyOf` keeps it: the two must both hold.
        let key = if node.contains_key("anyOf") {
            "allOf"
        } else {
            "anyOf"
        };
        let combined = match (key, node.remove("allOf")) {
            ("allOf", Some(Value::Array(mut all))) => {
                all.push(json!({ "anyOf": branches }));
                Value::Array(all)
            }
            ("allOf", _) => json!([{ "anyOf": branches }]),
            _ => Value::Array(branches),
        };
        node.insert(key.to_owned(), combined);
    });
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{Profile, differs_from_canonical, project, project_canonical_form, project_owned};

    #[test]
    fn no_profile_writes_items_false() {
        let tuple = json!({"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}], "items": false, "minItems": 2, "maxItems": 2});
        for profile in Profile::ALL {
            let projected = project(&tuple, profile, false).unwrap();
            assert_eq!(
                projected["items"],
                json!({"anyOf": [{"type": "string"}, {"type": "number"}]}),
                "{}",
                profile.name()
            );
            assert_eq!(projected["maxItems"], json!(2));
        }
        let rest = json!({"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "number"}, "minItems": 1});
        let projected = project(&rest, Profile::Canonical, false).unwrap();
        assert_eq!(
            projected["items"],
            json!({"anyOf": [{"type": "string"}, {"type": "number"}]})
        );
        assert_eq!(projected.get("maxItems"), None);
        let lax = project(&tuple, Profile::Draft07Lax, false).unwrap();
        assert_eq!(lax["$schema"], json!(super::DRAFT_07));
    }

    #[test]
    fn differs_from_canonical_says_whether_the_projection_is_another_form() {
        let schemas = [
            json!({"$schema": super::DRAFT_2020_12, "type": "object", "properties": {"a": {"type": "string", "format": "uri"}}}),
            json!({"$schema": super::DRAFT_2020_12, "type": "object", "properties": {"tags": {"type": "object", "additionalProperties": {"type": "string"}}}}),
            json!({"$schema": super::DRAFT_2020_12, "type": "object", "properties": {"pair": {"type": "array", "prefixItems": [{"type": "object"}], "items": false}}}),
            json!({"$schema": super::DRAFT_2020_12, "type": "object", "properties": {"n": {"type": ["string", "null"]}}}),
            json!({"$schema": super::DRAFT_2020_12, "type": "object", "properties": {"c": {"const": {"type": "object"}, "default": {"type": "object"}}}}),
            json!({"$schema": super::DRAFT_2020_12, "type": "object", "properties": {"type": {"type": "string"}}}),
        ];
        for schema in &schemas {
            let canonical = project(schema, Profile::Canonical, true).unwrap();
            for profile in Profile::ALL {
                let projected = project(schema, profile, true).unwrap();
                assert_eq!(
                    differs_from_canonical(profile, &canonical),
                    projected != canonical,
                    "{} of {schema}",
                    profile.name()
                );
            }
        }
    }

    #[test]
    fn every_projection_made_from_the_canonical_form_is_the_projection() {
        let schemas = [
            json!({"$schema": super::DRAFT_2020_12, "type": "object", "properties": {"pair": {"type": "array", "prefixItems": [{"type": "object"}, {"type": ["string", "null"], "format": "uri"}], "items": false}}}),
            json!({"type": "object", "properties": {"rest": {"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "object"}, "minItems": 1}}}),
            json!({"type": "array", "prefixItems": [], "items": false, "maxItems": 0}),
            json!({"anyOf": [{"type": "object"}, {"type": "null"}]}),
        ];
        for schema in &schemas {
            let canonical = project_owned(schema.clone(), Profile::Canonical, false).unwrap();
            assert_eq!(
                canonical,
                project(schema, Profile::Canonical, false).unwrap()
            );
            for profile in Profile::ALL {
                for input in [false, true] {
                    let direct = project(schema, profile, input);
                    let from_canonical = project_canonical_form(&canonical, profile, input);
                    // Compared as text: members in the same order too.
                    assert_eq!(
                        direct.as_ref().ok().map(ToString::to_string),
                        from_canonical.as_ref().ok().map(ToString::to_string),
                        "{} of {schema}",
                        profile.name()
                    );
                    assert_eq!(direct.is_err(), from_canonical.is_err());
                }
            }
        }
    }

    #[test]
    fn host_profiles_refuse_root_combinators() {
        let union = json!({"anyOf": [{"type": "object"}, {"type": "null"}]});
        for profile in [Profile::Claude, Profile::Codex, Profile::Cursor] {
            assert!(project(&union, profile, true).is_err());
            assert!(project(&union, profile, false).is_ok());
        }
    }

    #[test]
    fn cursor_splits_type_lists() {
        let nullable = json!({"type": "object", "properties": {"a": {"type": ["string", "null"], "minLength": 1}}});
        let projected = project(&nullable, Profile::Cursor, true).unwrap();
        assert_eq!(
            projected["properties"]["a"],
            json!({"anyOf": [{"type": "string"}, {"type": "null"}], "minLength": 1})
        );
    }
}
