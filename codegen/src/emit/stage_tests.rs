use std::fs;

use super::{check_output_dir, stage_artifact};
use crate::emit::error::EmitError;
use crate::emit::plan::{FilePlan, MODE_EXECUTABLE, MODE_FILE};

#[test]
fn refuses_outputs_that_would_overwrite_the_project() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("project");
    fs::create_dir_all(root.join("src/mcp")).unwrap();
    for (out, why) in [
        (root.clone(), "it is the project root"),
        (root.join("."), "it is the project root"),
        (temp.path().to_owned(), "it contains the project root"),
        (
            root.join("src"),
            "it lies inside the project's src/ directory",
        ),
        (
            root.join("src/mcp/../artifact"),
            "it lies inside the project's src/ directory",
        ),
    ] {
        match check_output_dir(&root, &out) {
            Err(EmitError::UnsafeOutputDir { why: actual, .. }) => {
                assert_eq!(actual, why, "{}", out.display())
            }
            other => panic!("{}: expected a refusal, got {other:?}", out.display()),
        }
    }
    assert!(check_output_dir(&root, &root.join("artifact")).is_ok());
    assert!(check_output_dir(&root, &temp.path().join("elsewhere/out")).is_ok());
}

#[cfg(unix)]
#[test]
fn refuses_a_symlink_that_points_at_the_project() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("project");
    fs::create_dir_all(root.join("src")).unwrap();
    std::os::unix::fs::symlink(root.join("src"), temp.path().join("link")).unwrap();
    assert!(check_output_dir(&root, &temp.path().join("link/out")).is_err());
}

#[test]
fn writes_every_file_then_replaces_the_previous_output() {
    let temp = tempfile::tempdir().unwrap();
    let out = temp.path().join("artifact");
    fs::create_dir_all(&out).unwrap();
    fs::write(out.join("stale.txt"), "old").unwrap();
    let mut plan = FilePlan::default();
    plan.add("bin/tool", "#!/bin/sh\n", MODE_EXECUTABLE)
        .unwrap();
    plan.add("a/b/c.json", "{}\n", MODE_FILE).unwrap();
    let manifest = minimal_manifest();
    stage_artifact(&plan, "abgen.manifest.json", manifest.as_bytes(), &out).unwrap();
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
fn minimal_manifest() -> String {
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
        "files": [],
    });
    format!("{manifest}\n")
}

#[test]
fn a_staged_tree_that_fails_verification_changes_nothing() {
    let temp = tempfile::tempdir().unwrap();
    let out = temp.path().join("artifact");
    fs::create_dir_all(&out).unwrap();
    fs::write(out.join("kept.txt"), "old").unwrap();
    let mut plan = FilePlan::default();
    plan.add("broken.json", "{", MODE_FILE).unwrap();
    let error = stage_artifact(
        &plan,
        "abgen.manifest.json",
        minimal_manifest().as_bytes(),
        &out,
    )
    .unwrap_err();
    assert!(
        error.to_string().contains("broken.json is not JSON"),
        "{error}"
    );
    let mut plan = FilePlan::default();
    plan.add("fine.json", "{}", MODE_FILE).unwrap();
    let error = stage_artifact(&plan, "abgen.manifest.json", b"{}\n", &out).unwrap_err();
    assert!(
        error.to_string().contains("cannot read the manifest"),
        "{error}"
    );
    // A manifest the hook client can read but that breaks the manifest's schema.
    let mut manifest: serde_json::Value = serde_json::from_str(&minimal_manifest()).unwrap();
    manifest["react"] = "next".into();
    let error = stage_artifact(
        &plan,
        "abgen.manifest.json",
        format!("{manifest}\n").as_bytes(),
        &out,
    )
    .unwrap_err();
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
