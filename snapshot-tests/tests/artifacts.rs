//! The artifact tree, file by file, as `abgen build` plans it: the curator for all four targets,
//! and one fixture per support situation of an event route (supported everywhere, degraded on a
//! host, unavailable and refused, unavailable but excluded by the route's `targets`).
//!
//! Planning runs the whole check and emit in memory. The runtime binary and the bundled worker
//! are fixed stand-ins (their bytes are other tests' business), so every other byte, the
//! manifest's digest included, is under test here.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use abgen::check::{CheckOptions, check_project};
use abgen::emit::{EmitOptions, checked_emit_input, plan_artifact};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every planned file as text (binary stand-ins by size), then the manifest; or the refusal.
fn artifact_text(root: &Path, targets: Option<&[&str]>) -> String {
    let checked = check_project(&CheckOptions {
        root: root.to_owned(),
        targets: targets.map(|targets| targets.iter().map(|t| (*t).to_owned()).collect()),
    });
    let (Some(config), Some(graph)) = (&checked.config, &checked.graph) else {
        panic!("{} has no plugin name", root.display());
    };
    let mut input = checked_emit_input(root, &checked, config, graph);
    // Absolute paths never reach the artifact; a fixed root keeps that visible if it changes.
    input.project_root = PathBuf::from("/project");
    // Bundling is esbuild's: plain scripts get a stand-in, as the worker does below.
    for script in &mut input.plain_scripts {
        script.bundle = format!("// bundle of {} stand-in\n", script.source).into_bytes();
    }
    // One directory per call: tests run in parallel threads, and a shared stand-in host could be
    // read while another test truncates it to rewrite it.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let temp = std::env::temp_dir().join(format!("abgen-artifacts-{}-{call}", std::process::id()));
    std::fs::create_dir_all(&temp).unwrap();
    let host = temp.join("abgen-host");
    std::fs::write(&host, "#!/bin/sh\nexit 2\n").unwrap();
    let options = EmitOptions {
        targets: graph
            .targets
            .iter()
            .map(|t| t.as_str().to_owned())
            .collect(),
        out_dir: temp.join("out"),
        host_binary: host,
        platforms: Vec::new(),
        worker_bundle: b"// worker bundle stand-in\n".to_vec().into(),
    };
    let mut text = String::new();
    match plan_artifact(&input, &options) {
        Ok(artifact) => {
            for (path, file) in artifact.files.files() {
                let _ = writeln!(text, "## {path} ({:o})\n", file.mode);
                match std::str::from_utf8(&file.contents) {
                    Ok(contents) => text.push_str(contents),
                    Err(_) => {
                        let _ = writeln!(text, "<{} bytes>", file.contents.len());
                    }
                }
                text.push('\n');
            }
            let _ = writeln!(text, "## abgen.manifest.json\n\n{}", artifact.manifest_text);
        }
        Err(error) => {
            let _ = writeln!(text, "refused: {error}");
        }
    }
    let _ = std::fs::remove_dir_all(&temp);
    text
}

fn fixture(name: &str) -> PathBuf {
    repo().join("fixtures/projects").join(name)
}

#[test]
fn curator_for_every_target() {
    let root = repo().join("examples/curator");
    let text = artifact_text(&root, Some(&["claude", "codex", "cursor", "portable"]));
    insta::assert_snapshot!("curator_all_targets", text);
}

#[test]
fn supported_on_every_host() {
    insta::assert_snapshot!(
        "supported",
        artifact_text(&fixture("valid-hooks-supported"), None)
    );
}

#[test]
fn degraded_on_a_host() {
    insta::assert_snapshot!(
        "degraded",
        artifact_text(&fixture("ab5200-degraded-workspace-open"), None)
    );
}

#[test]
fn unavailable_and_refused() {
    insta::assert_snapshot!(
        "unavailable_refused",
        artifact_text(&fixture("ab4824-unavailable-event"), None)
    );
}

#[test]
fn unavailable_but_excluded_by_targets() {
    insta::assert_snapshot!(
        "unavailable_excluded",
        artifact_text(&fixture("valid-hooks-excluded-by-targets"), None)
    );
}
