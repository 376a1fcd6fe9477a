//! `agent-bundle.config.*` files: `defineConfig`, plain objects, JSON, and refusals.

use serde_json::json;

use super::render_diagnostics;
use crate::extract::extract_config_module;

fn read(path: &str, source: &str) -> (Option<serde_json::Value>, String) {
    let read = extract_config_module(path, source);
    (
        read.value.map(serde_json::Value::Object),
        render_diagnostics(&read.diagnostics),
    )
}

#[test]
fn define_config_with_an_alias() {
    let source = "import { defineConfig as config } from 'agent-bundle/config';\nconst NAME = 'fx';\nexport default config({ plugin: { name: NAME }, targets: ['claude', 'codex'] });\n";
    let read = extract_config_module("agent-bundle.config.ts", source);
    assert!(
        read.diagnostics.is_empty(),
        "{}",
        render_diagnostics(&read.diagnostics)
    );
    assert_eq!(
        serde_json::Value::Object(read.value.unwrap()),
        json!({"plugin": {"name": "fx"}, "targets": ["claude", "codex"]})
    );
    let target = &read.locations["/targets/1"];
    assert_eq!((target.line, target.column), (Some(3), Some(69)));
    assert_eq!(read.locations["/plugin/name"].column, Some(41));
}

#[test]
fn plain_objects_and_const_references() {
    for source in [
        "export default { plugin: { name: 'fx' } };",
        "export default { plugin: { name: 'fx' } } satisfies Config;",
        "const config = { plugin: { name: 'fx' } };\nexport default config;",
        "const config = { plugin: { name: 'fx' } };\nexport { config as default };",
    ] {
        assert_eq!(
            read("agent-bundle.config.ts", source),
            (Some(json!({"plugin": {"name": "fx"}})), String::new()),
            "{source}"
        );
    }
}

#[test]
fn json_files_keep_positions() {
    let read = extract_config_module(
        "agent-bundle.config.json",
        "{\n  \"plugin\": { \"name\": \"fx\" }\n}\n",
    );
    assert!(read.diagnostics.is_empty());
    assert_eq!(read.locations["/plugin/name"].line, Some(2));
    assert_eq!(read.locations["/plugin/name"].column, Some(23));
    let (value, diagnostics) = read_json("{ \"plugin\": ");
    assert_eq!(value, None);
    assert!(diagnostics.starts_with("AB5300"), "{diagnostics}");
    assert_eq!(
        read_json("[1]"),
        (
            None,
            "AB4805 1:1 the config is an array, not an object".to_owned()
        )
    );
}

fn read_json(source: &str) -> (Option<serde_json::Value>, String) {
    read("agent-bundle.config.json", source)
}

#[test]
fn factories_and_computed_values_are_refused() {
    let import = "import { defineConfig } from 'agent-bundle/config';\n";
    for (body, construct) in [
        (
            "export default defineConfig(() => ({ plugin: { name: 'fx' } }));",
            "a function expression",
        ),
        (
            "export default defineConfig({ plugin: { name: process.env.NAME } });",
            "a member expression",
        ),
        (
            "export default function config() { return {}; }",
            "a function declaration",
        ),
        ("export default makeConfig();", "a call expression"),
        ("export { default } from './base';", "a re-export"),
    ] {
        let (value, diagnostics) = read("agent-bundle.config.ts", &format!("{import}{body}"));
        assert_eq!(value, None, "{body}");
        assert!(
            diagnostics.starts_with("AB4806 2:") && diagnostics.contains(construct),
            "{body}: {diagnostics}"
        );
    }
    let (value, diagnostics) = read("agent-bundle.config.ts", "export const x = 1;\n");
    assert_eq!(
        (value, diagnostics.as_str()),
        (None, "AB4805 0:0 the config file has no default export")
    );
}
