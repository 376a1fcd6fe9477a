use std::fs;
use std::path::Path;

use super::{canonical_file_table, check_output_dir, claim_output, read_file_table, sibling};
use crate::diagnostics::Code;
use crate::emit::error::{EmitError, ForeignPath};
use crate::emit::plan::{FilePlan, MODE_FILE};
use crate::emit::stage::tests::{manifest_for, stage};

/// A two-file artifact built at `out` the way a build writes one.
fn artifact_at(out: &Path) {
    let mut plan = FilePlan::default();
    plan.add("INSTALL.md", "# Install\n", MODE_FILE).unwrap();
    plan.add("hooks/hooks.json", "{}\n", MODE_FILE).unwrap();
    stage(&plan, manifest_for(&plan).as_bytes(), out).unwrap();
}

/// Every file under `dir` with its contents, sorted.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_owned()];
    while let Some(next) = pending.pop() {
        for entry in fs::read_dir(&next).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let relative = path
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                files.push((relative, fs::read(&path).unwrap()));
            }
        }
    }
    files.sort();
    files
}

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The paths a refusal names, as `path` or `path (changed)`.
fn refused_paths(error: EmitError) -> (Vec<String>, bool) {
    match error {
        EmitError::OutputNotOwned { paths, more, .. } => (
            paths
                .into_iter()
                .map(|ForeignPath { path, changed }| {
                    if changed {
                        format!("{path} (changed)")
                    } else {
                        path
                    }
                })
                .collect(),
            more,
        ),
        other => panic!("expected an ownership refusal, got {other:?}"),
    }
}

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
    std::os::unix::fs::symlink(&root, temp.path().join("to-root")).unwrap();
    assert!(matches!(
        check_output_dir(&root, &temp.path().join("to-root")),
        Err(EmitError::UnsafeOutputDir { .. })
    ));
}

#[test]
fn an_absent_empty_or_own_output_is_claimed() {
    let temp = tempfile::tempdir().unwrap();
    let project = temp.path().join("project");
    let out = temp.path().join("artifact");
    assert_eq!(claim_output(&project, &out).unwrap().path(), out);
    fs::create_dir(&out).unwrap();
    assert!(claim_output(&project, &out).is_ok(), "an empty folder");
    artifact_at(&out);
    assert!(claim_output(&project, &out).is_ok(), "abgen's own artifact");
    // A file of the table that is missing loses nothing.
    fs::remove_file(out.join("INSTALL.md")).unwrap();
    assert!(claim_output(&project, &out).is_ok());
}

#[test]
fn a_folder_of_user_files_is_refused_untouched() {
    let temp = tempfile::tempdir().unwrap();
    let out = temp.path().join("Documents");
    fs::create_dir_all(out.join("photos")).unwrap();
    for name in ["a.txt", "b.txt", "c.txt", "d.txt", "e.txt", "f.txt"] {
        fs::write(out.join(name), name).unwrap();
    }
    let before = snapshot(&out);
    let error = claim_output(&temp.path().join("project"), &out).unwrap_err();
    let diagnostic = error
        .output_diagnostic(&temp.path().join("project"))
        .unwrap();
    assert_eq!(diagnostic.code, Code::AB5340);
    assert!(diagnostic.is_error());
    assert!(
        diagnostic.message.contains(
            "no `abgen.manifest.json` says abgen wrote them: `a.txt`, `b.txt`, `c.txt`, `d.txt`, `e.txt`, and more"
        ),
        "{}",
        diagnostic.message
    );
    assert!(diagnostic.recovery.contains("nothing was changed"));
    assert_eq!(snapshot(&out), before);
    assert_eq!(names(temp.path()), ["Documents"]);
}

#[test]
fn an_artifact_with_a_file_added_or_edited_is_refused_untouched() {
    let temp = tempfile::tempdir().unwrap();
    let project = temp.path().join("project");
    let out = temp.path().join("artifact");
    artifact_at(&out);
    fs::write(out.join("notes.md"), "mine").unwrap();
    fs::write(out.join("INSTALL.md"), "# Install, with my notes\n").unwrap();
    fs::create_dir(out.join("hooks/extra")).unwrap();
    fs::create_dir(out.join("drafts")).unwrap();
    let before = snapshot(&out);
    let (paths, more) = refused_paths(claim_output(&project, &out).unwrap_err());
    assert_eq!(
        paths,
        [
            "INSTALL.md (changed)",
            "drafts/",
            "hooks/extra/",
            "notes.md"
        ]
    );
    assert!(!more);
    assert_eq!(snapshot(&out), before);
    assert_eq!(names(temp.path()), ["artifact"]);
}

#[cfg(unix)]
#[test]
fn a_symlink_inside_an_artifact_is_not_abgen_s() {
    let temp = tempfile::tempdir().unwrap();
    let out = temp.path().join("artifact");
    artifact_at(&out);
    let outside = temp.path().join("outside.txt");
    fs::write(&outside, "# Install\n").unwrap();
    // Even a link to the very bytes abgen listed is not the file abgen wrote.
    fs::remove_file(out.join("INSTALL.md")).unwrap();
    std::os::unix::fs::symlink(&outside, out.join("INSTALL.md")).unwrap();
    let (paths, _) = refused_paths(claim_output(&temp.path().join("project"), &out).unwrap_err());
    assert_eq!(paths, ["INSTALL.md"]);
    assert!(outside.is_file());
}

#[test]
fn abgen_s_own_sibling_names_are_not_in_the_way() {
    let temp = tempfile::tempdir().unwrap();
    let out = temp.path().join("artifact");
    artifact_at(&out);
    fs::write(out.join(".plugin.abgen-lock"), "").unwrap();
    fs::create_dir(out.join(".plugin.abgen-staging-42")).unwrap();
    assert!(claim_output(&temp.path().join("project"), &out).is_ok());
    // Only abgen's exact names: a look-alike is the user's.
    fs::write(out.join(".plugin.abgen-staging-draft"), "").unwrap();
    let (paths, _) = refused_paths(claim_output(&temp.path().join("project"), &out).unwrap_err());
    assert_eq!(paths, [".plugin.abgen-staging-draft"]);
}

#[test]
fn a_file_out_is_refused_before_anything_moves() {
    let temp = tempfile::tempdir().unwrap();
    let out = temp.path().join("notes.txt");
    fs::write(&out, "mine").unwrap();
    let error = claim_output(&temp.path().join("project"), &out).unwrap_err();
    assert!(
        matches!(error, EmitError::OutputNotDirectory { .. }),
        "{error:?}"
    );
    let diagnostic = error
        .output_diagnostic(&temp.path().join("project"))
        .unwrap();
    assert_eq!(diagnostic.code, Code::AB5341);
    assert_eq!(fs::read_to_string(&out).unwrap(), "mine");
    assert_eq!(names(temp.path()), ["notes.txt"]);
}

#[cfg(unix)]
#[test]
fn a_symlink_out_is_judged_by_what_it_points_at() {
    let temp = tempfile::tempdir().unwrap();
    let project = temp.path().join("project");
    let target = temp.path().join("real");
    artifact_at(&target);
    let link = temp.path().join("artifact");
    std::os::unix::fs::symlink("real", &link).unwrap();
    let claim = claim_output(&project, &link).unwrap();
    assert_eq!(claim.path(), target.canonicalize().unwrap());
    drop(claim);
    // The target is replaced; the link stays a link to it.
    artifact_at(&link);
    assert_eq!(fs::read_link(&link).unwrap(), Path::new("real"));
    assert!(target.join("abgen.manifest.json").is_file());
    // A link to a folder of user files is refused, the folder untouched.
    let documents = temp.path().join("Documents");
    fs::create_dir(&documents).unwrap();
    fs::write(documents.join("letter.txt"), "mine").unwrap();
    let to_documents = temp.path().join("to-documents");
    std::os::unix::fs::symlink(&documents, &to_documents).unwrap();
    let (paths, _) = refused_paths(claim_output(&project, &to_documents).unwrap_err());
    assert_eq!(paths, ["letter.txt"]);
    assert_eq!(
        fs::read_to_string(documents.join("letter.txt")).unwrap(),
        "mine"
    );
    // A link to a file is refused as a file; a dangling link is built at its target.
    std::os::unix::fs::symlink(documents.join("letter.txt"), temp.path().join("to-file")).unwrap();
    assert!(matches!(
        claim_output(&project, &temp.path().join("to-file")),
        Err(EmitError::OutputNotDirectory { .. })
    ));
    std::os::unix::fs::symlink("later", temp.path().join("dangling")).unwrap();
    let claim = claim_output(&project, &temp.path().join("dangling")).unwrap();
    assert_eq!(
        claim.path(),
        temp.path().canonicalize().unwrap().join("later")
    );
}

#[test]
fn the_build_lock_excludes_a_second_build_until_released() {
    let temp = tempfile::tempdir().unwrap();
    let out = temp.path().join("artifact");
    let claim = claim_output(&temp.path().join("project"), &out).unwrap();
    let lock = sibling(&out, "abgen-lock");
    let second = fs::OpenOptions::new().write(true).open(&lock).unwrap();
    assert!(matches!(
        second.try_lock(),
        Err(fs::TryLockError::WouldBlock)
    ));
    drop(claim);
    assert!(!lock.exists(), "the lock file goes with the lock");
    // A build waiting on the old lock file sees it replaced and takes the new one.
    assert!(second.try_lock().is_ok());
    assert!(claim_output(&temp.path().join("project"), &out).is_ok());
}

#[test]
fn recovery_restores_the_previous_artifact_and_never_drops_the_only_copy() {
    let temp = tempfile::tempdir().unwrap();
    let project = temp.path().join("project");
    let out = temp.path().join("artifact");
    artifact_at(&out);
    let previous = snapshot(&out);
    // What a build killed between the fallback's renames leaves: the output aside, a staged tree.
    let aside = sibling(&out, "abgen-old-7");
    fs::rename(&out, &aside).unwrap();
    let staging = sibling(&out, "abgen-staging-7");
    fs::create_dir_all(staging.join("hooks")).unwrap();
    // While the user has put a folder of their own at the output, the aside is kept.
    fs::create_dir(&out).unwrap();
    fs::write(out.join("mine.txt"), "mine").unwrap();
    assert!(claim_output(&project, &out).is_err());
    assert_eq!(snapshot(&aside), previous);
    assert!(
        !staging.exists(),
        "an incomplete staged tree is never the only copy"
    );
    // With the output gone, the next build puts the previous artifact back first.
    fs::remove_dir_all(&out).unwrap();
    assert!(claim_output(&project, &out).is_ok());
    assert_eq!(snapshot(&out), previous);
    assert_eq!(names(temp.path()), ["artifact"]);
}

#[test]
fn a_file_under_a_staging_name_is_left_alone() {
    let temp = tempfile::tempdir().unwrap();
    let out = temp.path().join("artifact");
    artifact_at(&out);
    // An older abgen exchanged a file `--out` into this name; it is the user's file.
    let stranded = sibling(&out, "abgen-staging-9");
    fs::write(&stranded, "mine").unwrap();
    assert!(claim_output(&temp.path().join("project"), &out).is_ok());
    assert_eq!(fs::read_to_string(&stranded).unwrap(), "mine");
}

#[test]
fn the_file_table_of_a_canonical_manifest_is_read_up_to_its_end() {
    let temp = tempfile::tempdir().unwrap();
    let out = temp.path().join("artifact");
    let mut plan = FilePlan::default();
    plan.add("INSTALL.md", "# Install\n", MODE_FILE).unwrap();
    plan.add("bin/tool", "#!/bin/sh\n", MODE_FILE).unwrap();
    let manifest: serde_json::Value = serde_json::from_str(&manifest_for(&plan)).unwrap();
    let canonical = crate::emit::canonical_json::to_canonical_json(&manifest);
    stage(&plan, canonical.as_bytes(), &out).unwrap();
    let path = out.join("abgen.manifest.json");
    let prefix = canonical_file_table(&path).expect("a canonical manifest");
    let files: serde_json::Value = serde_json::from_str(&prefix).unwrap();
    assert_eq!(files, serde_json::json!({ "files": manifest["files"] }));
    let table = read_file_table(&out).unwrap().table;
    assert_eq!(table.keys().collect::<Vec<_>>(), ["INSTALL.md", "bin/tool"]);
    // What follows the table is not read; a manifest in another layout is read whole.
    let end = canonical.find("\n  ],\n").unwrap() + "\n  ],\n".len();
    fs::write(&path, format!("{}  \"routes\": [\n", &canonical[..end])).unwrap();
    assert_eq!(read_file_table(&out).unwrap().table, table);
    fs::write(&path, manifest.to_string()).unwrap();
    assert!(canonical_file_table(&path).is_none());
    assert_eq!(read_file_table(&out).unwrap().table, table);
    fs::write(&path, "{\n  \"files\": [\n").unwrap();
    assert!(read_file_table(&out).is_none());
}
