//! Every contract diagnostic the extractor emits, each with its position.

use super::{check_diagnostics, event, extract, render_diagnostics, tool};
use crate::project::{LayoutScope, ModuleKind};

const IMPORTS: &str =
    "import { defineTool, events } from 'agent-bundle/routes';\nimport { z } from 'zod';\n";

fn with_imports(body: &str) -> String {
    format!("{IMPORTS}{body}")
}

#[test]
fn ab4810_unsupported_definition_shapes() {
    // Aliasing a constructed definition.
    check_diagnostics(&tool(), &with_imports(
        "const t = defineTool({ inputSchema: z.object({}), resultSchema: z.object({}) }, async () => null);
export default t;
//             ^ AB4810
"));
    // Wrapping the call.
    check_diagnostics(&tool(), &with_imports(
        "export default wrap(defineTool({ inputSchema: z.object({}), resultSchema: z.object({}) }, async () => null));
//                  ^ AB4810
"));
    // Computed options.
    check_diagnostics(
        &tool(),
        &with_imports(
            "const options = { inputSchema: z.object({}), resultSchema: z.object({}) };
export default defineTool(options, async () => null);
//                        ^ AB4810
",
        ),
    );
    // Wrong arity.
    check_diagnostics(
        &tool(),
        &with_imports(
            "export default defineTool({ inputSchema: z.object({}), resultSchema: z.object({}) });
//             ^ AB4810
",
        ),
    );
    // A namespace import of the helpers.
    check_diagnostics(
        &tool(),
        "import * as routes from 'agent-bundle/routes';
export default routes.defineTool({}, async () => null);
//             ^ AB4810
",
    );
}

#[test]
fn ab4810_missing_schemas_and_handler() {
    check_diagnostics(
        &tool(),
        &with_imports(
            "export default defineTool({ resultSchema: z.object({}) }, async () => null);
//             ^ AB4810
",
        ),
    );
    // A literal inputJsonSchema serves as the input side.
    check_diagnostics(&tool(), &with_imports(
        "export default defineTool({ inputJsonSchema: { type: 'object' }, resultSchema: z.object({}) }, async () => null);
"));
    let resource = ModuleKind::Resource {
        server: "demo".into(),
        name: "notes".into(),
    };
    check_diagnostics(
        &resource,
        &with_imports(
            "export const config = { uri: 'demo://notes' };
//           ^ AB4810
export const inputSchema = z.object({});
export default function Notes() { return null; }
",
        ),
    );
    // A synchronous component is a route component (seed 000's `Audit`); a value is not.
    check_diagnostics(
        &resource,
        &with_imports(
            "export const config = { uri: 'demo://notes' };
//           ^ AB4810
export const inputSchema = z.object({});
export const resultSchema = z.object({});
export default 42;
",
        ),
    );
    let extracted = extract(
        &ModuleKind::Prompt {
            server: "demo".into(),
            name: "plan".into(),
        },
        "export const x = 1;\n",
    );
    assert_eq!(
        render_diagnostics(&extracted.diagnostics),
        "AB4810 0:0 the prompt route has no default export\nAB4810 0:0 the prompt route is missing the named export `inputSchema` and `resultSchema`",
        "a module in a route folder that declares nothing"
    );
    let extracted = extract(
        &tool(),
        "export const inputSchema = 1;\nexport const resultSchema = 2;\n",
    );
    assert_eq!(
        render_diagnostics(&extracted.diagnostics),
        "AB4810 0:0 the tool route has no default export"
    );
}

#[test]
fn ab4810_event_mismatch_and_wrong_helper() {
    let extracted = check_diagnostics(
        &event("tool/after"),
        &with_imports(
            "export default events.tool.before({}, async () => null);
//             ^ AB4810
",
        ),
    );
    assert!(
        extracted.diagnostics[0].message.contains("`tool/before`")
            && extracted.diagnostics[0].message.contains("`tool/after`")
    );
    check_diagnostics(
        &event("stop"),
        &with_imports(
            "export default defineTool({}, async () => null);
//             ^ AB4810
",
        ),
    );
    check_diagnostics(
        &tool(),
        &with_imports(
            "export default events.stop({}, async () => null);
//             ^ AB4810
",
        ),
    );
}

#[test]
fn ab4811_execute_and_render_exports() {
    check_diagnostics(&tool(), &with_imports(
        "export const execute = () => null;
export function render() {}
export default defineTool({ inputSchema: z.object({}), resultSchema: z.object({}) }, async () => null);
//             ^ AB4811
//             ^ AB4811
"));
}

#[test]
fn ab4812_app_resource_uri() {
    let app = ModuleKind::App {
        server: "demo".into(),
        name: "board".into(),
    };
    check_diagnostics(
        &app,
        "export const config = { resourceUri: '' };
//                                   ^ AB4812
",
    );
    check_diagnostics(
        &app,
        "export const config = { title: 'Board' };
//           ^ AB4812
",
    );
    check_diagnostics(
        &app,
        "export const config = { resourceUri: 'ui://demo/board' };\n",
    );
}

#[test]
fn ab4835_render_and_ab4836_execution() {
    for render in [
        "{ maxElapsedMs: 0 }",
        "{ maxElapsedMs: 86400001 }",
        "{ maxElapsedMs: 1.5 }",
        "{}",
        "{ maxElapsedMs: 5, x: 1 }",
        "60000",
    ] {
        let source = with_imports(&format!(
            "export default defineTool({{ render: {render}, inputSchema: z.object({{}}), resultSchema: z.object({{}}) }}, async () => null);\n"
        ));
        let diagnostics = render_diagnostics(&extract(&tool(), &source).diagnostics);
        assert!(
            diagnostics.starts_with("AB4835 3:37 ") && !diagnostics.contains('\n'),
            "{render}: {diagnostics}"
        );
    }
    check_diagnostics(
        &tool(),
        &with_imports(
            "export default defineTool({ render: { maxElapsedMs: 86400000 }, execution: { taskSupport: 'optional' }, inputSchema: z.object({}), resultSchema: z.object({}) }, async () => null);\n",
        ),
    );
    check_diagnostics(&tool(), &with_imports(
        "export default defineTool({ execution: { taskSupport: 'always' }, inputSchema: z.object({}), resultSchema: z.object({}) }, async () => null);
//                                     ^ AB4836
"));
    let prompt = ModuleKind::Prompt {
        server: "demo".into(),
        name: "plan".into(),
    };
    check_diagnostics(&prompt, &with_imports(
        "export default defineTool({ execution: { taskSupport: 'optional' }, inputSchema: z.object({}), resultSchema: z.object({}) }, async () => null);
//                                     ^ AB4836
"));
}

#[test]
fn ab4830_layout_contract() {
    let layout = ModuleKind::Layout(LayoutScope::Root);
    check_diagnostics(
        &layout,
        "export const config = {};
export default 'layout';
//             ^ AB4830
//             ^ AB4830
",
    );
    check_diagnostics(
        &layout,
        "export default function Layout({ children }) { return children; }\n",
    );
    let extracted = extract(&layout, "export const x = 1;\n");
    assert_eq!(
        render_diagnostics(&extracted.diagnostics),
        "AB4830 0:0 the layout has no default export"
    );
}

#[test]
fn ab4940_provider_default() {
    let provider = ModuleKind::Provider {
        name: "auth".into(),
    };
    check_diagnostics(
        &provider,
        "export default { token: 'x' };
//             ^ AB4940
",
    );
    check_diagnostics(
        &provider,
        "export default async function auth() { return {}; }\n",
    );
}

#[test]
fn ab5303_use_client() {
    check_diagnostics(
        &ModuleKind::Provider {
            name: "auth".into(),
        },
        "  'use client';
//^ AB5303
export default function auth() {}
",
    );
}

#[test]
fn ab5300_parse_errors_keep_only_direct_facts() {
    let extracted = check_diagnostics(
        &tool(),
        "import { z } from 'zod';
export const inputSchema = z.object({ ;
//                                    ^ AB5300
",
    );
    assert_eq!(extracted.module.form, None);
    assert!(extracted.module.input_schema.is_none());
}

#[test]
fn event_config_keys() {
    check_diagnostics(&event("tool/after"), &with_imports(
        "export default events.tool.after({
  tools: ['shell', 'file.read', 'file.write', 'mcp', 'agent', 'claude:Bash', 'codex:shell', 'cursor:edit'],
  delivery: ['immediate', 'deferred'],
  targets: ['claude'],
  timeoutMs: 5000,
  runtime: 'shared',
  fallback: 'standalone',
  native: ['user_email'],
}, async () => null);
"));
    check_diagnostics(
        &event("tool/after"),
        &with_imports(
            "export default events.tool.after({
  tools: ['shell', 'bash', 'amp:x', 'claude:', 3],
//                 ^ AB4202
//                         ^ AB4202
//                                  ^ AB4202
//                                             ^ AB4202
  delivery: ['later'],
//          ^ AB5310
  targets: [],
//         ^ AB4825
  timeoutMs: -5,
//           ^ AB5311
  runtime: 'warm',
//         ^ AB5312
  fallback: 'retry',
//          ^ AB5313
  native: 'user_email',
//        ^ AB5314
  failure: 'sometimes',
//         ^ AB5316
  colour: 'red',
//        ^ AB5315
}, async () => null);
",
        ),
    );
    check_diagnostics(
        &event("session/start"),
        &with_imports(
            "export default events.session.start({ tools: ['shell'] }, async () => null);
//                                           ^ AB4201
",
        ),
    );
    check_diagnostics(
        &event("stop"),
        "export const config = { tools: 'shell', targets: [''] };
//                             ^ AB4201
//                                               ^ AB4825
export default async function Stop() { return null; }
",
    );
    let warning = extract(
        &event("stop"),
        "export const config = { colour: 1 };\nexport default async () => null;\n",
    );
    assert_eq!(
        warning.diagnostics[0].severity,
        crate::diagnostics::Severity::Warning
    );
}
