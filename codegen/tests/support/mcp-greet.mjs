// Starts `abgen-host mcp --server <id>` of an artifact with the official MCP TypeScript SDK
// client, lists its tools and calls `greet`, and exits non-zero unless the greeting comes back.
//
// Usage: node mcp-greet.mjs <artifact dir> <server id>

import assert from 'node:assert/strict';
import path from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [artifact, server] = process.argv.slice(2);
assert.ok(artifact && server, 'usage: node mcp-greet.mjs <artifact dir> <server id>');
const transport = new StdioClientTransport({
  command: path.join(artifact, 'bin/abgen-host'),
  args: ['mcp', '--server', server, '--artifact', artifact],
  env: {
    PATH: process.env.PATH,
    XDG_RUNTIME_DIR: process.env.XDG_RUNTIME_DIR,
    HOME: process.env.HOME,
    ...(process.env.XDG_STATE_HOME ? { XDG_STATE_HOME: process.env.XDG_STATE_HOME } : {}),
  },
  stderr: 'inherit',
});
const client = new Client({ name: 'abgen-npm-test', version: '1.0.0' });
await client.connect(transport);
const { tools } = await client.listTools();
assert.ok(tools.some((tool) => tool.name === 'greet'), JSON.stringify(tools));
const result = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
assert.equal(result.isError ?? false, false, JSON.stringify(result));
assert.match(JSON.stringify(result), /Hello, Ada!/);
await client.close();
process.stdout.write(`${JSON.stringify({ tools: tools.map((tool) => tool.name) })}\n`);
