//! What a built manifest carries for each way a schema is known: a literal
//! `inputJsonSchema` / `outputJsonSchema` verbatim, a translated schema with the projection of
//! every selected host's profile (here Claude and Cursor), properties in the author's order.

use std::path::{Path, PathBuf};

use abgen::emit::{BuildOptions, build_project};
use abgen_runtime::manifest::{Manifest, SchemaSource};
use serde_json::json;

mod support;

/// The fixture, copied into `temp`: a build writes `.agent-bundle/` into its project, and the
/// repository's fixtures are inputs of the project snapshots.
fn fixture(temp: &Path) -> PathBuf {
    let project = temp.join("valid-schema-sources");
    support::copy_project(
        &support::repo().join("fixtures/projects/valid-schema-sources"),
        &project,
    );
    project
}

#[test]
fn manifest_carries_literal_static_and_profile_schemas() {
    let temp = tempfile::tempdir().unwrap();
    let host = temp.path().join("abgen-host");
    std::fs::write(&host, "#!/bin/sh\nexit 2\n").unwrap();
    let built = build_project(&BuildOptions {
        root: fixture(temp.path()),
        targets: None,
        out: Some(temp.path().join("artifact")),
        host_binary: Some(host),
        platforms: None,
        node_modules: None,
        worker: Default::default(),
    })
    .unwrap_or_else(|failure| panic!("{failure}: {failure:?}"));
    // The planned routes carry their schemas in the manifest's text alone: read it as written.
    let written =
        std::fs::read_to_string(temp.path().join("artifact/abgen.manifest.json")).unwrap();
    let manifest: Manifest = serde_json::from_str(&written).unwrap();
    let route = |id: &str| manifest.routes.iter().find(|route| route.id == id).unwrap();

    let literal = &route("tool:shelf/literal").schemas;
    let (input, result) = (
        literal.input.as_ref().unwrap(),
        literal.result.as_ref().unwrap(),
    );
    assert_eq!(input.source, SchemaSource::Literal);
    assert_eq!(
        input.json_schema.as_ref().unwrap()["properties"]["id"]["minLength"],
        1
    );
    assert_eq!(result.source, SchemaSource::Literal);
    assert!(
        !route("tool:shelf/literal")
            .config
            .contains_key("outputJsonSchema")
    );

    let pair = &route("tool:shelf/pair").schemas;
    let input = pair.input.as_ref().unwrap();
    assert_eq!(input.source, SchemaSource::Static);
    let canonical = input.json_schema.as_ref().unwrap();
    // Seed 002: a tuple is never `items: false`, in the canonical form either.
    assert_eq!(
        canonical["properties"]["pair"]["items"],
        json!({ "anyOf": [{ "type": "string" }, canonical["properties"]["pair"]["prefixItems"][1]] })
    );
    assert_eq!(canonical["properties"]["pair"]["maxItems"], json!(2));
    // Claude Code's profile gives the canonical form back, so the manifest leaves it out (the
    // runtime serves an absent profile the canonical form); Cursor's differs.
    let hosts: Vec<&str> = input.profiles.keys().map(String::as_str).collect();
    assert_eq!(hosts, ["cursor"]);
    let cursor = &input.profiles["cursor"].json_schema.to_value();
    assert_eq!(cursor["$schema"], "http://json-schema.org/draft-07/schema#");
    assert_eq!(
        cursor["properties"]["pair"]["items"],
        json!({ "anyOf": [{ "type": "string" }, canonical["properties"]["pair"]["prefixItems"][1]] })
    );
    assert_eq!(
        cursor["properties"]["note"],
        json!({ "anyOf": [{ "type": "string" }, { "type": "null" }] })
    );
    // The written manifest keeps the author's property order in every projection.
    let written = &built.emitted.artifact.manifest_text.to_string();
    let cursor_text = &written[written.find("\"cursor\": {\n").unwrap()..];
    assert!(cursor_text.find("\"pair\"").unwrap() < cursor_text.find("\"note\"").unwrap());
    assert_eq!(pair.result.as_ref().unwrap().source, SchemaSource::Static);
}
