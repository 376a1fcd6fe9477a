//! Shared by the schema tests: the oracle corpus as zod prints it (run with Node), and every
//! schema abgen prints for it and for `examples/curator`.

// Every schema test binary includes this module and uses a part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use abgen::check::{CheckOptions, check_project};
use abgen::project::FsReader;
use abgen::schema::{Io, RouteSchema, Schema, print_2020_12, translate_const};
use serde_json::Value;

pub fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `node <script>` run in the repository with `stdin`, its stdout parsed as JSON.
pub fn node_json(script: &str, stdin: Option<&str>) -> Value {
    use std::io::Write;
    let node = std::env::var("ABGEN_NODE").unwrap_or_else(|_| "node".to_owned());
    let mut child = Command::new(node)
        .arg(script)
        .current_dir(repository())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("node runs (the schema tests need Node 20 and the workspace's packages)");
    if let Some(mut pipe) = child.stdin.take() {
        pipe.write_all(stdin.unwrap_or("").as_bytes())
            .expect("node reads its input");
    }
    let output = child.wait_with_output().expect("node finishes");
    assert!(
        output.status.success(),
        "{script} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("the script prints JSON")
}

/// zod's output for every corpus case and side: `{name, io, expression, prelude, schema|error}`.
pub fn oracle() -> Vec<Value> {
    node_json("fixtures/schemas/oracle.mjs", None)
        .as_array()
        .cloned()
        .expect("the oracle prints an array")
}

pub fn io_of(result: &Value) -> Io {
    if result["io"] == "output" {
        Io::Output
    } else {
        Io::Input
    }
}

/// abgen's static translation of one corpus case.
pub fn translate_case(result: &Value) -> Result<Schema, abgen::schema::Fallback> {
    let text = format!(
        "import {{ z }} from 'zod';\n{}\nexport const schema = {};\n",
        result["prelude"].as_str().unwrap_or_default(),
        result["expression"].as_str().unwrap_or_default()
    );
    translate_const(&repository(), &FsReader, "case.ts", &text, "schema")
}

/// Every 2020-12 schema abgen prints for the corpus (both sides) and the curator's tools, each
/// with a name saying where it comes from.
pub fn printed_schemas() -> Vec<(String, Value)> {
    let mut schemas = Vec::new();
    for result in oracle() {
        let io = io_of(&result);
        if let Ok(schema) = translate_case(&result)
            && let Ok(printed) = print_2020_12(&schema, io)
        {
            let name = format!(
                "{}/{}",
                result["name"].as_str().unwrap_or_default(),
                result["io"].as_str().unwrap_or_default()
            );
            schemas.push((name, printed));
        }
    }
    let curator = check_project(&CheckOptions {
        root: repository().join("examples/curator"),
        targets: None,
    });
    for (id, route) in &curator.schemas {
        for (side, schema) in [("input", &route.input), ("output", &route.output)] {
            if let RouteSchema::Static(schema) = schema
                && let Some(json) = schema.json()
            {
                schemas.push((format!("{id}/{side}"), json));
            }
        }
    }
    schemas
}
