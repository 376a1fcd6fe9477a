//! `abgen build` replaces `--out` only when it is absent, empty or abgen's own artifact, two
//! builds of one output at the same time both succeed, and a project whose inputs abgen does not
//! read (a symlinked `src/` or `src/skills`, nothing to build) is an error that leaves a working
//! artifact alone. Each case runs the real binary.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

mod support;

use support::{repo, transcript};

/// Every file under `root` with its bytes (symlinks are not followed).
fn tree(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut pending = vec![root.to_owned()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            let path = entry.path();
            if entry.file_type().unwrap().is_dir() {
                pending.push(path);
            } else {
                let relative = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                files.insert(relative, std::fs::read(&path).unwrap_or_default());
            }
        }
    }
    files
}

/// Names in `dir` that a build makes beside an output (staging, aside, lock).
fn build_siblings(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains(".abgen-"))
        .collect();
    names.sort();
    names
}

/// The artifact at `out` is exactly what its manifest lists, byte for byte.
fn assert_verifies(out: &Path) {
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("abgen.manifest.json")).unwrap()).unwrap();
    let listed: BTreeMap<String, String> = manifest["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|file| {
            (
                file["path"].as_str().unwrap().to_owned(),
                file["sha256"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let mut found = tree(out);
    assert!(found.remove("abgen.manifest.json").is_some());
    let found: BTreeMap<String, String> = found
        .into_iter()
        .map(|(path, bytes)| (path, abgen::emit::sha256_hex(&bytes)))
        .collect();
    assert_eq!(found, listed, "the artifact differs from its manifest");
}

/// A copy of the curator example in a temporary folder, with a stand-in runtime and a
/// prebuilt worker bundle (no esbuild), so builds are quick.
struct Project {
    temp: tempfile::TempDir,
    root: PathBuf,
}

impl Project {
    fn new() -> Self {
        let temp = tempfile::tempdir().unwrap();
        let root = temp.path().join("curator");
        let source = repo().join("examples/curator");
        for name in ["agent-bundle.config.ts", "package.json", "tsconfig.json"] {
            std::fs::create_dir_all(&root).unwrap();
            std::fs::copy(source.join(name), root.join(name)).unwrap();
        }
        copy_dir(&source.join("src"), &root.join("src"));
        std::fs::write(temp.path().join("abgen-host"), "#!/bin/sh\nexit 2\n").unwrap();
        std::fs::write(temp.path().join("worker.mjs"), "export {};\n").unwrap();
        Self { temp, root }
    }

    fn build(&self, out: Option<&Path>) -> Output {
        self.command(out).output().unwrap()
    }

    fn command(&self, out: Option<&Path>) -> Command {
        self.command_at(&self.root, out)
    }

    /// The same build of another project root.
    fn command_at(&self, root: &Path, out: Option<&Path>) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_abgen"));
        command
            .args(["build", "--target", "claude,codex", "--root"])
            .arg(root)
            .env("ABGEN_HOST", self.temp.path().join("abgen-host"))
            .env("ABGEN_WORKER_BUNDLE", self.temp.path().join("worker.mjs"))
            .env("NO_COLOR", "1")
            .env_remove("ABGEN_FAILPOINT");
        if let Some(out) = out {
            command.arg("--out").arg(out);
        }
        command
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn assert_refused(output: &Output, code: &str, names: &[&str]) {
    let text = transcript(output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(text.contains(&format!("error[{code}]")), "{text}");
    for name in names {
        assert!(
            text.contains(&format!("`{name}`")),
            "{name} is not named:\n{text}"
        );
    }
    assert!(text.contains("nothing was changed"), "{text}");
}

#[test]
fn the_projects_own_artifact_holding_a_user_file_is_refused_untouched() {
    let project = Project::new();
    let built = project.build(None);
    assert!(built.status.success(), "{}", transcript(&built));
    let artifact = project.root.join("artifact");
    std::fs::write(artifact.join("notes.md"), "my notes").unwrap();
    let before = tree(&artifact);
    let refused = project.build(None);
    assert_refused(&refused, "AB5340", &["notes.md"]);
    assert!(
        transcript(&refused).contains("--> artifact"),
        "{}",
        transcript(&refused)
    );
    assert_eq!(tree(&artifact), before);
    assert_eq!(build_siblings(&project.root), Vec::<String>::new());
    // Once the user's file is moved away, the build replaces its own artifact again.
    std::fs::remove_file(artifact.join("notes.md")).unwrap();
    assert!(project.build(None).status.success());
    assert_verifies(&artifact);
}

#[test]
fn an_edited_artifact_file_is_refused_untouched() {
    let project = Project::new();
    let out = project.temp.path().join("out");
    assert!(project.build(Some(&out)).status.success());
    std::fs::write(out.join("INSTALL.md"), "edited by hand").unwrap();
    let before = tree(&out);
    let refused = project.build(Some(&out));
    assert_refused(&refused, "AB5340", &["INSTALL.md"]);
    assert!(transcript(&refused).contains("(changed since abgen wrote it)"));
    assert_eq!(tree(&out), before);
}

#[test]
fn a_folder_of_user_files_as_out_is_refused_untouched() {
    let project = Project::new();
    let documents = project.temp.path().join("Documents");
    std::fs::create_dir_all(documents.join("letters")).unwrap();
    std::fs::write(documents.join("taxes.pdf"), "mine").unwrap();
    std::fs::write(documents.join("letters/to-anna.txt"), "mine").unwrap();
    let before = tree(&documents);
    let refused = project.build(Some(&documents));
    assert_refused(&refused, "AB5340", &["letters/", "taxes.pdf"]);
    assert_eq!(tree(&documents), before);
    assert_eq!(build_siblings(project.temp.path()), Vec::<String>::new());
}

#[test]
fn a_file_out_is_refused_before_anything_moves() {
    let project = Project::new();
    let file = project.temp.path().join("plugin.zip");
    std::fs::write(&file, "mine").unwrap();
    let refused = project.build(Some(&file));
    assert_refused(&refused, "AB5341", &[]);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine");
    assert_eq!(build_siblings(project.temp.path()), Vec::<String>::new());
    // Nothing was left behind that could fail a later build.
    let out = project.temp.path().join("plugin");
    assert!(project.build(Some(&out)).status.success());
}

#[cfg(unix)]
#[test]
fn a_symlink_out_replaces_the_artifact_it_points_at_and_refuses_anything_else() {
    let project = Project::new();
    let real = project.temp.path().join("real");
    assert!(project.build(Some(&real)).status.success());
    let link = project.temp.path().join("artifact-link");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let built = project.build(Some(&link));
    assert!(built.status.success(), "{}", transcript(&built));
    assert_eq!(std::fs::read_link(&link).unwrap(), real);
    assert_verifies(&real);
    let documents = project.temp.path().join("Documents");
    std::fs::create_dir(&documents).unwrap();
    std::fs::write(documents.join("taxes.pdf"), "mine").unwrap();
    let to_documents = project.temp.path().join("to-documents");
    std::os::unix::fs::symlink(&documents, &to_documents).unwrap();
    assert_refused(
        &project.build(Some(&to_documents)),
        "AB5340",
        &["taxes.pdf"],
    );
    assert_eq!(
        std::fs::read_to_string(documents.join("taxes.pdf")).unwrap(),
        "mine"
    );
}

#[test]
fn two_builds_of_one_project_at_the_same_time_both_succeed() {
    let project = Project::new();
    let out = project.temp.path().join("out");
    assert!(project.build(Some(&out)).status.success());
    for _ in 0..3 {
        let builds: Vec<_> = (0..2)
            .map(|_| {
                project
                    .command(Some(&out))
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for build in builds {
            let output = build.wait_with_output().unwrap();
            assert!(output.status.success(), "{}", transcript(&output));
        }
        assert_verifies(&out);
        assert_eq!(build_siblings(project.temp.path()), Vec::<String>::new());
    }
}

#[test]
fn an_out_that_would_overwrite_the_project_is_refused() {
    let project = Project::new();
    let before = tree(&project.root);
    for out in [project.root.clone(), project.root.join("src/mcp")] {
        assert_refused(&project.build(Some(&out)), "AB5342", &[]);
    }
    assert_eq!(tree(&project.root), before);
}

#[cfg(unix)]
#[test]
fn a_symlinked_src_is_an_error_and_the_working_artifact_stays() {
    let project = Project::new();
    let out = project.temp.path().join("out");
    assert!(project.build(Some(&out)).status.success());
    let working = tree(&out);
    std::fs::rename(project.root.join("src"), project.root.join("sources")).unwrap();
    std::os::unix::fs::symlink("sources", project.root.join("src")).unwrap();
    let failed = project.build(Some(&out));
    let text = transcript(&failed);
    assert_eq!(failed.status.code(), Some(1), "{text}");
    assert!(text.contains("error[AB5343]: `src` is a symlink"), "{text}");
    assert_eq!(tree(&out), working);
}

#[cfg(unix)]
#[test]
fn a_symlinked_skills_folder_is_an_error_and_nothing_outside_is_copied() {
    let project = Project::new();
    let outside = project.temp.path().join("outside-skills");
    std::fs::rename(project.root.join("src/skills"), &outside).unwrap();
    std::fs::write(
        outside.join("reading-notes/private.txt"),
        "not for the plugin",
    )
    .unwrap();
    std::os::unix::fs::symlink(&outside, project.root.join("src/skills")).unwrap();
    let out = project.temp.path().join("out");
    let failed = project.build(Some(&out));
    let text = transcript(&failed);
    assert_eq!(failed.status.code(), Some(1), "{text}");
    assert!(
        text.contains("error[AB5343]: `src/skills` is a symlink"),
        "{text}"
    );
    assert!(!out.exists());
}

#[test]
fn a_project_with_no_config_and_nothing_under_src_builds_nothing() {
    let project = Project::new();
    let empty = project.temp.path().join("not-a-plugin");
    std::fs::create_dir(&empty).unwrap();
    std::fs::write(empty.join("package.json"), r#"{ "name": "notes" }"#).unwrap();
    let out = project.temp.path().join("out");
    assert!(project.build(Some(&out)).status.success());
    let working = tree(&out);
    let failed = project.command_at(&empty, Some(&out)).output().unwrap();
    let text = transcript(&failed);
    assert_eq!(failed.status.code(), Some(1), "{text}");
    assert!(text.contains("error[AB5344]: nothing to build"), "{text}");
    assert_eq!(tree(&out), working);
}
