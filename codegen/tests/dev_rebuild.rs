//! A rebuild of the watch loop (one `BuildCache` kept across builds of one output) against a
//! fresh `abgen build` of the same sources: the same files, byte for byte and mode for mode,
//! although the rebuild links the files it did not change instead of writing them again, keeps
//! the projections and manifest text of unchanged routes, and bundles through the served
//! bundler. The
//! kept record of the output never hides an edit made to it: an artifact edited in place is
//! refused as a fresh build refuses it.

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use abgen::apps::AppProfile;
use abgen::diagnostics::Code;
use abgen::emit::{BuildCache, BuildFailure, BuildOptions};
use abgen::emit::{build_project, build_project_reusing};
use support::curator_copy;

const TOOL: &str = "src/mcp/library/tools/show_shelf.tsx";
const SKILL: &str = "src/skills/reading-notes/template.md";

fn options(project: &Path, host: &Path, out: PathBuf) -> BuildOptions {
    BuildOptions {
        root: project.to_owned(),
        targets: None,
        out: Some(out),
        host_binary: Some(host.to_owned()),
        ..BuildOptions::default()
    }
}

/// A stand-in runtime binary (the emit copies it; nothing runs it here).
fn stand_in_host(temp: &Path) -> PathBuf {
    let host = temp.join("abgen-host");
    std::fs::write(&host, "#!/bin/sh\n# a stand-in runtime\n").unwrap();
    host
}

/// Every file under `dir`: its bytes and permission bits, by `/`-separated relative path.
fn tree(dir: &Path) -> BTreeMap<String, (Vec<u8>, u32)> {
    use std::os::unix::fs::PermissionsExt;
    let mut files = BTreeMap::new();
    let mut pending = vec![dir.to_owned()];
    while let Some(next) = pending.pop() {
        for entry in std::fs::read_dir(&next).unwrap() {
            let entry = entry.unwrap();
            let metadata = std::fs::symlink_metadata(entry.path()).unwrap();
            if metadata.is_dir() {
                pending.push(entry.path());
                continue;
            }
            let relative = entry.path().strip_prefix(dir).unwrap().to_owned();
            files.insert(
                relative.to_string_lossy().replace('\\', "/"),
                (
                    std::fs::read(entry.path()).unwrap(),
                    metadata.permissions().mode() & 0o777,
                ),
            );
        }
    }
    files
}

fn inode(path: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).unwrap().ino()
}

fn replace_in(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{} holds {from:?}", path.display());
    std::fs::write(path, text.replace(from, to)).unwrap();
}

#[test]
fn a_rebuild_through_the_cache_writes_what_a_fresh_build_writes() {
    let temp = tempfile::tempdir().unwrap();
    let project = curator_copy(temp.path());
    let host = stand_in_host(temp.path());
    let dev_out = temp.path().join("dev-out");
    let cache = BuildCache::default();
    let dev = options(&project, &host, dev_out.clone());
    build_project_reusing(&dev, AppProfile::Production, Some(&cache)).expect("first build");
    let host_inode = inode(&dev_out.join("bin/abgen-host"));

    replace_in(
        &project.join(TOOL),
        "Show the books on one shelf",
        "List the books on one shelf",
    );
    // Its input schema too: the route's projections are made again, not taken from the cache.
    replace_in(
        &project.join(TOOL),
        "The shelf to show;",
        "Which shelf to show;",
    );
    replace_in(
        &project.join(SKILL),
        "## In one paragraph",
        "## In a paragraph",
    );
    let rebuilt_return =
        build_project_reusing(&dev, AppProfile::Production, Some(&cache)).expect("rebuild");
    // Of the manifest's routes, only the edited tool's text is written again.
    let written = |built: &abgen::emit::BuildReturn| {
        built.emitted.artifact.manifest_text.written_route_count()
    };
    assert_eq!(written(&rebuilt_return), 1);

    let fresh_out = temp.path().join("fresh-out");
    build_project(&options(&project, &host, fresh_out.clone())).expect("fresh build");
    let (rebuilt, fresh) = (tree(&dev_out), tree(&fresh_out));
    assert_eq!(
        rebuilt.keys().collect::<Vec<_>>(),
        fresh.keys().collect::<Vec<_>>(),
        "the same paths"
    );
    for (path, file) in &fresh {
        assert!(
            rebuilt[path] == *file,
            "{path} differs from a fresh build's"
        );
    }
    // The change reached the artifact, and what it did not reach was linked, not written.
    let manifest = String::from_utf8(rebuilt["abgen.manifest.json"].0.clone()).unwrap();
    assert!(manifest.contains("List the books on one shelf"));
    assert!(manifest.contains("Which shelf to show;"));
    let skill = String::from_utf8(rebuilt["skills/reading-notes/template.md"].0.clone()).unwrap();
    assert!(skill.contains("## In a paragraph"));
    assert_eq!(inode(&dev_out.join("bin/abgen-host")), host_inode);
    // The worker was rebuilt (the tool's module is in it) by the served bundler.
    assert!(cache.scripts.served().pid().is_some());

    // The artifact the rebuild replaced waits beside the output until the loop has reported
    // the build, then goes; so does one the cache still holds when it is dropped.
    let siblings = || {
        let mut names: Vec<String> = std::fs::read_dir(temp.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.starts_with(".dev-out."))
            .collect();
        names.sort();
        names
    };
    let previous = siblings();
    assert!(
        previous.len() == 1 && previous[0].starts_with(".dev-out.abgen-staging-"),
        "{previous:?}"
    );
    let aside = temp.path().join(&previous[0]);
    assert!(
        aside.join("abgen.manifest.json").is_file(),
        "the previous artifact, whole"
    );
    cache.emit.remove_previous();
    assert_eq!(siblings(), Vec::<String>::new());
    let third =
        build_project_reusing(&dev, AppProfile::Production, Some(&cache)).expect("third build");
    assert_eq!(written(&third), 0);
    assert_eq!(siblings(), previous);
    // Removing the previous tree unlinked names of the files the new one shares with it; the
    // third build still knows them for its own and links them again.
    assert_eq!(inode(&dev_out.join("bin/abgen-host")), host_inode);
    drop(cache);
    assert_eq!(siblings(), Vec::<String>::new());
}

#[test]
fn a_rebuild_through_the_cache_refuses_an_artifact_edited_in_place() {
    let temp = tempfile::tempdir().unwrap();
    let project = curator_copy(temp.path());
    let host = stand_in_host(temp.path());
    let out = temp.path().join("out");
    let cache = BuildCache::default();
    let dev = options(&project, &host, out.clone());
    build_project_reusing(&dev, AppProfile::Production, Some(&cache)).expect("first build");

    // The same length and the modification time put back: only the inode's change time, which
    // no one can set back, tells that the file was edited.
    let edited = out.join("INSTALL.md");
    let modified = std::fs::metadata(&edited).unwrap().modified().unwrap();
    let mut bytes = std::fs::read(&edited).unwrap();
    bytes[0] = if bytes[0] == b'#' { b'%' } else { b'#' };
    std::fs::write(&edited, &bytes).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&edited)
        .unwrap()
        .set_modified(modified)
        .unwrap();

    let refused = build_project_reusing(&dev, AppProfile::Production, Some(&cache))
        .expect_err("an edited artifact is not replaced");
    let BuildFailure::Diagnostics { diagnostics, .. } = refused else {
        panic!("expected the refusal as a diagnostic, got {refused}");
    };
    let refusal: Vec<_> = diagnostics
        .iter()
        .filter(|diagnostic| diagnostic.code == Code::AB5340)
        .collect();
    assert_eq!(refusal.len(), 1, "{diagnostics:#?}");
    assert!(
        refusal[0]
            .message
            .contains("`INSTALL.md` (changed since abgen wrote it)"),
        "{}",
        refusal[0].message
    );
    assert_eq!(
        std::fs::read(&edited).unwrap(),
        bytes,
        "left as the user left it"
    );
}

/// A schema whose properties only change order is a changed route: hosts show parameters in
/// that order, and the manifest keeps it, so a rebuild writes the new order as a fresh build
/// does (the kept route's forms are equal to the new ones as maps, not as texts).
#[test]
fn a_rebuild_writes_the_new_order_of_a_schema_s_properties() {
    let temp = tempfile::tempdir().unwrap();
    let project = curator_copy(temp.path());
    let host = stand_in_host(temp.path());
    let dev_out = temp.path().join("dev-out");
    let cache = BuildCache::default();
    let dev = options(&project, &host, dev_out.clone());
    // Two optional members, so that their order is all that changes (not `required`).
    let (rating, note) = (
        "          rating: z.int().min(1).max(5).optional(),\n",
        "          note: z.string().optional(),\n",
    );
    replace_in(&project.join(TOOL), rating, &format!("{rating}{note}"));
    build_project_reusing(&dev, AppProfile::Production, Some(&cache)).expect("first build");
    let manifest = |out: &Path| std::fs::read_to_string(out.join("abgen.manifest.json")).unwrap();
    let first = manifest(&dev_out);
    replace_in(
        &project.join(TOOL),
        &format!("{rating}{note}"),
        &format!("{note}{rating}"),
    );
    build_project_reusing(&dev, AppProfile::Production, Some(&cache)).expect("rebuild");
    let fresh_out = temp.path().join("fresh-out");
    build_project(&options(&project, &host, fresh_out.clone())).expect("fresh build");
    let rebuilt = manifest(&dev_out);
    assert!(rebuilt != first, "the new order reached the manifest");
    assert!(
        rebuilt == manifest(&fresh_out),
        "the rebuilt manifest differs from a fresh build's"
    );
}
