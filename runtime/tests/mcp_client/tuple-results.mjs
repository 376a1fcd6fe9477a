// Calls the `reading_span` tool of a built `fixtures/projects/valid-tuple-results` with the
// official MCP TypeScript SDK client, once per client name given. The SDK client checks every
// structuredContent against the tool's advertised outputSchema and throws on a mismatch, so a
// tuple advertised as `items: false` fails here. Prints what each client saw, as JSON.
//
// Usage: node tuple-results.mjs <artifact dir> <client name>...

import assert from 'node:assert/strict';
import path from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

import { serverEnvironment } from './server-env.mjs';

const [artifact, ...clientNames] = process.argv.slice(2);
assert.ok(artifact && clientNames.length > 0, 'usage: node tuple-results.mjs <artifact> <client>...');

const seen = {};
for (const clientName of clientNames) {
  const transport = new StdioClientTransport({
    env: serverEnvironment(),
    command: path.join(artifact, 'bin/abgen-host'),
    args: ['mcp', '--server', 'shelf', '--artifact', artifact],
    stderr: 'inherit',
  });
  const client = new Client({ name: clientName, version: '1.0.0' });
  await client.connect(transport);
  const { tools } = await client.listTools();
  const tool = tools.find((candidate) => candidate.name === 'reading_span');
  assert.ok(tool, `${clientName}: reading_span is listed`);
  const result = await client.callTool({ name: 'reading_span', arguments: { from: 1968, to: 1972 } });
  assert.notEqual(result.isError, true, `${clientName}: ${JSON.stringify(result)}`);
  assert.deepEqual(result.structuredContent, { span: [1968, 1972], series: ['Earthsea', 1, 2, 3] });
  seen[clientName] = {
    spanSchema: tool.outputSchema.properties.span,
    seriesSchema: tool.outputSchema.properties.series,
    structuredContent: result.structuredContent,
  };
  await client.close();
}
process.stdout.write(`${JSON.stringify(seen, null, 2)}\n`);
