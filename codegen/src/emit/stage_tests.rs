use std::fs;

use std::path::Path;

use super::stage_artifact;
use crate::emit::error::EmitError;
use crate::emit::output::claim_output;
use crate::emit::plan::{FilePlan, MODE_EXECUTABLE, MODE_FILE};

/// Claims `out` for a project beside it and stages `plan` there, as a build does.
pub(crate) fn stage(plan: &FilePlan, manifest: &[u8], out: &Path) -> Result<(), EmitError> {
    let project = out.with_file_name("project");
    let claim = claim_output(&project, out)?;
    stage_artifact(plan, "abgen.manifest.json", &[manifest], &claim)
}

/// The least manifest its schema accepts, with the file table of `plan`.
pub(crate) fn manifest_for(plan: &FilePlan) -> String {
    let mut manifest: serde_json::Value = serde_json::from_str(&minimal_manifest()).unwrap();
    manifest["files"] = serde_json::to_value(plan.file_table()).unwrap();
    format!("{manifest}\n")
}

#[test]
fn writes_every_file_then_replaces_the_previous_output() {
    let temp = tempfile::tempdir().unwrap();
    let out = temp.path().join("artifact");
    let mut previous = FilePlan::default();
    previous.add("stale.txt", "old", MODE_FILE).unwrap();
    stage(&previous, manifest_for(&previous).as_bytes(), &out).unwrap();
    assert!(out.join("stale.txt").is_file());
    let mut plan = FilePlan::default();
    plan.add("bin/tool", "#!/bin/sh\n", MODE_EXECUTABLE)
        .unwrap();
    plan.add("a/b/c.json", "{}\n", MODE_FILE).unwrap();
    let manifest = manifest_for(&plan);
    stage(&plan, manifest.as_bytes(), &out).unwrap();
    assert!(!out.join("stale.txt").exists());
    assert_eq!(fs::read_to_string(out.join("a/b/c.json")).unwrap(), "{}\n");
    assert_eq!(
        fs::read_to_string(out.join("abgen.manifest.json")).unwrap(),
        manifest
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(out.join("bin/tool"))
            .unwrap()
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, 0o755);
    }
    let leftovers: Vec<_> = fs::read_dir(temp.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .collect();
    assert_eq!(leftovers, ["artifact"]);
}

#[test]
fn a_planned_path_is_claimed_once() {
    let mut plan = FilePlan::default();
    plan.add("x.json", "1", MODE_FILE).unwrap();
    assert!(matches!(
        plan.add("x.json", "2", MODE_FILE),
        Err(EmitError::DuplicatePath(_))
    ));
    assert!(matches!(
        plan.add("abgen.manifest.json", "3", MODE_FILE),
        Err(EmitError::DuplicatePath(_))
    ));
}

/// The least manifest its schema accepts.
pub(crate) fn minimal_manifest() -> String {
    let manifest = serde_json::json!({
        "manifestVersion": abgen_runtime::manifest::MANIFEST_VERSION,
        "application": { "name": "t", "version": "0.0.0" },
        "digest": "0".repeat(64),
        "react": abgen_runtime::manifest::REACT_VERSION,
        "workerProtocol": abgen_runtime::manifest::WORKER_PROTOCOL_VERSION,
        "hooks": {},
        "limits": abgen_runtime::manifest::Limits::default(),
        "routes": [],
        "servers": [],
        "cli": {"bin": "t", "commands": []},
        "files": [],
    });
    format!("{manifest}\n")
}

#[test]
fn a_staged_tree_that_fails_verification_changes_nothing() {
    let temp = tempfile::tempdir().unwrap();
    let out = temp.path().join("artifact");
    let mut previous = FilePlan::default();
    previous.add("kept.txt", "old", MODE_FILE).unwrap();
    stage(&previous, manifest_for(&previous).as_bytes(), &out).unwrap();
    let mut plan = FilePlan::default();
    plan.add("broken.json", "{", MODE_FILE).unwrap();
    let error = stage(&plan, minimal_manifest().as_bytes(), &out).unwrap_err();
    assert!(
        error.to_string().contains("broken.json is not JSON"),
        "{error}"
    );
    let mut plan = FilePlan::default();
    plan.add("fine.json", "{}", MODE_FILE).unwrap();
    let error = stage(&plan, b"{}\n", &out).unwrap_err();
    assert!(
        error.to_string().contains("cannot read the manifest"),
        "{error}"
    );
    // A manifest the hook client can read but that breaks the manifest's schema.
    let mut manifest: serde_json::Value = serde_json::from_str(&minimal_manifest()).unwrap();
    manifest["react"] = "next".into();
    let error = stage(&plan, format!("{manifest}\n").as_bytes(), &out).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("breaks schemas/abgen-manifest.schema.json at `/react`"),
        "{error}"
    );
    assert_eq!(fs::read_to_string(out.join("kept.txt")).unwrap(), "old");
    let names: Vec<_> = fs::read_dir(temp.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .collect();
    assert_eq!(names, ["artifact"]);
}

/// What lets a manifest written from kept route fragments be checked in parts (see
/// `check_manifest_parts`): `routes` judges each item alone against `#/$defs/route`, and no keyword
/// of the schema looks across the items of an array or through a dynamic reference.
#[test]
fn manifest_schema_judges_each_route_alone() {
    fn no_cross_item_keyword(value: &serde_json::Value, at: &str) {
        match value {
            serde_json::Value::Object(map) => {
                for (key, value) in map {
                    let crossing = [
                        "uniqueItems",
                        "contains",
                        "minContains",
                        "maxContains",
                        "unevaluatedItems",
                        "$dynamicRef",
                        "$recursiveRef",
                    ];
                    assert!(!crossing.contains(&key.as_str()), "{at}/{key}");
                    no_cross_item_keyword(value, &format!("{at}/{key}"));
                }
            }
            serde_json::Value::Array(items) => {
                for (index, item) in items.iter().enumerate() {
                    no_cross_item_keyword(item, &format!("{at}/{index}"));
                }
            }
            _ => {}
        }
    }
    let schema = super::manifest_schema();
    assert_eq!(
        schema["properties"]["routes"],
        serde_json::json!({ "type": "array", "items": { "$ref": "#/$defs/route" } })
    );
    no_cross_item_keyword(&schema, "");
}

/// What lets the route check read a `jsonSchema` for its kind alone (see
/// `super::super::route_check`): wherever the manifest schema names a `jsonSchema` member, it asks
/// only that it be an object or a boolean.
#[test]
fn manifest_schema_reads_only_the_kind_of_a_schema_form() {
    fn schema_forms(value: &serde_json::Value, found: &mut Vec<serde_json::Value>) {
        match value {
            serde_json::Value::Object(map) => {
                if let Some(form) = map
                    .get("properties")
                    .and_then(|properties| properties.get("jsonSchema"))
                {
                    found.push(form.clone());
                }
                map.values().for_each(|value| schema_forms(value, found));
            }
            serde_json::Value::Array(items) => {
                items.iter().for_each(|item| schema_forms(item, found))
            }
            _ => {}
        }
    }
    let mut found = Vec::new();
    schema_forms(&super::manifest_schema(), &mut found);
    assert_eq!(found.len(), 2, "the canonical form and a profile's");
    for form in found {
        assert_eq!(form, serde_json::json!({ "type": ["object", "boolean"] }));
    }
}

#[test]
fn a_manifest_checked_in_parts_names_the_route_that_breaks_its_schema() {
    let temp = tempfile::tempdir().unwrap();
    fs::write(temp.path().join("abgen.manifest.json"), minimal_manifest()).unwrap();
    let without_routes: serde_json::Value = serde_json::from_str(&minimal_manifest()).unwrap();
    let route = crate::emit::route_check::RouteForCheck {
        value: serde_json::json!({ "id": 3 }),
        depth: 3,
    };
    let error = super::check_written_route("abgen.manifest.json", 7, &route).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("breaks schemas/abgen-manifest.schema.json at `/routes/7"),
        "{error}"
    );
    let plan = FilePlan::default();
    let verify = |check: Option<&crate::emit::reuse::ManifestCheck<'_>>| match check {
        Some(check) => super::check_manifest_parts("abgen.manifest.json", check),
        None => super::verify_documents(&plan, "abgen.manifest.json", temp.path(), false),
    };
    let check = crate::emit::reuse::ManifestCheck {
        without_routes: &without_routes,
    };
    assert!(verify(Some(&check)).is_ok());
    let mut broken = without_routes.clone();
    broken["react"] = "next".into();
    let check = crate::emit::reuse::ManifestCheck {
        without_routes: &broken,
    };
    let error = verify(Some(&check)).unwrap_err();
    assert!(error.to_string().contains("at `/react`"), "{error}");
    assert!(verify(None).is_ok());
    // A route nested deeper than the manifest's reader reads is refused, whatever it holds.
    let deep = crate::emit::route_check::RouteForCheck {
        value: serde_json::json!({ "id": 3 }),
        depth: 128,
    };
    let error = super::check_written_route("abgen.manifest.json", 2, &deep).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("nests `/routes/2` 128 arrays and objects deep"),
        "{error}"
    );
}

/// The manifest's pieces go to the file many to a `writev`, more of them than one call takes,
/// empty ones among them.
#[test]
fn pieces_are_written_in_order_past_one_call_s_slices() {
    let temp = tempfile::tempdir().unwrap();
    // Empty pieces first, more than a call takes.
    let texts: Vec<String> = (0..3 * super::IOV_MAX + 7)
        .map(|index| match index {
            ..1100 => String::new(),
            _ => "x".repeat(index % 17) + &index.to_string(),
        })
        .collect();
    let pieces: Vec<&[u8]> = texts.iter().map(|text| text.as_bytes()).collect();
    super::write_pieces(temp.path(), "a/m.json", &pieces, 0o644).unwrap();
    assert_eq!(
        fs::read(temp.path().join("a/m.json")).unwrap(),
        pieces.concat()
    );
}
