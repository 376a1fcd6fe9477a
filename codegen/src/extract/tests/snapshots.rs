//! Whole extracted modules of realistic routes, as a reviewer reads them: the input, the
//! extracted model as JSON, and the diagnostics.

use super::{event, extract, render_diagnostics, schema_text, tool};
use crate::project::ModuleKind;

fn snapshot(kind: &ModuleKind, source: &str) -> String {
    let extracted = extract(kind, source);
    let module = &extracted.module;
    let at = |location: &crate::diagnostics::Location| {
        format!(
            "{}:{}",
            location.line.unwrap_or(0),
            location.column.unwrap_or(0)
        )
    };
    let schema = |id: Option<crate::extract::ExprId>| {
        id.map_or("-".to_owned(), |id| schema_text(module, source, id))
    };
    let mut out = format!("# Input\n```tsx\n{source}```\n\n# Module\n");
    let form = serde_json::to_string(&module.form).unwrap_or_default();
    let default_export = serde_json::to_string(&module.default_export).unwrap_or_default();
    out += &format!("form: {form}\ndefault export: {default_export}\n");
    out += &format!(
        "definition at: {}\n",
        module
            .definition_location
            .as_ref()
            .map_or("-".to_owned(), at)
    );
    out += &format!(
        "use client: {}\nexports: {:?}\nimports:\n",
        module.use_client, module.exports
    );
    for import in &module.imports {
        let type_only = if import.type_only { " (type)" } else { "" };
        out += &format!(
            "  {} = {}#{}{type_only}\n",
            import.local, import.source, import.imported
        );
    }
    out += "consts:\n";
    for (name, binding) in &module.consts {
        let exported = if binding.exported { "export " } else { "" };
        out += &format!(
            "  {exported}{name} = {}\n",
            schema_text(module, source, binding.init)
        );
    }
    out += &format!(
        "input schema: {}\nresult schema: {}\n",
        schema(module.input_schema),
        schema(module.result_schema)
    );
    let config = serde_json::to_string_pretty(&module.config).unwrap_or_default();
    out += &format!("config:\n```json\n{config}\n```\nconfig locations:\n");
    for (pointer, location) in &module.config_locations {
        out += &format!("  {pointer} {}\n", at(location));
    }
    out += &format!(
        "\n# Diagnostics\n{}\n",
        render_diagnostics(&extracted.diagnostics)
    );
    out
}

#[test]
fn define_tool_route() {
    insta::assert_snapshot!(snapshot(
        &tool(),
        r#"import { defineTool } from 'agent-bundle/routes';
import { Agent } from '@agent-bundle/runtime';
import { z } from 'zod';

const Status = z.enum(['open', 'closed', 'pending']);

export default defineTool(
  {
    title: 'Search issues',
    description: 'Finds issues by text and status.',
    annotations: { readOnlyHint: true },
    render: { maxElapsedMs: 30_000 },
    inputSchema: z.object({
      query: z.string().min(1).describe('Text to look for'),
      status: Status.optional(),
      limit: z.number().int().max(100).default(10),
    }),
    resultSchema: z.object({ ids: z.array(z.string()) }),
  },
  async ({ query, limit }) => {
    const ids = [query].slice(0, limit);
    return <Agent.Result value={{ ids }}><Agent.Markdown>{`Found ${ids.length}`}</Agent.Markdown></Agent.Result>;
  },
);
"#
    ));
}

#[test]
fn config_export_route() {
    insta::assert_snapshot!(snapshot(
        &tool(),
        r#"import { z } from 'zod';
import { Agent } from '@agent-bundle/runtime';
import { ItemSchema } from './_shared';

export const config = {
  description: 'Lists items',
  _meta: { 'ui/resourceUri': 'ui://demo/board' },
} as const;

export const inputSchema = z.strictObject({ page: z.number().int().positive().optional() });
export const resultSchema = z.object({ items: z.array(ItemSchema) });

export default async function List({ page = 1 }: { page?: number }) {
  return <Agent.Json value={{ items: [], page }} />;
}
"#
    ));
}

#[test]
fn event_route() {
    insta::assert_snapshot!(snapshot(
        &event("tool/before"),
        r#"import { events } from 'agent-bundle/routes';
import { Agent } from '@agent-bundle/runtime';

const POLICY = 'Never touch generated files.';

export default events.tool.before(
  { tools: ['shell', 'claude:Bash'], timeoutMs: 3000, fallback: 'none', targets: ['claude', 'codex'] },
  async ({ canonical }) => (
    canonical.tool?.input?.command?.includes('rm -rf')
      ? <Agent.Deny reason={POLICY} />
      : null
  ),
);
"#
    ));
}
