//! `schemas/route-graph.schema.json` describes the graphs abgen really builds: every fixture
//! project's graph and the example plugin's validate against it, and broken graphs do not.

use std::path::{Path, PathBuf};

use abgen::check::{CheckOptions, check_project};
use serde_json::Value;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn validator() -> jsonschema::Validator {
    let text = std::fs::read_to_string(workspace().join("schemas/route-graph.schema.json"))
        .expect("the schema is readable");
    let schema: Value = serde_json::from_str(&text).expect("the schema is JSON");
    jsonschema::draft202012::new(&schema).expect("the schema compiles under 2020-12")
}

fn graph_of(root: &Path) -> Option<Value> {
    let result = check_project(&CheckOptions {
        root: root.to_path_buf(),
        targets: None,
    });
    result
        .graph
        .map(|graph| serde_json::to_value(graph).expect("the graph serializes"))
}

fn projects() -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = std::fs::read_dir(workspace().join("fixtures/projects"))
        .expect("fixtures/projects is readable")
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.is_dir())
        .collect();
    let example = workspace().join("examples/curator");
    if example.join("src").is_dir() {
        roots.push(example);
    }
    roots.sort();
    roots
}

#[test]
fn real_graphs_validate() {
    let validator = validator();
    let mut validated = Vec::new();
    for root in projects() {
        let Some(graph) = graph_of(&root) else {
            continue;
        };
        let errors: Vec<String> = validator
            .iter_errors(&graph)
            .map(|error| format!("{} at {}", error, error.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "{}: {}",
            root.display(),
            errors.join("; ")
        );
        validated.push(root);
    }
    let with_routes = validated
        .iter()
        .filter(|root| root.ends_with("valid-all-kinds"))
        .count();
    assert_eq!(
        with_routes, 1,
        "the graph with every route kind was validated"
    );
    assert!(
        validated.len() >= 10,
        "only {} graphs validated",
        validated.len()
    );
}

#[test]
fn broken_graphs_are_refused() {
    let validator = validator();
    let graph = graph_of(&workspace().join("fixtures/projects/valid-all-kinds")).expect("a graph");
    let broken = [
        ("/targets", serde_json::json!(["vscode"])),
        ("/servers/0/mode", serde_json::json!("automatic")),
        ("/routes/0/id", serde_json::json!("tool:no-slash")),
        ("/providers/0/key", serde_json::json!("processLifetime")),
        ("/layouts/0/id", serde_json::json!("layout:elsewhere")),
    ];
    for (pointer, value) in broken {
        let mut copy = graph.clone();
        *copy.pointer_mut(pointer).expect("the pointer exists") = value;
        assert!(!validator.is_valid(&copy), "{pointer} was accepted");
    }
    let mut event_with_server = graph.clone();
    let routes = event_with_server["routes"].as_array_mut().expect("routes");
    let event = routes
        .iter_mut()
        .find(|r| r["kind"] == "event")
        .expect("an event route");
    event["server"] = serde_json::json!("notes");
    assert!(
        !validator.is_valid(&event_with_server),
        "an event route with a server was accepted"
    );
}
