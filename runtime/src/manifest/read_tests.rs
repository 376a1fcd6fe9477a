use std::path::Path;

use super::{MANIFEST_VERSION, read_manifest_head};

/// A manifest head in the canonical layout, `padding` bytes of file paths long, then `tail`.
fn canonical(padding: usize, tail: &str) -> String {
    format!(
        "{{\n  \"digest\": \"{digest}\",\n  \"files\": [\n    \"{path}\"\n  ],\n  \"limits\": {{\n    \"hookInputMaxBytes\": 1048576,\n    \"render\": {{\n      \"maxBytes\": 4096,\n      \"maxElapsedMs\": 5000\n    }}\n  }},\n  \"manifestVersion\": {MANIFEST_VERSION},\n  \"routes\": [{tail}",
        digest = "ab".repeat(32),
        path = "p".repeat(padding),
    )
}

fn head_of(text: &str) -> Option<super::ManifestHead> {
    let temp = tempfile::tempdir().unwrap();
    let path = temp.path().join("abgen.manifest.json");
    std::fs::write(&path, text).unwrap();
    read_manifest_head(&path)
}

#[test]
fn the_head_is_read_as_far_as_the_routes_and_no_further() {
    // Past the routes line the text is no JSON: only the head can have been read.
    let head = head_of(&canonical(10, "{{{{")).unwrap();
    assert_eq!(head.digest, "ab".repeat(32));
    assert_eq!(head.limits.render.max_bytes, 4096);
    assert_eq!(head.manifest_version, MANIFEST_VERSION);
}

#[test]
fn a_routes_line_across_two_reads_is_found() {
    // The file is read 64 KiB at a time: heads of every length around that boundary put the
    // routes line across it.
    let base = canonical(0, "").len();
    for padding in (64 * 1024 - base - 20)..(64 * 1024 - base + 20) {
        assert!(head_of(&canonical(padding, "{")).is_some(), "{padding}");
    }
}

#[test]
fn another_layout_another_version_or_no_file_is_no_head() {
    let minified = canonical(3, "]}").replace(['\n', ' '], "");
    assert_eq!(head_of(&minified), None);
    let older = canonical(3, "").replace(
        &format!("\"manifestVersion\": {MANIFEST_VERSION}"),
        "\"manifestVersion\": 1",
    );
    assert_eq!(head_of(&older), None);
    assert_eq!(
        head_of(&canonical(3, "").replace("\"limits\"", "\"other\"")),
        None
    );
    assert_eq!(
        read_manifest_head(Path::new("/nonexistent/abgen.manifest.json")),
        None
    );
}
