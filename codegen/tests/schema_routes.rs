//! Translation across modules as a project uses it: consts exported by relative modules outside
//! the route set (`.js` specifiers mapped to TypeScript sources, extensionless specifiers),
//! `import * as z` and aliased `z` imports, and what falls back to run time with which code.

use std::path::Path;

use abgen::check::{CheckOptions, check_project};
use abgen::diagnostics::Code;
use abgen::emit::canonical_json::schema_to_canonical_json;
use abgen::project::FsReader;
use abgen::schema::{Io, RouteSchema, RouteSchemas, StaticSchema, translate_const};

fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/projects")
        .join(name)
}

#[test]
fn shared_schemas_translate_without_a_warning() {
    let checked = check_project(&CheckOptions {
        root: fixture("valid-shared-schemas"),
        targets: None,
    });
    assert!(checked.diagnostics.is_empty(), "{:#?}", checked.diagnostics);
    // Each shared module was read once, for its consts, and is kept for diagnostics.
    assert!(checked.sources.contains_key("src/schemas/book.ts"));
    assert!(checked.sources.contains_key("src/schemas/paging.ts"));
    let mut text = String::new();
    for (id, route) in &checked.schemas {
        for (side, schema) in [("input", &route.input), ("output", &route.output)] {
            let printed = match schema {
                RouteSchema::Static(schema) => {
                    schema_to_canonical_json(&schema.json().expect("a static schema prints"))
                }
                other => format!("{other:?}\n"),
            };
            text.push_str(&format!("{id} {side}\n{printed}\n"));
        }
    }
    insta::assert_snapshot!("shared_schemas", text);
}

/// The code with which `schema` of a module whose text is `text` falls back, if it does.
fn fallback_code(root: &Path, text: &str) -> Option<Code> {
    translate_const(root, &FsReader, "src/case.ts", text, "schema")
        .err()
        .map(|fallback| fallback.code)
}

#[test]
fn references_that_cannot_be_followed_fall_back_with_their_code() {
    let root = tempfile::tempdir().expect("tempdir");
    let src = root.path().join("src");
    std::fs::create_dir_all(&src).expect("mkdir");
    std::fs::write(
        src.join("shared.ts"),
        "import { z } from 'zod';\nconst hidden = z.string();\nexport const shown = z.number();\nexport const loop = z.array(loop);\n",
    )
    .expect("write");
    let root = root.path();
    let cases = [
        (
            "import { z } from 'zod';\nimport { shown } from './shared.js';\nexport const schema = z.object({ n: shown });",
            None,
        ),
        (
            "import { z } from 'zod';\nimport { hidden } from './shared';\nexport const schema = z.object({ n: hidden });",
            Some(Code::AB5104),
        ),
        (
            "import { z } from 'zod';\nimport { loop } from './shared';\nexport const schema = loop;",
            Some(Code::AB4839),
        ),
        (
            "import { z } from 'zod';\nimport { Thing } from 'some-package';\nexport const schema = z.object({ t: Thing });",
            Some(Code::AB5104),
        ),
        (
            "import { z } from 'zod';\nimport { gone } from './missing.js';\nexport const schema = gone;",
            Some(Code::AB5104),
        ),
        (
            "import { z } from 'zod';\nlet later = z.string();\nexport const schema = z.object({ a: later });",
            Some(Code::AB5104),
        ),
        (
            "import { z } from 'zod';\nexport const schema = z.custom();",
            Some(Code::AB5102),
        ),
        (
            "import { z } from 'zod';\nexport const schema = z.string().default(() => 'x');",
            Some(Code::AB5102),
        ),
        (
            "import { z } from 'zod';\nexport const schema = z.string().pipe(z.number());",
            Some(Code::AB5101),
        ),
        (
            "import { z } from 'zod';\nexport const schema = z.map(z.string(), z.number());",
            Some(Code::AB5105),
        ),
        (
            "import { z } from 'zod';\nexport const schema = z.string().superRefine(check).frobnicate();",
            Some(Code::AB5101),
        ),
        (
            "import * as z from 'zod';\nexport const schema = z.object({ a: z.iso.date() });",
            None,
        ),
        (
            "import { z as zod } from 'zod';\nconst alias = zod;\nexport const schema = alias.object({ a: alias.string() });",
            None,
        ),
        (
            "import { object, string } from 'zod';\nexport const schema = object({ a: string() });",
            None,
        ),
        (
            "import { z } from 'zod';\nimport { z as other } from 'not-zod';\nexport const schema = other.string();",
            Some(Code::AB5104),
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(fallback_code(root, text), expected, "{text}");
    }
}

#[test]
fn references_that_nest_too_deep_fall_back_instead_of_overflowing() {
    // Forty consts, each nesting thirty objects and naming the previous one: no single
    // expression is deep, but together they nest 1,200 levels.
    let mut text = String::from("import { z } from 'zod';\nconst c0 = z.string();\n");
    for index in 1..=40 {
        let open = "z.object({ a: ".repeat(30);
        let close = " })".repeat(30);
        text.push_str(&format!("const c{index} = {open}c{}{close};\n", index - 1));
    }
    text.push_str("export const schema = c40;\n");
    let root = tempfile::tempdir().expect("tempdir");
    assert_eq!(fallback_code(root.path(), &text), Some(Code::AB5104));
}

#[test]
fn a_schema_at_the_depth_limit_translates_prints_and_projects_on_a_small_stack() {
    // 120 nested arrays, under the translator's 128 levels; each level costs kilobytes of
    // stack in a debug build, far more than the 256 KiB thread below has.
    let depth = 120;
    let text = format!(
        "import {{ z }} from 'zod';\nexport const schema = {}z.string(){};\n",
        "z.array(".repeat(depth),
        ")".repeat(depth)
    );
    let root = tempfile::tempdir().expect("tempdir");
    let root_path = root.path().to_owned();
    let projected = std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(move || {
            let schema = translate_const(&root_path, &FsReader, "src/case.ts", &text, "schema")
                .expect("the schema translates");
            let schemas = RouteSchemas {
                server: "demo".to_owned(),
                input_location: None,
                input: RouteSchema::Absent,
                // The result side: host profiles take any root there.
                output: RouteSchema::Static(StaticSchema {
                    schema,
                    io: Io::Output,
                }),
            };
            let manifest = schemas.to_manifest(&["claude", "codex", "cursor"]);
            let result = manifest.result.expect("a static result schema");
            let printed = result.json_schema.expect("it prints");
            let profiles: Vec<String> = result.profiles.keys().cloned().collect();
            (printed, profiles)
        })
        .expect("thread")
        .join()
        .expect("translation returns");
    let (printed, profiles) = projected;
    // Every profile projected the whole depth: Claude Code's and Codex's give the canonical
    // form back (so the manifest leaves them out), Cursor's is its draft-07 form.
    assert_eq!(profiles, ["cursor"]);
    let mut level = &*printed;
    let mut arrays = 0;
    while let Some(items) = level.get("items") {
        arrays += 1;
        level = items;
    }
    assert_eq!(arrays, depth);
}

#[test]
fn a_literal_json_schema_at_the_depth_limit_is_compiled_without_overflowing() {
    // 250 nested `items`, just under the extractor's 256 levels, around a type that does not
    // exist: compiling it to prove it is a schema recurses once per level in the `jsonschema`
    // crate, on whatever thread the check runs it, down to the innermost level it refuses.
    let depth = 250;
    let nested = format!(
        "{}{{ type: 'text' }}{}",
        "{ type: 'array', items: ".repeat(depth),
        " }".repeat(depth)
    );
    let root = tempfile::tempdir().expect("tempdir");
    let files = [
        (
            "agent-bundle.config.ts",
            "import { defineConfig } from 'agent-bundle/config';\nexport default defineConfig({ plugin: { name: 'deep' } });\n".to_owned(),
        ),
        (
            "src/mcp/deep/tools/literal.ts",
            format!(
                "import {{ defineTool }} from 'agent-bundle/routes';\nimport {{ z }} from 'zod';\n\nexport default defineTool(\n  {{\n    description: 'Deep.',\n    inputSchema: z.object({{ a: z.string() }}),\n    resultSchema: z.object({{ ok: z.boolean() }}),\n    outputJsonSchema: {nested},\n  }},\n  async () => ({{ ok: true }}),\n);\n"
            ),
        ),
    ];
    for (path, text) in files {
        let file = root.path().join(path);
        std::fs::create_dir_all(file.parent().unwrap()).expect("mkdir");
        std::fs::write(file, text).expect("write");
    }
    let checked = check_project(&CheckOptions {
        root: root.path().to_owned(),
        targets: None,
    });
    let codes: Vec<&str> = checked
        .diagnostics
        .iter()
        .map(|diagnostic| diagnostic.code.as_str())
        .collect();
    assert_eq!(codes, ["AB5106"], "{:#?}", checked.diagnostics);
    let innermost = format!("at `{}/type`", "/items".repeat(depth));
    assert!(
        checked.diagnostics[0].message.contains(&innermost),
        "{}",
        checked.diagnostics[0].message
    );
}

/// Copies the fixture project `name` into a temporary directory.
fn fixture_copy(name: &str) -> tempfile::TempDir {
    let copy = tempfile::tempdir().expect("tempdir");
    for entry in walkdir(&fixture(name)) {
        let relative = entry.strip_prefix(fixture(name)).unwrap();
        let target = copy.path().join(relative);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(&entry, &target).unwrap();
    }
    copy
}

fn walkdir(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walkdir(&path));
        } else {
            files.push(path);
        }
    }
    files
}

#[test]
fn a_kept_translation_is_reused_only_while_its_module_and_imports_are_unchanged() {
    use abgen::check::{CheckCache, check_project_reusing};
    use std::sync::Arc;

    let project = fixture_copy("valid-shared-schemas");
    let options = CheckOptions {
        root: project.path().to_path_buf(),
        targets: None,
    };
    let cache = CheckCache::default();
    let first = check_project_reusing(&options, &FsReader, Some(&cache));
    let again = check_project_reusing(&options, &FsReader, Some(&cache));
    assert!(!first.schemas.is_empty());
    for (id, schemas) in &first.schemas {
        assert!(
            Arc::ptr_eq(schemas, &again.schemas[id]),
            "{id} was translated again"
        );
    }
    assert_eq!(first.diagnostics, again.diagnostics);

    // A module outside the route set that routes import their schemas from.
    let book = project.path().join("src/schemas/book.ts");
    let text = std::fs::read_to_string(&book).unwrap();
    std::fs::write(
        &book,
        text.replace("title: z.string(),", "title: z.string().min(1),"),
    )
    .unwrap();
    let changed = check_project_reusing(&options, &FsReader, Some(&cache));
    let fresh = check_project(&options);
    assert_eq!(
        changed.schemas, fresh.schemas,
        "the rebuild translates as a fresh check"
    );
    assert_eq!(changed.diagnostics, fresh.diagnostics);
    assert!(
        changed
            .schemas
            .iter()
            .any(|(id, schemas)| **schemas != *first.schemas[id]),
        "the edited import reached a route"
    );
}
