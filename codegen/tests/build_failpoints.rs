//! A failed or killed `abgen build` leaves the previous artifact intact, and the next build
//! recovers what it left. Each case runs the real binary with `ABGEN_FAILPOINT` naming the step
//! to fail or die at (deterministic, no timing), then looks at the output directory.
//!
//! The two builds ship different stand-in runtimes, so the old and the new tree differ.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod support;

use support::repo;

fn tree(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut pending = vec![root.to_owned()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let relative = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                files.insert(relative, std::fs::read(&path).unwrap());
            }
        }
    }
    files
}

/// Names beside the output that a build made (staging or aside directories; the lock file
/// of a killed build stays too, empty, until the next build takes and removes it).
fn leftovers(out: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(out.parent().unwrap())
        .unwrap()
        .filter_map(|entry| entry.ok())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains(".abgen-") && !name.ends_with(".abgen-lock"))
        .collect();
    names.sort();
    names
}

/// Whether a build's lock file is beside the output.
fn lock_file(out: &Path) -> bool {
    out.with_file_name(".artifact.abgen-lock").exists()
}

/// The leftover beside the output whose name has `tag`.
fn leftover(out: &Path, tag: &str) -> PathBuf {
    let name = leftovers(out)
        .into_iter()
        .find(|name| name.contains(tag))
        .unwrap_or_else(|| panic!("no {tag} leftover beside {}", out.display()));
    out.with_file_name(name)
}

struct Project {
    _temp: tempfile::TempDir,
    out: PathBuf,
    old_host: PathBuf,
    new_host: PathBuf,
}

impl Project {
    fn new() -> Self {
        let temp = tempfile::tempdir().unwrap();
        let host = |name: &str| {
            let path = temp.path().join(name);
            std::fs::write(&path, format!("#!/bin/sh\n# {name}\nexit 2\n")).unwrap();
            path
        };
        let (old_host, new_host) = (host("old-host"), host("new-host"));
        let out = temp.path().join("builds/artifact");
        Self {
            out,
            old_host,
            new_host,
            _temp: temp,
        }
    }

    fn build(&self, host: &Path, failpoint: Option<&str>) -> Output {
        let mut command = Command::new(env!("CARGO_BIN_EXE_abgen"));
        command
            .args(["build", "--target", "claude,codex", "--root"])
            .arg(repo().join("examples/curator"))
            .arg("--out")
            .arg(&self.out)
            .env("ABGEN_HOST", host)
            .env_remove("ABGEN_FAILPOINT");
        if let Some(failpoint) = failpoint {
            command.env("ABGEN_FAILPOINT", failpoint);
        }
        command.output().unwrap()
    }

    /// Builds the old artifact and returns its tree.
    fn previous(&self) -> BTreeMap<String, Vec<u8>> {
        assert!(self.build(&self.old_host, None).status.success());
        tree(&self.out)
    }
}

#[test]
fn a_failed_write_leaves_the_previous_artifact_and_no_staging() {
    let project = Project::new();
    let previous = project.previous();
    let failed = project.build(&project.new_host, Some("stage-write"));
    assert_eq!(failed.status.code(), Some(1), "{failed:?}");
    assert!(String::from_utf8_lossy(&failed.stderr).contains("failpoint"));
    assert_eq!(tree(&project.out), previous);
    assert_eq!(leftovers(&project.out), Vec::<String>::new());
}

#[test]
fn a_build_killed_before_the_swap_leaves_the_previous_artifact_and_the_next_build_cleans_up() {
    let project = Project::new();
    let previous = project.previous();
    let killed = project.build(&project.new_host, Some("before-swap"));
    assert_eq!(
        killed.status.code(),
        None,
        "the build dies at the failpoint"
    );
    assert_eq!(tree(&project.out), previous);
    assert_eq!(
        leftovers(&project.out).len(),
        1,
        "the staging directory stays behind"
    );
    assert!(project.build(&project.new_host, None).status.success());
    assert_ne!(tree(&project.out), previous);
    assert_eq!(leftovers(&project.out), Vec::<String>::new());
}

#[test]
fn a_build_killed_after_the_exchange_leaves_the_new_artifact_complete() {
    let project = Project::new();
    let previous = project.previous();
    let killed = project.build(&project.new_host, Some("after-swap"));
    assert_eq!(killed.status.code(), None);
    let swapped = tree(&project.out);
    assert_ne!(swapped, previous);
    assert!(swapped.contains_key("abgen.manifest.json"));
    // The previous artifact waits in the staging name until the next build removes it.
    assert_eq!(leftovers(&project.out).len(), 1);
    assert!(project.build(&project.new_host, None).status.success());
    assert_eq!(tree(&project.out), swapped);
    assert_eq!(leftovers(&project.out), Vec::<String>::new());
}

#[test]
fn a_build_killed_between_the_fallback_renames_is_undone_by_the_next_build() {
    let project = Project::new();
    let previous = project.previous();
    let killed = project.build(
        &project.new_host,
        Some("exchange-unsupported,between-renames"),
    );
    assert_eq!(killed.status.code(), None);
    // No rename replaces a non-empty directory, so the name is free here; the previous artifact
    // is complete under its aside name, the new one under its staging name.
    assert!(!project.out.exists(), "the output was moved aside");
    assert_eq!(tree(&leftover(&project.out, "abgen-old-")), previous);
    assert!(
        leftover(&project.out, "abgen-staging-")
            .join("abgen.manifest.json")
            .is_file()
    );
    // The next build restores the previous artifact first, even when it fails itself.
    let failed = project.build(&project.new_host, Some("stage-write"));
    assert_eq!(failed.status.code(), Some(1));
    assert_eq!(tree(&project.out), previous);
    assert_eq!(leftovers(&project.out), Vec::<String>::new());
    assert!(!lock_file(&project.out));
}

#[test]
fn a_folder_put_at_the_output_after_a_kill_between_renames_never_costs_the_previous_artifact() {
    let project = Project::new();
    let previous = project.previous();
    let killed = project.build(
        &project.new_host,
        Some("exchange-unsupported,between-renames"),
    );
    assert_eq!(killed.status.code(), None);
    std::fs::create_dir(&project.out).unwrap();
    std::fs::write(project.out.join("mine.txt"), "mine").unwrap();
    let refused = project.build(&project.new_host, None);
    assert_eq!(refused.status.code(), Some(1), "{refused:?}");
    assert!(String::from_utf8_lossy(&refused.stderr).contains("AB5340"));
    assert_eq!(tree(&leftover(&project.out, "abgen-old-")), previous);
    assert_eq!(
        std::fs::read_to_string(project.out.join("mine.txt")).unwrap(),
        "mine"
    );
    // Once the user's folder is gone, the previous artifact comes back and is replaced.
    std::fs::remove_dir_all(&project.out).unwrap();
    assert!(project.build(&project.new_host, None).status.success());
    assert_ne!(tree(&project.out), previous);
    assert_eq!(leftovers(&project.out), Vec::<String>::new());
}

#[test]
fn a_build_killed_after_the_fallback_renames_leaves_the_new_artifact_complete() {
    let project = Project::new();
    let previous = project.previous();
    let killed = project.build(
        &project.new_host,
        Some("exchange-unsupported,after-renames"),
    );
    assert_eq!(killed.status.code(), None);
    let swapped = tree(&project.out);
    assert_ne!(swapped, previous);
    assert_eq!(tree(&leftover(&project.out, "abgen-old-")), previous);
    assert!(project.build(&project.new_host, None).status.success());
    assert_eq!(tree(&project.out), swapped);
    assert_eq!(leftovers(&project.out), Vec::<String>::new());
}

#[test]
fn the_fallback_swap_replaces_the_artifact_when_nothing_fails() {
    let project = Project::new();
    let previous = project.previous();
    let built = project.build(&project.new_host, Some("exchange-unsupported"));
    assert!(built.status.success(), "{built:?}");
    assert_ne!(tree(&project.out), previous);
    assert_eq!(leftovers(&project.out), Vec::<String>::new());
}
