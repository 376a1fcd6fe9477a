// Drives the `plan_trip` tool of a built `fixtures/projects/ab5101-runtime-schemas`, whose input
// and result schemas only exist at run time, with the official MCP TypeScript SDK client, once
// per client name given (each a server process of its own, with one worker). Per client: lists
// the tools twice, calls with invalid arguments (a JSON-RPC error is expected, before any
// render), then with valid ones (the SDK client checks the structuredContent against the listed
// outputSchema). Prints what each client saw, as JSON.
//
// Usage: node runtime-schemas.mjs <artifact dir> <client name>...

import assert from 'node:assert/strict';
import path from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

import { serverEnvironment } from './server-env.mjs';

const [artifact, ...clientNames] = process.argv.slice(2);
assert.ok(artifact && clientNames.length > 0, 'usage: node runtime-schemas.mjs <artifact> <client>...');

const seen = {};
for (const clientName of clientNames) {
  const transport = new StdioClientTransport({
    env: serverEnvironment(),
    command: path.join(artifact, 'bin/abgen-host'),
    args: ['mcp', '--server', 'planner', '--artifact', artifact, '--workers', '1'],
    stderr: 'inherit',
  });
  const client = new Client({ name: clientName, version: '1.0.0' });
  await client.connect(transport);
  const first = (await client.listTools()).tools.find((tool) => tool.name === 'plan_trip');
  const again = (await client.listTools()).tools.find((tool) => tool.name === 'plan_trip');
  assert.ok(first, `${clientName}: plan_trip is listed`);
  assert.deepEqual(again, first, `${clientName}: a second list gives the same definition`);

  let invalid;
  try {
    const result = await client.callTool({ name: 'plan_trip', arguments: { city: '', nights: 0, dates: ['2026-12-01'] } });
    assert.fail(`${clientName}: invalid arguments were answered with a result: ${JSON.stringify(result)}`);
  } catch (error) {
    assert.equal(typeof error.code, 'number', `${clientName}: ${error}`);
    invalid = { code: error.code, message: error.message };
  }

  const result = await client.callTool({
    name: 'plan_trip',
    arguments: { city: 'Lisbon', nights: 2, dates: ['2026-12-01', '2026-12-03'] },
  });
  assert.notEqual(result.isError, true, `${clientName}: ${JSON.stringify(result)}`);
  seen[clientName] = {
    inputSchema: first.inputSchema,
    outputSchema: first.outputSchema,
    invalid,
    structuredContent: result.structuredContent,
  };
  await client.close();
}
process.stdout.write(`${JSON.stringify(seen, null, 2)}\n`);
