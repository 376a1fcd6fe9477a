//! `abgen schema` as a user runs it: every tool of `examples/curator`, both sides, every
//! profile prints a schema that the `jsonschema` crate compiles under the draft it declares;
//! the failures a user can meet (a schema left to run time, an unknown tool, a host profile
//! that cannot take a schema) exit 1 with the reason.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

const PROFILES: [&str; 5] = ["2020-12", "draft-07-lax", "claude", "codex", "cursor"];
const CURATOR_TOOLS: [&str; 5] = [
    "catalog_audit",
    "export_bibliography",
    "search_books",
    "shelve_book",
    "show_shelf",
];

fn path(relative: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(relative)
        .to_string_lossy()
        .into_owned()
}

/// Exit code, stdout and stderr of `abgen schema args…`.
fn schema(args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_abgen"))
        .arg("schema")
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("abgen runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn compiles_under_declared_draft(schema: &Value) -> Result<(), String> {
    let compiled = match schema["$schema"].as_str() {
        Some("http://json-schema.org/draft-07/schema#") => jsonschema::draft7::new(schema),
        Some("https://json-schema.org/draft/2020-12/schema") => {
            jsonschema::draft202012::new(schema)
        }
        other => return Err(format!("unexpected $schema {other:?}")),
    };
    compiled.map(|_| ()).map_err(|error| error.to_string())
}

#[test]
fn every_curator_tool_prints_in_every_profile() {
    let root = path("examples/curator");
    let mut printed = 0;
    for tool in CURATOR_TOOLS {
        let route = format!("tool:library/{tool}");
        for io in ["input", "output"] {
            for profile in PROFILES {
                let (code, stdout, stderr) = schema(&[
                    "--root",
                    &root,
                    "--route",
                    &route,
                    "--io",
                    io,
                    "--profile",
                    profile,
                ]);
                // catalog_audit's result is `z.undefined()`: no output schema, by design.
                if tool == "catalog_audit" && io == "output" {
                    assert_eq!(code, 1, "{route} {io} {profile}");
                    assert!(stderr.contains("has no output schema"), "{stderr}");
                    continue;
                }
                assert_eq!(code, 0, "{route} {io} {profile}: {stderr}");
                let value: Value = serde_json::from_str(&stdout).expect("canonical JSON");
                assert_eq!(
                    abgen::emit::canonical_json::schema_to_canonical_json(&value),
                    stdout,
                    "{route} {io} {profile}: not in the canonical writer's layout"
                );
                compiles_under_declared_draft(&value)
                    .unwrap_or_else(|error| panic!("{route} {io} {profile}: {error}"));
                printed += 1;
            }
        }
    }
    assert_eq!(printed, 45);
}

#[test]
fn search_books_input_keeps_the_authors_parameter_order() {
    let root = path("examples/curator");
    let (code, stdout, _) = schema(&["--root", &root, "--route", "tool:library/search_books"]);
    assert_eq!(code, 0);
    insta::assert_snapshot!("search_books_input", stdout);
}

#[test]
fn failures_name_the_reason() {
    let lazy = path("fixtures/projects/ab5102-lazy");
    let (code, _, stderr) = schema(&["--root", &lazy, "--route", "tool:fx/outline"]);
    assert_eq!(code, 1);
    insta::assert_snapshot!("runtime_schema", stderr);

    let (code, _, stderr) = schema(&["--root", &lazy, "--route", "tool:fx/missing"]);
    assert_eq!(code, 1);
    insta::assert_snapshot!("unknown_route", stderr);

    let union = path("fixtures/projects/ab5210-root-union");
    let (code, _, stderr) = schema(&[
        "--root",
        &union,
        "--route",
        "tool:fx/lookup",
        "--profile",
        "claude",
    ]);
    assert_eq!(code, 1);
    insta::assert_snapshot!("claude_root_union", stderr);

    let (code, _, stderr) = schema(&[
        "--root",
        &union,
        "--route",
        "tool:fx/lookup",
        "--profile",
        "gemini",
    ]);
    assert_eq!(code, 1);
    assert!(stderr.contains("unknown profile `gemini`"), "{stderr}");
}
