// Drives `abgen-host mcp --server library` on a built curator artifact with the official MCP
// TypeScript SDK client, asserts what an MCP client must see, and prints a JSON summary that the
// Rust test snapshots.
//
// Usage: node check.mjs <artifact dir>   (runs <artifact>/bin/abgen-host)

import assert from 'node:assert/strict';
import path from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

import { serverEnvironment } from './server-env.mjs';

const artifact = process.argv[2];
assert.ok(artifact, 'usage: node check.mjs <artifact dir>');

async function connect(clientName) {
  const transport = new StdioClientTransport({
    env: serverEnvironment(),
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

// Arguments the tool's schema refuses: a tool execution error, not a protocol error; a client
// that asked for error log messages is also told of the failed render.
const logged = [];
generic.setNotificationHandler(LoggingMessageNotificationSchema, ({ params }) => logged.push(params));
await generic.setLoggingLevel('error');
const invalid = await generic.callTool({
  name: 'search_books',
  arguments: { query: 'le guin', limit: 'two' },
});
assert.equal(invalid.isError, true, JSON.stringify(invalid));
summary.invalidInput = { isError: invalid.isError, contentTypes: invalid.content.map((b) => b.type) };
assert.equal(logged.length, 1, JSON.stringify(logged));
assert.equal(logged[0].level, 'error');
assert.equal(logged[0].data.route, 'tool:library/search_books');
summary.failedRenderLog = { level: logged[0].level, logger: logged[0].logger, route: logged[0].data.route };

let unknownTool;
try {
  await generic.callTool({ name: 'no_such_tool', arguments: {} });
} catch (error) {
  unknownTool = { code: error.code, message: error.message };
}
assert.equal(unknownTool?.code, -32602);
summary.unknownTool = unknownTool;

// Resources: the shelf is listed and read through the same render path as a tool call; the
// App's `ui://` resource is listed, and reading it gives its compiled document.
const resources = await generic.listResources();
summary.resources = resources.resources;
assert.deepEqual(resources.resources.map((r) => r.uri).sort(), ['curator://shelf', 'ui://curator/shelf-viewer']);
const shelf = await generic.readResource({ uri: 'curator://shelf' });
assert.equal(shelf.contents.length, 1, JSON.stringify(shelf));
assert.equal(shelf.contents[0].mimeType, 'text/markdown');
assert.match(shelf.contents[0].text, /^# Reading shelf/);
summary.shelf = { uri: shelf.contents[0].uri, firstLine: shelf.contents[0].text.split('\n')[0] };
const readError = async (uri) => {
  try {
    await generic.readResource({ uri });
  } catch (error) {
    return { code: error.code, message: error.message };
  }
  assert.fail(`reading ${uri} succeeded`);
};
summary.unknownResource = await readError('curator://nothing-here');
assert.equal(summary.unknownResource.code, -32002);
const app = await generic.readResource({ uri: 'ui://curator/shelf-viewer' });
assert.equal(app.contents.length, 1);
assert.equal(app.contents[0].mimeType, 'text/html;profile=mcp-app');
assert.match(app.contents[0].text, /^<!doctype html>\n<html lang="en">/);
summary.appResource = {
  uri: app.contents[0].uri,
  mimeType: app.contents[0].mimeType,
  title: /<title>([^<]*)<\/title>/.exec(app.contents[0].text)?.[1],
  root: app.contents[0].text.includes('<div id="root"></div>'),
};
summary.resourceTemplates = (await generic.listResourceTemplates()).resourceTemplates;

// Prompts: arguments from the input schema, messages from the rendered document.
const prompts = await generic.listPrompts();
summary.prompts = prompts.prompts;
const review = await generic.getPrompt({ name: 'review_request', arguments: { bookId: 'middlemarch' } });
assert.ok(review.messages.length >= 1, JSON.stringify(review));
assert.equal(review.messages[0].role, 'user');
assert.equal(review.messages[0].content.type, 'text');
summary.reviewRequest = {
  description: review.description,
  messageCount: review.messages.length,
  firstLine: review.messages[0].content.text.split('\n')[0],
};
try {
  await generic.getPrompt({ name: 'review_request', arguments: { bookId: 'nope' } });
  assert.fail('an unknown book was reviewed');
} catch (error) {
  summary.reviewUnknownBook = { code: error.code, message: error.message };
}
// Completion: a prompt argument's enum values, by prefix.
const focus = await generic.complete({
  ref: { type: 'ref/prompt', name: 'review_request' },
  argument: { name: 'focus', value: 'w' },
});
assert.deepEqual(focus.completion.values, ['writing', 'what-next']);
const free = await generic.complete({
  ref: { type: 'ref/prompt', name: 'review_request' },
  argument: { name: 'bookId', value: 'mid' },
});
assert.deepEqual(free.completion.values, []);
summary.completion = { focusW: focus.completion, bookId: free.completion };
try {
  await generic.listTools({ cursor: 'not-a-cursor' });
  assert.fail('an invalid cursor was accepted');
} catch (error) {
  summary.invalidCursor = { code: error.code };
}
assert.equal(summary.invalidCursor.code, -32602);
await generic.close();

// A Cursor client: `export_bibliography` excludes it.
const cursor = await connect('cursor-vscode');
const cursorNames = (await cursor.listTools()).tools.map((tool) => tool.name).sort();
assert.ok(!cursorNames.includes('export_bibliography'), cursorNames.join(', '));
summary.cursorTools = cursorNames;
await cursor.close();

process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
