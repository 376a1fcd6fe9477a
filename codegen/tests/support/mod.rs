//! What the integration tests that run a built `examples/curator` share: the repository root, the
//! `abgen-host` binary cargo builds for the artifact, and the build itself.

#![allow(
    dead_code,
    reason = "each test binary uses the part of this module it needs"
)]

use std::path::{Path, PathBuf};
use std::process::Command;

use abgen::emit::{BuildOptions, build_project};
use serde_json::Value;

/// The repository root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap()
}

/// Builds the runtime binary the artifact ships and returns its path, as cargo reports it.
pub fn host_binary() -> PathBuf {
    let output = Command::new(option_env!("CARGO").unwrap_or("cargo"))
        .args([
            "build",
            "--quiet",
            "-p",
            "abgen-runtime",
            "--bin",
            "abgen-host",
        ])
        .args(["--message-format", "json"])
        .current_dir(repo())
        .output()
        .expect("running cargo build");
    assert!(
        output.status.success(),
        "building abgen-host failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|message| message["target"]["name"] == "abgen-host")
        .find_map(|message| message["executable"].as_str().map(PathBuf::from))
        .expect("cargo names the abgen-host executable")
}

/// The curator built for `targets` into `temp/artifact`, with the real `abgen-host`.
pub fn build_curator(temp: &Path, targets: &[&str]) -> PathBuf {
    let artifact = temp.join("artifact");
    build_project(&BuildOptions {
        root: repo().join("examples/curator"),
        targets: Some(targets.iter().map(|target| (*target).to_owned()).collect()),
        out: Some(artifact.clone()),
        host_binary: Some(host_binary()),
        node_modules: None,
    })
    .unwrap_or_else(|failure| panic!("{failure}: {failure:?}"));
    artifact
}
