use std::os::unix::fs::MetadataExt;

use super::*;

const DIGEST: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

/// An output as `abgen build` leaves it, as far as a pin reads it: files and a manifest with
/// their table and the digest.
fn artifact(out: &Path, digest: &str, files: &[(&str, &str)]) {
    let table: Vec<serde_json::Value> = files
        .iter()
        .map(|(path, text)| {
            let file = out.join(path);
            fs::create_dir_all(file.parent().unwrap()).unwrap();
            fs::write(&file, text).unwrap();
            serde_json::json!({ "path": path, "sha256": "00", "mode": 420 })
        })
        .collect();
    let manifest = serde_json::json!({ "digest": digest, "files": table, "routes": [] });
    fs::write(out.join(MANIFEST_FILE_NAME), manifest.to_string()).unwrap();
}

#[test]
fn a_pin_is_the_epoch_as_it_was_and_goes_with_its_holder() {
    let temp = tempfile::tempdir().unwrap();
    let out = temp.path().join("out");
    let epochs = temp.path().join("epochs");
    artifact(
        &out,
        DIGEST,
        &[
            ("runtime/worker.mjs", "old worker"),
            ("bin/abgen-host", "host"),
        ],
    );
    let pin = pin_artifact(&out, DIGEST, &epochs).unwrap();
    assert!(pin.dir().starts_with(&epochs));
    let pinned_worker = pin.dir().join("runtime/worker.mjs");
    assert_eq!(
        fs::metadata(&pinned_worker).unwrap().ino(),
        fs::metadata(out.join("runtime/worker.mjs")).unwrap().ino(),
        "a link, not a copy, on one file system"
    );
    assert!(pin.dir().join(MANIFEST_FILE_NAME).is_file());

    // The next build replaces the file as a build does (a new file renamed over the old one).
    fs::write(out.join("runtime/.worker.new"), "new worker").unwrap();
    fs::rename(
        out.join("runtime/.worker.new"),
        out.join("runtime/worker.mjs"),
    )
    .unwrap();
    assert_eq!(fs::read_to_string(&pinned_worker).unwrap(), "old worker");

    let dir = pin.dir().to_path_buf();
    drop(pin);
    assert!(!dir.exists());
    assert_eq!(fs::read_dir(&epochs).unwrap().count(), 0);
}

#[test]
fn another_epoch_in_place_or_a_tree_going_away_is_a_change_and_leaves_nothing() {
    let temp = tempfile::tempdir().unwrap();
    let out = temp.path().join("out");
    let epochs = temp.path().join("epochs");
    artifact(&out, DIGEST, &[("runtime/worker.mjs", "worker")]);
    let other = "f".repeat(64);
    assert!(matches!(
        pin_artifact(&out, &other, &epochs),
        Err(PinFailure::Changed)
    ));

    // A file of the table removed: the tree is being removed after a swap.
    fs::remove_file(out.join("runtime/worker.mjs")).unwrap();
    assert!(matches!(
        pin_artifact(&out, DIGEST, &epochs),
        Err(PinFailure::Changed)
    ));
    assert_eq!(fs::read_dir(&epochs).unwrap().count(), 0, "no partial pin");

    fs::remove_file(out.join(MANIFEST_FILE_NAME)).unwrap();
    assert!(matches!(
        pin_artifact(&out, DIGEST, &epochs),
        Err(PinFailure::Changed)
    ));
    match pin_artifact(&temp.path().join("nowhere"), DIGEST, &epochs) {
        Err(PinFailure::Failed(why)) => assert!(why.contains("no longer at"), "{why}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_file_table_path_outside_the_artifact_is_refused() {
    let temp = tempfile::tempdir().unwrap();
    let out = temp.path().join("out");
    fs::create_dir_all(&out).unwrap();
    let manifest = serde_json::json!({
        "digest": DIGEST,
        "files": [{ "path": "../secret", "sha256": "00", "mode": 420 }],
    });
    fs::write(out.join(MANIFEST_FILE_NAME), manifest.to_string()).unwrap();
    fs::write(temp.path().join("secret"), "not the artifact's").unwrap();
    let epochs = temp.path().join("epochs");
    match pin_artifact(&out, DIGEST, &epochs) {
        Err(PinFailure::Failed(why)) => assert!(why.contains("../secret"), "{why}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(fs::read_dir(&epochs).unwrap().count(), 0);
}

#[test]
fn only_the_pins_of_proxies_that_ended_are_removed() {
    let temp = tempfile::tempdir().unwrap();
    let epochs = temp.path();
    // No process has a pid above the kernel's limit (2^22).
    let dead = epochs.join(format!("{DIGEST}.4194400.0"));
    let live = epochs.join(format!("{DIGEST}.{}.0", std::process::id()));
    let foreign = epochs.join("notes");
    let not_a_pin = epochs.join(format!("{DIGEST}.4194400"));
    for dir in [&dead, &live, &foreign, &not_a_pin] {
        fs::create_dir_all(dir).unwrap();
    }
    remove_stale_pins(epochs);
    assert!(!dead.exists());
    assert!(live.exists() && foreign.exists() && not_a_pin.exists());
}
