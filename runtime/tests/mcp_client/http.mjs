// Drives `abgen-host mcp --http` on a built curator artifact with the official MCP TypeScript
// SDK's Streamable HTTP client, and checks what the HTTP front door refuses.
//
// Usage: node http.mjs <url> <token>   (the server requires `Authorization: Bearer <token>`)
import assert from 'node:assert/strict';
import http from 'node:http';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [url, token] = process.argv.slice(2);
assert.ok(url && token, 'usage: node http.mjs <url> <token>');

const connect = async (name) => {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
};

// Two sessions at once, each with its own client name, so each sees its own host's list.
const [generic, cursor] = await Promise.all([connect('abgen-check'), connect('cursor-vscode')]);
const names = async (client) => (await client.listTools()).tools.map((tool) => tool.name).sort();
assert.ok((await names(generic)).includes('export_bibliography'));
assert.ok(!(await names(cursor)).includes('export_bibliography'));
const search = await generic.callTool({ name: 'search_books', arguments: { query: 'le guin', limit: 1 } });
assert.notEqual(search.isError, true, JSON.stringify(search));
assert.equal(search.structuredContent.books.length, 1);
const shelf = await cursor.readResource({ uri: 'curator://shelf' });
assert.match(shelf.contents[0].text, /^# Reading shelf/);
await Promise.all([generic.close(), cursor.close()]);

// The front door: a raw POST with chosen headers, answered before any MCP handling.
const initialize = JSON.stringify({
  jsonrpc: '2.0', id: 1, method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});
const post = (path, headers) =>
  new Promise((resolve, reject) => {
    const target = new URL(path, url);
    const request = http.request(
      target,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode));
      },
    );
    request.on('error', reject);
    request.end(initialize);
  });
const bearer = { authorization: `Bearer ${token}` };
const statuses = {
  noToken: await post('/mcp', {}),
  wrongToken: await post('/mcp', { authorization: 'Bearer nope' }),
  otherPath: await post('/elsewhere', bearer),
  foreignOrigin: await post('/mcp', { ...bearer, origin: 'https://evil.example' }),
  reboundHost: await post('/mcp', { ...bearer, host: 'evil.example' }),
  loopbackOrigin: await post('/mcp', { ...bearer, origin: 'http://localhost:3000' }),
};
assert.deepEqual(statuses, {
  noToken: 401,
  wrongToken: 401,
  otherPath: 404,
  foreignOrigin: 403,
  reboundHost: 403,
  loopbackOrigin: 200,
});
process.stdout.write(`${JSON.stringify(statuses)}\n`);
