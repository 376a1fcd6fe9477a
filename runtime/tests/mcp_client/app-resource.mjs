// Reads an App's `ui://` resource from `abgen-host mcp --server <server>` with the official MCP
// TypeScript SDK client and prints what came back as one JSON line: { contents } or { error }.
//
// Usage: node app-resource.mjs <artifact dir> <server> <uri>

import assert from 'node:assert/strict';
import path from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

import { serverEnvironment } from './server-env.mjs';

const [artifact, server, uri] = process.argv.slice(2);
assert.ok(artifact && server && uri, 'usage: node app-resource.mjs <artifact dir> <server> <uri>');

const transport = new StdioClientTransport({
  env: serverEnvironment(),
  command: path.join(artifact, 'bin/abgen-host'),
  args: ['mcp', '--server', server, '--artifact', artifact],
  stderr: 'inherit',
});
const client = new Client({ name: 'abgen-app-resource', version: '1.0.0' });
await client.connect(transport);
const listed = await client.listResources();
let result;
try {
  result = { listed: listed.resources, contents: (await client.readResource({ uri })).contents };
} catch (error) {
  result = { listed: listed.resources, error: { code: error.code, message: error.message } };
}
await client.close();
process.stdout.write(`${JSON.stringify(result)}\n`);
