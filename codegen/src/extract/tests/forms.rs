//! The definition forms, bindings (aliases, namespaces, type-only imports, shadowing) and
//! what the default export is.

use serde_json::json;

use super::{check_diagnostics, event, extract, schema_text, tool};
use crate::extract::{DefaultExport, ImportBinding, RouteForm};

#[test]
fn define_tool_splits_schemas_from_config() {
    let source = r#"import { defineTool } from 'agent-bundle/routes';
import { z } from 'zod';

const Status = z.enum(['open', 'closed']);

export default defineTool(
  {
    title: 'Search',
    annotations: { readOnlyHint: true },
    inputSchema: z.object({ query: z.string().min(1), status: Status.optional() }),
    resultSchema: z.object({ count: z.number() }),
  },
  async ({ query }) => null,
);
"#;
    let extracted = check_diagnostics(&tool(), source);
    let module = extracted.module;
    assert_eq!(module.form, Some(RouteForm::DefineTool));
    assert_eq!(module.default_export, DefaultExport::Definition);
    assert_eq!(
        serde_json::Value::Object(module.config.as_ref().clone()),
        json!({"title": "Search", "annotations": {"readOnlyHint": true}})
    );
    let pointers: Vec<&str> = module.config_locations.keys().map(String::as_str).collect();
    assert_eq!(
        pointers,
        ["/annotations", "/annotations/readOnlyHint", "/title"]
    );
    let title = &module.config_locations["/title"];
    assert_eq!((title.line, title.column), (Some(8), Some(12)));
    assert_eq!(
        schema_text(&module, source, module.input_schema.unwrap()),
        "z[zod#z].object({query: z[zod#z].string().min(1), status: Status[const Status].optional()})"
    );
    assert_eq!(
        schema_text(&module, source, module.result_schema.unwrap()),
        "z[zod#z].object({count: z[zod#z].number()})"
    );
    assert_eq!(module.definition_location.as_ref().unwrap().line, Some(6));
    let status = &module.consts["Status"];
    assert!(!status.exported);
    assert_eq!(
        schema_text(&module, source, status.init),
        "z[zod#z].enum([\"open\", \"closed\"])"
    );
}

#[test]
fn aliased_define_tool_and_shorthand_schemas() {
    let source = r#"import { defineTool as tool } from 'agent-bundle/routes';
import * as schemas from './schemas';
const inputSchema = schemas.SearchInput;
export const resultSchema = schemas.SearchResult;
export default tool({ inputSchema, resultSchema }, async () => null);
"#;
    let extracted = check_diagnostics(&tool(), source);
    let module = extracted.module;
    assert_eq!(module.form, Some(RouteForm::DefineTool));
    assert_eq!(
        schema_text(&module, source, module.input_schema.unwrap()),
        "inputSchema[const inputSchema]"
    );
    assert_eq!(
        schema_text(&module, source, module.consts["inputSchema"].init),
        "schemas[./schemas#*].SearchInput"
    );
    assert!(module.consts["resultSchema"].exported);
    assert_eq!(module.exports, ["resultSchema"]);
    assert_eq!(
        module.imports[1],
        ImportBinding {
            local: "schemas".into(),
            source: "./schemas".into(),
            imported: "*".into(),
            type_only: false
        }
    );
}

#[test]
fn event_definitions_kebab_case_their_path() {
    for (call, path_event, expected) in [
        ("events.tool.after", "tool/after", "tool/after"),
        (
            "events.modelSwitch.before",
            "model-switch/before",
            "model-switch/before",
        ),
        ("events.stop", "stop", "stop"),
        ("events.notification", "notification", "notification"),
        ("on.sessionStart", "session-start", "session-start"),
    ] {
        let source = format!(
            "import {{ events, events as on }} from 'agent-bundle/routes';\nexport default {call}({{}}, async () => null);\n"
        );
        let extracted = check_diagnostics(&event(path_event), &source);
        assert_eq!(
            extracted.module.form,
            Some(RouteForm::DefineEvent {
                event: expected.to_owned()
            }),
            "{call}"
        );
    }
}

#[test]
fn file_change_matches_file_saved() {
    let source = "import { events } from 'agent-bundle/routes';\nexport default events.file.change({}, async () => null);\n";
    check_diagnostics(&event("file/saved"), source);
}

#[test]
fn config_export_form_reads_config_schemas_and_handler() {
    let source = r#"import { z } from 'zod';
import { Output } from './shared';
const Input = z.object({ q: z.string() });
export const config = { description: 'Finds things' } satisfies Record<string, unknown>;
export { Input as inputSchema };
export { Output as resultSchema };
async function Search() { return null; }
export default Search;
"#;
    let extracted = check_diagnostics(&tool(), source);
    let module = extracted.module;
    assert_eq!(module.form, Some(RouteForm::ConfigExport));
    assert_eq!(module.default_export, DefaultExport::AsyncFunction);
    assert_eq!(
        serde_json::Value::Object(module.config.as_ref().clone()),
        json!({"description": "Finds things"})
    );
    assert_eq!(
        schema_text(&module, source, module.input_schema.unwrap()),
        "Input[const Input]"
    );
    assert_eq!(
        schema_text(&module, source, module.result_schema.unwrap()),
        "Output[./shared#Output]"
    );
    assert_eq!(module.exports, ["config", "inputSchema", "resultSchema"]);
    assert_eq!(module.definition_location.unwrap().line, Some(4));
}

#[test]
fn re_exported_schemas_and_default_are_references() {
    let source = "export { inputSchema, resultSchema as resultSchema } from './contract';\nexport { default } from './handler';\n";
    let extracted = check_diagnostics(&tool(), source);
    let module = extracted.module;
    assert_eq!(module.default_export, DefaultExport::ReExport);
    let input = module.input_schema.expect("a re-exported input schema");
    assert_eq!(
        schema_text(&module, source, input),
        "inputSchema[./contract#inputSchema]"
    );
    assert_eq!(
        module.expr(source, input).span(),
        crate::diagnostics::Span::new(9, 20)
    );
}

#[test]
fn a_local_define_tool_is_not_the_helper() {
    // Without the import, `defineTool` is a local function: the module is in the config-export
    // form, so the tool misses its schema exports and its default is not an async function.
    let extracted = check_diagnostics(
        &tool(),
        r#"const defineTool = (options: object, handler: unknown) => handler;
export default defineTool({ inputSchema: 1, resultSchema: 2 }, async () => null);
//             ^ AB4810
//             ^ AB4810
"#,
    );
    assert_eq!(extracted.module.form, Some(RouteForm::ConfigExport));
    assert_eq!(extracted.module.default_export, DefaultExport::Other);
}

#[test]
fn type_only_and_foreign_imports_are_not_the_helper() {
    for import in [
        "import type { defineTool } from 'agent-bundle/routes';",
        "import { type defineTool } from 'agent-bundle/routes';",
        "import { defineTool } from 'other-package';",
    ] {
        let source = format!("{import}\nexport default defineTool({{}}, async () => null);\n");
        let extracted = extract(&tool(), &source);
        assert_eq!(
            extracted.module.default_export,
            DefaultExport::Other,
            "{import}"
        );
        assert_ne!(
            extracted.module.form,
            Some(RouteForm::DefineTool),
            "{import}"
        );
    }
    let typed = extract(
        &tool(),
        "import type { defineTool } from 'agent-bundle/routes';\n",
    );
    assert!(typed.module.imports[0].type_only);
}

#[test]
fn default_export_kinds() {
    for (source, expected) in [
        (
            "export default async function Page() { return null; }",
            DefaultExport::AsyncFunction,
        ),
        (
            "export default function Page() { return null; }",
            DefaultExport::Function,
        ),
        (
            "export default async () => null;",
            DefaultExport::AsyncFunction,
        ),
        (
            "export default (() => null) as unknown;",
            DefaultExport::Function,
        ),
        (
            "const Page = async () => null;\nexport { Page as default };",
            DefaultExport::AsyncFunction,
        ),
        (
            "import Page from './page';\nexport default Page;",
            DefaultExport::ReExport,
        ),
        (
            "export { Page as default } from './page';",
            DefaultExport::ReExport,
        ),
        ("export default class Page {}", DefaultExport::Other),
        ("export default 42;", DefaultExport::Other),
        ("export const x = 1;", DefaultExport::Missing),
    ] {
        let extracted = extract(
            &crate::project::ModuleKind::Provider { name: "p".into() },
            source,
        );
        assert_eq!(extracted.module.default_export, expected, "{source}");
    }
}

#[test]
fn use_client_is_recorded() {
    let extracted = extract(
        &crate::project::ModuleKind::Imported,
        "'use client';\nexport const x = 1;\n",
    );
    assert!(extracted.module.use_client);
    assert!(extracted.diagnostics.is_empty());
}
