//! Cursor has no command-line tool on npm, so its documents are checked against JSON Schemas
//! (draft-07) written from Cursor's documentation (`schemas/hosts/cursor-*.schema.json`): the
//! curator built for every host, and the manifest's pointers lead to those very documents.

use std::path::Path;

use abgen::emit::{BuildOptions, build_project};
use serde_json::Value;

mod support;

use support::repo;

fn json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn validator(schema: &str) -> jsonschema::Validator {
    let schema = json(&repo().join("schemas/hosts").join(schema));
    jsonschema::draft7::new(&schema).expect("the schema compiles")
}

fn assert_valid(schema: &str, document: &Value) {
    let errors: Vec<String> = validator(schema)
        .iter_errors(document)
        .map(|error| format!("{} at {}", error, error.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}\n{document}");
}

#[test]
fn cursor_documents_follow_cursors_documentation() {
    let temp = tempfile::tempdir().unwrap();
    let host = temp.path().join("abgen-host");
    std::fs::write(&host, "#!/bin/sh\nexit 2\n").unwrap();
    let out = temp.path().join("artifact");
    build_project(&BuildOptions {
        root: support::curator_copy(temp.path()),
        targets: Some(
            ["claude", "codex", "cursor", "portable"]
                .map(String::from)
                .to_vec(),
        ),
        out: Some(out.clone()),
        host_binary: Some(host),
        platforms: None,
        node_modules: None,
        worker: Default::default(),
    })
    .unwrap_or_else(|failure| panic!("{failure}: {failure:?}"));

    let manifest = json(&out.join(".cursor-plugin/plugin.json"));
    assert_valid("cursor-plugin.schema.json", &manifest);
    let pointed = |key: &str| out.join(manifest[key].as_str().unwrap().trim_start_matches("./"));
    let hooks = json(&pointed("hooks"));
    assert_valid("cursor-hooks.schema.json", &hooks);
    assert_valid("cursor-mcp.schema.json", &json(&pointed("mcpServers")));
    assert!(pointed("skills").join("reading-notes/SKILL.md").is_file());
    let events: Vec<&String> = hooks["hooks"].as_object().unwrap().keys().collect();
    assert_eq!(events, ["postToolUse", "sessionStart", "stop"]);
    // The schemas tell hosts apart: Claude's grouped hooks document is not Cursor's.
    let claude_hooks = json(&out.join("hooks/hooks.json"));
    assert!(!validator("cursor-hooks.schema.json").is_valid(&claude_hooks));
}
