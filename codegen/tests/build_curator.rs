//! Builds the example plugin (`examples/curator`) for Claude and compares its manifest with the
//! golden `fixtures/manifests/curator.json`, digests and file hashes redacted (the bundled worker
//! and the runtime binary change with every runtime change; their presence and modes do not).
//! Set `ABGEN_BLESS=1` to rewrite the golden after reviewing the difference.

use std::path::{Path, PathBuf};

use abgen::emit::{BuildOptions, build_project};
use serde_json::Value;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap()
}

/// A stand-in runtime binary: these tests look at the artifact, not at the runtime.
pub fn stub_host(dir: &Path) -> PathBuf {
    let path = dir.join("abgen-host");
    std::fs::write(&path, "#!/bin/sh\necho 'abgen-host stand-in' >&2\nexit 2\n").unwrap();
    path
}

fn redacted(mut manifest: Value) -> Value {
    manifest["digest"] = Value::from("<sha256>");
    for file in manifest["files"].as_array_mut().unwrap() {
        file["sha256"] = Value::from("<sha256>");
    }
    manifest
}

#[test]
fn curator_manifest_matches_the_golden() {
    let temp = tempfile::tempdir().unwrap();
    let out = temp.path().join("artifact");
    let built = build_project(&BuildOptions {
        root: repo().join("examples/curator"),
        targets: Some(vec!["claude".into()]),
        out: Some(out.clone()),
        host_binary: Some(stub_host(temp.path())),
        node_modules: None,
    })
    .unwrap_or_else(|failure| panic!("{failure}: {failure:?}"));
    let fresh = std::fs::read_to_string(out.join("abgen.manifest.json")).unwrap();
    assert_eq!(fresh, built.emitted.artifact.manifest_json);
    let golden_path = repo().join("fixtures/manifests/curator.json");
    if std::env::var_os("ABGEN_BLESS").is_some() {
        std::fs::create_dir_all(golden_path.parent().unwrap()).unwrap();
        std::fs::write(&golden_path, &fresh).unwrap();
    }
    let golden =
        std::fs::read_to_string(&golden_path).expect("fixtures/manifests/curator.json exists");
    let parse = |text: &str| redacted(serde_json::from_str(text).unwrap());
    assert_eq!(
        serde_json::to_string_pretty(&parse(&fresh)).unwrap(),
        serde_json::to_string_pretty(&parse(&golden)).unwrap(),
        "the curator manifest changed; review it and rerun with ABGEN_BLESS=1"
    );
}
