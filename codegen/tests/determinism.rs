//! Byte-identical builds: the curator built for every host twice into one output, and once with
//! the target list reversed into another, gives the same tree (paths, bytes and modes) each time.
//! Codex trusts a hook by a hash of its command, matcher and timeout, so byte stability is a
//! user-facing promise, not a nicety.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use abgen::emit::{BuildOptions, build_project};

mod support;

/// Every file under `root` by relative path, with its bytes and mode.
fn tree(root: &Path) -> BTreeMap<String, (Vec<u8>, u32)> {
    let mut files = BTreeMap::new();
    let mut pending = vec![root.to_owned()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
                continue;
            }
            let relative = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            files.insert(relative, (std::fs::read(&path).unwrap(), mode));
        }
    }
    files
}

fn build(targets: &[&str], out: &Path, host: &Path) -> BTreeMap<String, (Vec<u8>, u32)> {
    // Each build copies the project beside its output, so the builds compared never share one.
    let beside = out.with_extension("project");
    build_project(&BuildOptions {
        root: support::curator_copy(&beside),
        targets: Some(targets.iter().map(|target| (*target).to_owned()).collect()),
        out: Some(out.to_owned()),
        host_binary: Some(host.to_owned()),
        platforms: None,
        node_modules: None,
        worker: Default::default(),
    })
    .unwrap_or_else(|failure| panic!("{failure}: {failure:?}"));
    tree(out)
}

#[test]
fn building_twice_or_with_reversed_targets_gives_identical_trees() {
    let temp = tempfile::tempdir().unwrap();
    let host = temp.path().join("abgen-host");
    std::fs::write(&host, "#!/bin/sh\nexit 2\n").unwrap();
    let all = ["claude", "codex", "cursor", "portable"];
    let reversed = ["portable", "cursor", "codex", "claude"];
    let first_out = temp.path().join("first");
    let first = build(&all, &first_out, &host);
    let again = build(&all, &first_out, &host);
    let other = build(&reversed, &temp.path().join("reversed"), &host);

    assert!(
        first.contains_key(".codex-plugin/hooks.json"),
        "{:?}",
        first.keys()
    );
    assert!(first.contains_key(".cursor-plugin/hooks.json"));
    assert!(first.contains_key("plugin.json"));
    assert_eq!(
        first.keys().collect::<Vec<_>>(),
        other.keys().collect::<Vec<_>>()
    );
    for (path, file) in &first {
        assert!(again.get(path) == Some(file), "{path} changed on a rebuild");
        assert!(
            other.get(path) == Some(file),
            "{path} depends on the target order"
        );
    }
    assert_eq!(first.len(), again.len());
}
