//! Projections of a printed JSON Schema 2020-12 for dialects and hosts, selected by a profile
//! name: `2020-12` (canonical), `draft-07-lax`, and the host profiles `claude`, `codex`,
//! `cursor`.
//!
//! Entry calls: [`Profile::parse`], [`project`], and [`ProfileForm`], which writes a host's form
//! from the canonical one as it is serialized (every projection past the canonical form is that
//! writing; [`project`] writes it into a `Value`). They work on printed JSON (not the compiler's
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

use serde::Serialize;
use serde::ser::{SerializeMap, SerializeSeq, Serializer};
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
    Ok(match Edits::of(profile) {
        Some(edits) => form_value(canonical, profile, edits),
        None => with_draft(canonical.clone(), profile),
    })
}

/// The steps of a projection after tuples are loosened.
fn finish_projection(projected: Value, profile: Profile) -> Value {
    match Edits::of(profile) {
        Some(edits) => form_value(&projected, profile, edits),
        None => with_draft(projected, profile),
    }
}

/// `schema` with the `$schema` of `profile` at its root.
fn with_draft(mut schema: Value, profile: Profile) -> Value {
    if let Value::Object(root) = &mut schema {
        root.insert("$schema".to_owned(), json!(profile.draft()));
    }
    schema
}

/// The tree of [`ProfileForm`].
fn form_value(canonical: &Value, profile: Profile, edits: Edits) -> Value {
    SchemaView {
        value: canonical,
        form: Form {
            edits,
            marks_unchanged: false,
        },
        root: Some(profile.draft()),
    }
    .serialize(serde_json::value::Serializer)
    .expect("a JSON value has string keys")
}

/// A host profile's form of a schema, written from the schema's canonical form as it is
/// serialized: what [`project_canonical_form`] gives, with no tree made (the root rule aside,
/// which the caller checks with [`check_input_root`]). The manifest writes host forms this way.
///
/// Each subschema below the root that the profile leaves as it is in the canonical form is
/// handed to the serializer as the newtype struct [`UNCHANGED_SUBSCHEMA`] of that very value of
/// the canonical tree. A newtype is its value to every serializer, so the text is the same; one
/// that has just written the canonical form (the manifest's writer) may copy what it wrote for
/// the value instead of writing it again.
#[derive(Clone, Copy, Debug)]
pub struct ProfileForm<'a> {
    canonical: &'a Value,
    profile: Profile,
}

impl<'a> ProfileForm<'a> {
    pub fn new(canonical: &'a Value, profile: Profile) -> Self {
        Self { canonical, profile }
    }
}

impl Serialize for ProfileForm<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        SchemaView {
            value: self.canonical,
            form: Form {
                edits: Edits::of(self.profile).unwrap_or_default(),
                marks_unchanged: true,
            },
            root: Some(self.profile.draft()),
        }
        .serialize(serializer)
    }
}

/// What a profile changes in every subschema of a canonical form, besides the root's
/// `$schema`.
#[derive(Clone, Copy, Debug, Default)]
struct Edits {
    /// `format` is left out (draft-07 validators may assert it).
    drop_formats: bool,
    /// A type list `type: [A, B]` becomes `anyOf` of single types (Cursor's client rejects
    /// type lists).
    split_type_lists: bool,
    /// An object schema without `properties` gets `properties: {}` (Codex needs it).
    add_missing_properties: bool,
}

impl Edits {
    /// The edits of `profile`; `None` for a profile that only sets `$schema`.
    const fn of(profile: Profile) -> Option<Self> {
        let edits = match profile {
            Profile::Canonical | Profile::Claude => return None,
            Profile::Draft07Lax => Edits {
                drop_formats: true,
                split_type_lists: false,
                add_missing_properties: false,
            },
            Profile::Codex => Edits {
                drop_formats: false,
                split_type_lists: false,
                add_missing_properties: true,
            },
            Profile::Cursor => Edits {
                drop_formats: true,
                split_type_lists: true,
                add_missing_properties: false,
            },
        };
        Some(edits)
    }

    /// Whether these edits change `node` itself (not its subschemas); a root's `$schema` aside.
    fn change(self, node: &Map<String, Value>) -> bool {
        (self.drop_formats && member(node, "format").is_some_and(Value::is_string))
            || (self.split_type_lists && member(node, "type").is_some_and(Value::is_array))
            || (self.add_missing_properties && lacks_properties(node))
    }
}

/// The name of the newtype struct a [`ProfileForm`] hands its serializer a subschema in when
/// the profile leaves the subschema as the canonical form has it; the newtype's value is that
/// subschema of the canonical tree itself, so a serializer may know it by its address.
pub const UNCHANGED_SUBSCHEMA: &str = "$abgen::schema_profile::UnchangedSubschema";

/// How a [`SchemaView`] writes: the edits it makes, and whether it hands the serializer each
/// subschema the edits leave as it is as an [`UNCHANGED_SUBSCHEMA`].
#[derive(Clone, Copy, Debug)]
struct Form {
    edits: Edits,
    marks_unchanged: bool,
}

/// A value standing where a schema stands, serialized as `form` says; `root` is the
/// `$schema` the document's root gets. Subschemas are found as [`for_each_schema`] finds them.
struct SchemaView<'a> {
    value: &'a Value,
    form: Form,
    root: Option<&'static str>,
}

impl SchemaView<'_> {
    fn child(value: &Value, form: Form) -> SchemaView<'_> {
        SchemaView {
            value,
            form,
            root: None,
        }
    }

    /// Whether this view is written as the canonical form writes its value: below the root
    /// (whose `$schema` is the profile's), a container none of whose subschemas the edits
    /// change.
    fn is_unchanged(&self) -> bool {
        self.root.is_none()
            && matches!(self.value, Value::Object(_) | Value::Array(_))
            && !any_schema(self.value, &mut |node| self.form.edits.change(node))
    }
}

impl Serialize for SchemaView<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.form.marks_unchanged && self.is_unchanged() {
            return serializer.serialize_newtype_struct(UNCHANGED_SUBSCHEMA, self.value);
        }
        match self.value {
            Value::Object(node) => crate::stack::recurse(|| self.node(node, serializer)),
            Value::Array(items) => crate::stack::recurse(|| {
                serializer.collect_seq(items.iter().map(|item| Self::child(item, self.form)))
            }),
            scalar => scalar.serialize(serializer),
        }
    }
}

impl SchemaView<'_> {
    fn node<S: Serializer>(
        &self,
        node: &Map<String, Value>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        let edits = self.form.edits;
        let type_list = match member(node, "type") {
            Some(Value::Array(kinds)) if edits.split_type_lists => Some(kinds),
            _ => None,
        };
        // A node that already has `anyOf` keeps it: the type's branches join `allOf`, as both
        // must hold.
        let joins_all_of = type_list.is_some() && member(node, "anyOf").is_some();
        let mut map = serializer.serialize_map(None)?;
        for (key, value) in node {
            match key.as_str() {
                "$schema" if self.root.is_some() => map.serialize_entry(key, &self.root)?,
                "format" if edits.drop_formats && value.is_string() => {}
                "type" if type_list.is_some() => {
                    let branches = TypeBranches {
                        kinds: type_list.map_or(&[][..], Vec::as_slice),
                        form: self.form,
                    };
                    if joins_all_of {
                        let all_of = AllOfWithBranches {
                            all_of: member(node, "allOf"),
                            branches,
                            form: self.form,
                        };
                        map.serialize_entry("allOf", &all_of)?;
                    } else {
                        map.serialize_entry("anyOf", &branches)?;
                    }
                }
                "allOf" if joins_all_of => {}
                // Values of these keywords are data, not schemas.
                "const" | "enum" | "default" | "examples" => map.serialize_entry(key, value)?,
                "properties" => match value {
                    Value::Object(properties) => {
                        let properties = Properties {
                            properties,
                            form: self.form,
                        };
                        map.serialize_entry(key, &properties)?;
                    }
                    _ => map.serialize_entry(key, value)?,
                },
                _ => map.serialize_entry(key, &Self::child(value, self.form))?,
            }
        }
        if let Some(draft) = self.root
            && member(node, "$schema").is_none()
        {
            map.serialize_entry("$schema", draft)?;
        }
        if edits.add_missing_properties && lacks_properties(node) {
            map.serialize_entry("properties", &Map::new())?;
        }
        map.end()
    }
}

/// A `properties` map: each value a subschema.
struct Properties<'a> {
    properties: &'a Map<String, Value>,
    form: Form,
}

impl Serialize for Properties<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(
            self.properties
                .iter()
                .map(|(name, property)| (name, SchemaView::child(property, self.form))),
        )
    }
}

/// The branches a type list becomes: `{"type": A}` for each of its types.
#[derive(Clone, Copy)]
struct TypeBranches<'a> {
    kinds: &'a [Value],
    form: Form,
}

impl Serialize for TypeBranches<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.kinds.len()))?;
        // A branch is made here, so it is in no canonical tree: it is written, never marked.
        let form = Form {
            marks_unchanged: false,
            ..self.form
        };
        for kind in self.kinds {
            let branch = json!({ "type": kind });
            seq.serialize_element(&SchemaView::child(&branch, form))?;
        }
        seq.end()
    }
}

/// A node's `allOf` (its subschemas, if it is a list) followed by `{"anyOf": branches}`.
struct AllOfWithBranches<'a> {
    all_of: Option<&'a Value>,
    branches: TypeBranches<'a>,
    form: Form,
}

impl Serialize for AllOfWithBranches<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(None)?;
        if let Some(Value::Array(all_of)) = self.all_of {
            for schema in all_of {
                seq.serialize_element(&SchemaView::child(schema, self.form))?;
            }
        }
        seq.serialize_element(&AnyOf(self.branches))?;
        seq.end()
    }
}

/// `{"anyOf": branches}`.
struct AnyOf<'a>(TypeBranches<'a>);

impl Serialize for AnyOf<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(1))?;
        map.serialize_entry("anyOf", &self.0)?;
        map.end()
    }
}

/// Whether `profile`'s form of a schema differs from the schema's canonical form `canonical`
/// (the projection of [`Profile::Canonical`]); the root rule of a host profile, which
/// [`check_input_root`] decides, aside. Cheaper than [`project`]: nothing is copied. A manifest
/// writes a host's form only where it differs.
pub fn differs_from_canonical(profile: Profile, canonical: &Value) -> bool {
    match profile {
        Profile::Canonical | Profile::Claude => false,
        // Its only edits change subschemas, never the root's `$schema`.
        Profile::Codex => Edits::of(profile)
            .is_some_and(|edits| any_schema(canonical, &mut |node| edits.change(node))),
        // Their `$schema` differs at any object root; a boolean schema is its own form.
        Profile::Draft07Lax | Profile::Cursor => !canonical.is_boolean(),
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
        let Some(Value::Array(positions)) = member(node, "prefixItems") else {
            return;
        };
        let mut accepted: Vec<Value> = positions.clone();
        match member(node, "items") {
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

/// An object schema without `properties`, which Codex needs.
fn lacks_properties(node: &Map<String, Value>) -> bool {
    member(node, "type").and_then(Value::as_str) == Some("object")
        && member(node, "properties").is_none()
}

/// The member `key` of a schema node, found by a scan: a node has a handful of members, and
/// comparing their keys costs less than hashing one (`serde_json`'s maps hash with SipHash).
fn member<'n>(node: &'n Map<String, Value>, key: &str) -> Option<&'n Value> {
    node.iter()
        .find_map(|(name, value)| (name == key).then_some(value))
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
    fn a_boolean_schema_is_its_own_form_for_every_profile() {
        for profile in Profile::ALL {
            assert_eq!(project(&json!(true), profile, false), Ok(json!(true)));
            assert!(
                !differs_from_canonical(profile, &json!(true)),
                "{}",
                profile.name()
            );
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
    fn cursor_keeps_the_all_of_beside_a_split_type_list() {
        let both = json!({"type": ["string", "null"], "allOf": [{"minLength": 1}]});
        assert_eq!(
            project(&both, Profile::Cursor, false).unwrap(),
            json!({"$schema": super::DRAFT_07, "anyOf": [{"type": "string"}, {"type": "null"}], "allOf": [{"minLength": 1}]})
        );
        let any_of = json!({"type": ["string", "null"], "anyOf": [{"maxLength": 3}], "allOf": [{"minLength": 1, "format": "uri"}]});
        assert_eq!(
            project(&any_of, Profile::Cursor, false).unwrap(),
            json!({"$schema": super::DRAFT_07, "anyOf": [{"maxLength": 3}], "allOf": [{"minLength": 1}, {"anyOf": [{"type": "string"}, {"type": "null"}]}]})
        );
    }

    #[test]
    fn a_profile_form_written_from_the_canonical_form_is_its_projection() {
        let canonical = json!({"$schema": super::DRAFT_2020_12, "type": "object", "properties": {
            "z": {"type": ["string", "null"], "format": "email"},
            "a": {"type": "object", "additionalProperties": {"type": "string", "format": "uri"}},
            "d": {"const": {"type": ["x"], "format": "kept"}, "default": {"type": "object"}},
            "t": {"type": "array", "prefixItems": [{"type": "object"}], "items": {"anyOf": [{"type": "object"}]}}
        }, "required": ["z"]});
        for profile in Profile::ALL {
            let written =
                serde_json::to_string(&super::ProfileForm::new(&canonical, profile)).unwrap();
            let projected = project_canonical_form(&canonical, profile, true).unwrap();
            assert_eq!(written, projected.to_string(), "{}", profile.name());
        }
        let cursor = project_canonical_form(&canonical, Profile::Cursor, true).unwrap();
        assert_eq!(
            cursor["properties"]["z"],
            json!({"anyOf": [{"type": "string"}, {"type": "null"}]})
        );
        assert_eq!(cursor["properties"]["d"], canonical["properties"]["d"]);
        let codex = project_canonical_form(&canonical, Profile::Codex, true).unwrap();
        assert_eq!(codex["properties"]["a"]["properties"], json!({}));
        assert_eq!(
            codex["properties"]["t"]["prefixItems"][0]["properties"],
            json!({})
        );
        assert_eq!(codex["properties"]["d"], canonical["properties"]["d"]);
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
