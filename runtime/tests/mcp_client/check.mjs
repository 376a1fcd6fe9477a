// Drives `abgen-host mcp --server library` on a built curator artifact with the official MCP
// TypeScript SDK client, asserts what an MCP client must see, and prints a JSON summary that the
// Rust test snapshots.
//
// Usage: node check.mjs <artifact dir>   (runs <artifact>/bin/abgen-host)

import assert from 'node:assert/strict';
import path from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const artifact = process.argv[2];
assert.ok(artifact, 'usage: node check.mjs <artifact dir>');

async function connect(clientName) {
  const transport = new StdioClientTransport({
    command: path.join(artifact, 'bin/abgen-host'),
    args: ['mcp', '--server', 'library', '--artifact', artifact],
    stderr: 'inherit',
  });
  const client = new Client({ name: clientName, version: '1.0.0' });
  await client.connect(transport);
  return client;
}

const summary = {};

// A client no host prefix matches: the canonical schemas, every tool.
const generic = await connect('abgen-check');
summary.capabilities = generic.getServerCapabilities();
summary.serverInfo = generic.getServerVersion();
const listed = await generic.listTools();
const names = listed.tools.map((tool) => tool.name).sort();
assert.deepEqual(names, [
  'catalog_audit',
  'export_bibliography',
  'search_books',
  'shelve_book',
  'show_shelf',
]);
for (const tool of listed.tools) {
  assert.equal(tool.inputSchema.type, 'object', `${tool.name} has an object input schema`);
}
summary.tools = listed.tools.map((tool) => ({
  name: tool.name,
  inputProperties: Object.keys(tool.inputSchema.properties ?? {}),
  hasOutputSchema: tool.outputSchema !== undefined,
}));

const search = await generic.callTool({
  name: 'search_books',
  arguments: { query: 'le guin', limit: 2 },
});
assert.notEqual(search.isError, true, JSON.stringify(search));
assert.equal(typeof search.structuredContent, 'object', JSON.stringify(search));
summary.searchBooks = {
  structuredContent: search.structuredContent,
  contentTypes: search.content.map((block) => block.type),
};

const shelve = await generic.callTool({
  name: 'shelve_book',
  arguments: { bookId: 'nope', shelf: 'reading' },
});
assert.equal(shelve.isError, true, JSON.stringify(shelve));
summary.shelveUnknownId = { isError: shelve.isError, content: shelve.content };

// Arguments the tool's schema refuses: a tool execution error, not a protocol error.
const invalid = await generic.callTool({
  name: 'search_books',
  arguments: { query: 'le guin', limit: 'two' },
});
assert.equal(invalid.isError, true, JSON.stringify(invalid));
summary.invalidInput = { isError: invalid.isError, contentTypes: invalid.content.map((b) => b.type) };

let unknownTool;
try {
  await generic.callTool({ name: 'no_such_tool', arguments: {} });
} catch (error) {
  unknownTool = { code: error.code, message: error.message };
}
assert.equal(unknownTool?.code, -32602);
summary.unknownTool = unknownTool;
await generic.close();

// A Cursor client: `export_bibliography` excludes it.
const cursor = await connect('cursor-vscode');
const cursorNames = (await cursor.listTools()).tools.map((tool) => tool.name).sort();
assert.ok(!cursorNames.includes('export_bibliography'), cursorNames.join(', '));
summary.cursorTools = cursorNames;
await cursor.close();

process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
