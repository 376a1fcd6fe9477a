//! Every golden manifest under `fixtures/manifests/` is valid against
//! `schemas/abgen-manifest.schema.json`, round-trips through the Rust types unchanged, and is
//! readable by the hook client's slice; the schema refuses what the types would not write.

use std::path::{Path, PathBuf};

use abgen_runtime::manifest::{
    MANIFEST_VERSION, Manifest, ManifestReadError, read_hook_view, read_manifest,
};
use serde_json::{Value, json};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn validator() -> jsonschema::Validator {
    let text = std::fs::read_to_string(repo().join("schemas/abgen-manifest.schema.json")).unwrap();
    jsonschema::draft202012::new(&serde_json::from_str::<Value>(&text).unwrap()).unwrap()
}

fn goldens() -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(repo().join("fixtures/manifests"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            path.extension()
                .is_some_and(|extension| extension == "json")
        })
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no golden manifests");
    paths
}

fn errors(validator: &jsonschema::Validator, value: &Value) -> Vec<String> {
    validator
        .iter_errors(value)
        .map(|error| format!("{error} at {}", error.instance_path()))
        .collect()
}

#[test]
fn golden_manifests_are_valid_and_round_trip() {
    let validator = validator();
    for path in goldens() {
        let value: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(
            errors(&validator, &value),
            Vec::<String>::new(),
            "{}",
            path.display()
        );
        let manifest: Manifest = serde_json::from_value(value.clone()).unwrap();
        assert_eq!(
            serde_json::to_value(&manifest).unwrap(),
            value,
            "{} round-trips",
            path.display()
        );
        assert_eq!(read_manifest(&path).unwrap(), manifest);
        let view = read_hook_view(&path).unwrap();
        assert_eq!((view.digest, view.hooks), (manifest.digest, manifest.hooks));
    }
}

/// The manifest's first route of `kind`.
fn first_route<'m>(manifest: &'m mut Value, kind: &str) -> &'m mut Value {
    manifest["routes"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|route| route["kind"] == kind)
        .unwrap()
}

#[test]
fn the_schema_refuses_broken_manifests() {
    let validator = validator();
    let golden: Value =
        serde_json::from_str(&std::fs::read_to_string(&goldens()[0]).unwrap()).unwrap();
    let broken = |edit: fn(&mut Value)| {
        let mut value = golden.clone();
        edit(&mut value);
        value
    };
    let cases: [(&str, Value); 10] = [
        (
            "unknown top-level member",
            broken(|m| m["extra"] = json!(1)),
        ),
        (
            "another manifest version",
            broken(|m| m["manifestVersion"] = json!(1)),
        ),
        (
            "a digest that is not sha256",
            broken(|m| m["digest"] = json!("abc")),
        ),
        (
            "the manifest listing itself",
            broken(|m| m["files"][0]["path"] = json!("abgen.manifest.json")),
        ),
        (
            "a runtime schema with a JSON Schema",
            broken(|m| {
                let route = first_route(m, "tool");
                route["schemas"]["input"] = json!({ "source": "runtime", "jsonSchema": {} });
            }),
        ),
        (
            "a task support that is not one of the three",
            broken(|m| {
                let route = first_route(m, "tool");
                route["config"]["execution"] = json!({ "taskSupport": "always" });
            }),
        ),
        (
            "an execution block on a resource route",
            broken(|m| {
                let route = first_route(m, "resource");
                route["config"]["execution"] = json!({ "taskSupport": "optional" });
            }),
        ),
        (
            "a tool whose module is outside src/",
            broken(|m| {
                let route = first_route(m, "tool");
                route["source"] = json!("views/search.tsx");
            }),
        ),
        (
            "an App whose entry escapes the project",
            broken(|m| {
                let route = first_route(m, "app");
                route["source"] = json!("../views/viewer.tsx");
            }),
        ),
        (
            "an event route with a server",
            broken(|m| {
                let route = first_route(m, "event");
                route["server"] = json!("library");
            }),
        ),
    ];
    for (case, value) in cases {
        assert!(
            !errors(&validator, &value).is_empty(),
            "the schema accepts {case}"
        );
    }
}

#[test]
fn another_manifest_version_is_refused_by_name() {
    let temp = tempfile::tempdir().unwrap();
    let manifest = temp.path().join("abgen.manifest.json");
    let another = u64::from(MANIFEST_VERSION) + 1;
    std::fs::write(
        &manifest,
        format!(r#"{{"manifestVersion": {another}, "hooks": {{}}}}"#),
    )
    .unwrap();
    let error = read_hook_view(&manifest).unwrap_err();
    assert!(
        matches!(error, ManifestReadError::Version { found, .. } if found == another),
        "{error}"
    );
    assert!(
        error
            .to_string()
            .contains(&format!("reads version {MANIFEST_VERSION}"))
    );
}
