// The values of the names seed 002 imports from the `agent-bundle` root module and from
// `@agent-bundle/runtime`, checked against what the compiler and the hosts use.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { bundleFile } from '../test-support/load-entry.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const root = await import(await bundleFile(path.join(repo, 'packages/agent-bundle/src/index.ts'), 'root'));
const runtime = await import(await bundleFile(path.join(repo, 'packages/runtime/src/mcp-result.ts'), 'mcp-result'));

describe('the agent-bundle root module', () => {
  it('has the render budget ceiling the compiler enforces (AB4835)', () => {
    const checks = readFileSync(path.join(repo, 'codegen/src/extract/checks/mcp.rs'), 'utf8');
    const ceiling = /const MAX_ELAPSED_MS: u64 = ([\d_]+);/.exec(checks)?.[1];
    assert.ok(ceiling, 'codegen/src/extract/checks/mcp.rs no longer defines MAX_ELAPSED_MS');
    assert.equal(root.MAX_ROUTE_RENDER_ELAPSED_MS, Number(ceiling.replaceAll('_', '')));
  });

  it('names the plugin-root anchor every adapter injects', () => {
    assert.equal(root.pluginRootEnvAnchor, 'AGENT_BUNDLE_PLUGIN_ROOT');
    const emit = readFileSync(path.join(repo, 'codegen/src/emit/documents.rs'), 'utf8');
    assert.equal(/pub const PLUGIN_ROOT_ENV_ANCHOR: &str = "([^"]+)";/.exec(emit)?.[1], root.pluginRootEnvAnchor);
  });
});

describe('attachMcpStructuredContent', () => {
  it('sets structuredContent and adds the JSON text a content-only client reads', () => {
    const result = runtime.attachMcpStructuredContent({ content: [], isError: false }, { status: 'ready' });
    assert.deepEqual(result, {
      content: [{ type: 'text', text: '{"status":"ready"}' }],
      isError: false,
      structuredContent: { status: 'ready' },
    });
  });

  it('keeps the text a result already has, and never changes its argument', () => {
    const given = { content: [{ type: 'text', text: 'Ready.' }] };
    const result = runtime.attachMcpStructuredContent(given, { status: 'ready' });
    assert.deepEqual(result.content, [{ type: 'text', text: 'Ready.' }]);
    assert.equal(given.structuredContent, undefined);
  });

  it('refuses what no client can read as structured content', () => {
    const cyclic = {};
    cyclic.self = cyclic;
    for (const value of [[1], null, 'text', { n: Number.NaN }, { f: () => 1 }, { u: undefined }, cyclic, new Map()]) {
      assert.throws(() => runtime.attachMcpStructuredContent({ content: [] }, value), TypeError, String(value));
    }
  });
});
