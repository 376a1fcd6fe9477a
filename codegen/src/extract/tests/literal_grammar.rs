//! The static literal grammar: what it accepts (with locations) and how it names what it
//! refuses (AB4806), plus the `config` declaration shapes it refuses (AB4805).

use serde_json::json;

use super::{check_diagnostics, extract, render_diagnostics, tool};

/// The config of an App module holding `export const config = <value>`.
fn config_of(prelude: &str, value: &str) -> (serde_json::Value, String) {
    let kind = crate::project::ModuleKind::App {
        server: "demo".into(),
        name: "board".into(),
    };
    let source = format!("{prelude}\nexport const config = {value};\n");
    let extracted = extract(&kind, &source);
    (
        serde_json::Value::Object(extracted.module.config.as_ref().clone()),
        render_diagnostics(&extracted.diagnostics),
    )
}

#[test]
fn accepts_every_form_of_the_grammar() {
    let (config, diagnostics) = config_of(
        "const URI = 'ui://demo/board' as const;\nconst TITLE = `Board`;",
        r#"{
  resourceUri: URI,
  'quoted-key': "double",
  1: 'numeric key',
  1.5: 'fractional key',
  title: TITLE,
  template: `plain ${'$'}{not} substituted`.length === 0 ? 'x' : `no substitutions`,
}"#,
    );
    // The conditional above is outside the grammar: the reader must refuse it.
    assert_eq!(config, json!({}));
    assert!(diagnostics.starts_with("AB4806"), "{diagnostics}");

    let (config, diagnostics) = config_of(
        "const URI = 'ui://demo/board' as const;\nconst TITLE = `Board`;",
        r#"{
  resourceUri: URI,
  'quoted-key': "double",
  1: 'numeric key',
  1.5: 'fractional key',
  title: TITLE,
  template: `no substitutions`,
  numbers: [0, -1, +2, 1.25, -0, 1e3, 0x10, (3)],
  flags: { on: true, off: false, none: null },
  casts: ['a' as string, ('b' satisfies string), 'd'!],
  nested: [[{ deep: [] }]],
} as const"#,
    );
    assert_eq!(diagnostics, "");
    assert_eq!(
        config,
        json!({
            "resourceUri": "ui://demo/board",
            "quoted-key": "double",
            "1": "numeric key",
            "1.5": "fractional key",
            "title": "Board",
            "template": "no substitutions",
            "numbers": [0, -1, 2, 1.25, 0, 1000, 16, 3],
            "flags": {"on": true, "off": false, "none": null},
            "casts": ["a", "b", "d"],
            "nested": [[{"deep": []}]],
        })
    );
}

#[test]
fn type_assertions_parse_in_ts_files() {
    let kind = crate::project::ModuleKind::App {
        server: "demo".into(),
        name: "board".into(),
    };
    let source = "export const config = { resourceUri: <string>'ui://demo/board' };\n";
    let extracted = crate::extract::extract_module("src/mcp/demo/apps/board.ts", &kind, source);
    assert!(
        extracted.diagnostics.is_empty(),
        "{}",
        render_diagnostics(&extracted.diagnostics)
    );
    assert_eq!(extracted.module.config["resourceUri"], "ui://demo/board");
}

#[test]
fn locations_cover_every_value_with_escaped_pointers() {
    let kind = crate::project::ModuleKind::App {
        server: "demo".into(),
        name: "board".into(),
    };
    let source =
        "export const config = {\n  resourceUri: 'ui://x',\n  'a/b~c': [1, { d: 2 }],\n};\n";
    let module = extract(&kind, source).module;
    let located: Vec<String> = module
        .config_locations
        .iter()
        .map(|(pointer, location)| {
            format!(
                "{pointer} {}:{}",
                location.line.unwrap(),
                location.column.unwrap()
            )
        })
        .collect();
    assert_eq!(
        located,
        [
            "/a~1b~0c 3:12",
            "/a~1b~0c/0 3:13",
            "/a~1b~0c/1 3:16",
            "/a~1b~0c/1/d 3:21",
            "/resourceUri 2:16"
        ]
    );
}

#[test]
fn names_every_refused_construct() {
    for (value, construct) in [
        ("{ a: b }", "a reference to the identifier \"b\""),
        ("{ a: undefined }", "the non-JSON value `undefined`"),
        ("{ a: f() }", "a call expression"),
        ("{ a: `x${1}` }", "a template literal with substitutions"),
        ("{ a: () => 1 }", "a function expression"),
        ("{ a: function () {} }", "a function expression"),
        ("{ ...base }", "a spread"),
        ("{ a: [...list] }", "a spread"),
        ("{ a }", "a shorthand property reference"),
        ("{ a() {} }", "a method or accessor"),
        ("{ get a() { return 1; } }", "a method or accessor"),
        ("{ [key]: 1 }", "a computed property name"),
        ("{ ['a']: 1 }", "a computed property name"),
        ("{ a: [1, , 2] }", "an array hole"),
        ("{ a: 10n }", "a bigint literal"),
        ("{ a: /x/ }", "a regular expression literal"),
        ("{ a: process.env.X }", "a member expression"),
        ("{ a: -x }", "a signed non-number"),
        ("{ a: 1 + 1 }", "a binary expression"),
        ("{ a: new Date() }", "a `new` expression"),
        ("{ a: tag`x` }", "a tagged template expression"),
        ("{ a: NaN }", "a reference to the identifier \"NaN\""),
        ("{ a: 1e999 }", "a non-finite number"),
    ] {
        let (config, diagnostics) = config_of("", value);
        assert_eq!(config, json!({}), "{value}");
        let expected = format!("dynamic config: {construct} at 2:");
        assert!(
            diagnostics.starts_with("AB4806 2:") && diagnostics.contains(&expected),
            "{value}: {diagnostics}"
        );
        assert_eq!(diagnostics.lines().count(), 1, "{value}: {diagnostics}");
    }
}

#[test]
fn a_string_const_reference_must_hold_a_string() {
    for prelude in [
        "let URI = 'x';",
        "const URI = 1;",
        "const URI = `a${1}`;",
        "import { URI } from './uris';",
    ] {
        let (config, diagnostics) = config_of(prelude, "{ resourceUri: URI }");
        assert_eq!(config, json!({}), "{prelude}");
        assert!(
            diagnostics.contains("a reference to the identifier \"URI\""),
            "{prelude}: {diagnostics}"
        );
    }
}

#[test]
fn rejected_declaration_shapes() {
    let app = crate::project::ModuleKind::App {
        server: "demo".into(),
        name: "board".into(),
    };
    for (source, reason) in [
        (
            "export let config = { resourceUri: 'ui://x' };",
            "a mutable `let`/`var` declaration",
        ),
        (
            "export var config = { resourceUri: 'ui://x' };",
            "a mutable `let`/`var` declaration",
        ),
        (
            "export const { config } = { config: {} };",
            "a destructuring declaration",
        ),
        (
            "export declare const config: { resourceUri: string };",
            "a declaration without an initializer",
        ),
        (
            "const config = { resourceUri: 'ui://x' };\nexport { config };",
            "an indirect `export { config }` clause",
        ),
        (
            "export { config } from './config';",
            "an indirect `export { config }` clause",
        ),
        (
            "export function config() {}",
            "a function or class declaration",
        ),
        ("export class config {}", "a function or class declaration"),
    ] {
        let extracted = extract(&app, source);
        let diagnostics = render_diagnostics(&extracted.diagnostics);
        assert_eq!(
            diagnostics,
            format!(
                "AB4805 {}",
                diagnostics.split_once(' ').map_or("", |(_, rest)| rest)
            )
        );
        assert!(
            diagnostics.ends_with(&format!("`config` is exported through {reason}")),
            "{source}: {diagnostics}"
        );
        assert!(extracted.module.config.is_empty());
    }
}

#[test]
fn non_object_values() {
    for (value, what) in [
        ("null", "`null`"),
        ("['a']", "an array"),
        ("'x'", "a string"),
        ("-1", "a number"),
        ("true", "a boolean"),
    ] {
        let (_, diagnostics) = config_of("", value);
        assert_eq!(
            diagnostics,
            format!("AB4805 2:23 `config` is {what}, not an object"),
            "{value}"
        );
    }
}

#[test]
fn definition_options_use_the_same_grammar() {
    let extracted = check_diagnostics(
        &tool(),
        r#"import { defineTool } from 'agent-bundle/routes';
import { z } from 'zod';
export default defineTool(
  {
    description: describe(),
//               ^ AB4806
    ...rest,
    inputSchema: z.object({}),
    resultSchema: z.object({}),
  },
  async () => null,
);
"#,
    );
    // The config is rejected as a whole, the schemas are still captured.
    assert!(extracted.module.config.is_empty());
    assert!(extracted.module.config_locations.is_empty());
    assert!(extracted.module.input_schema.is_some() && extracted.module.result_schema.is_some());
}
