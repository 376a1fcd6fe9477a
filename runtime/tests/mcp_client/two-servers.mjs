// Two `abgen-host mcp --http` processes behind one address, as a deployment puts them behind a
// load balancer with sticky sessions: a front on a loopback port sends each new session to the
// next server in turn and every later request of a session to the server that issued its
// `Mcp-Session-Id`. Two official SDK clients then work through the front, and each server is
// shown to know only its own sessions.
//
// Usage: node two-servers.mjs <url of server 0> <url of server 1>
import assert from 'node:assert/strict';
import http from 'node:http';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const backends = process.argv.slice(2).map((url) => new URL(url));
assert.equal(backends.length, 2, 'usage: node two-servers.mjs <url 0> <url 1>');

// Every wait below is bounded by this one.
setTimeout(() => {
  console.error('two-servers.mjs: timed out');
  process.exit(1);
}, 60_000).unref();

/** Session id → the server that issued it. */
const owner = new Map();
/** How many requests each server was sent. */
const served = [0, 0];
let next = 0;

const front = http.createServer((request, response) => {
  const session = request.headers['mcp-session-id'];
  const index = session === undefined ? next++ % backends.length : owner.get(session);
  if (index === undefined) {
    response.writeHead(404).end('no server holds this session');
    return;
  }
  served[index] += 1;
  const target = backends[index];
  const upstream = http.request(
    { host: target.hostname, port: target.port, path: target.pathname, method: request.method, headers: request.headers },
    (answer) => {
      const issued = answer.headers['mcp-session-id'];
      if (issued !== undefined && !owner.has(issued)) owner.set(issued, index);
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    },
  );
  upstream.on('error', (error) => {
    if (!response.headersSent) response.writeHead(502);
    response.end(String(error));
  });
  request.pipe(upstream);
});
await new Promise((resolve) => front.listen(0, '127.0.0.1', resolve));
const frontUrl = new URL(`http://127.0.0.1:${front.address().port}/mcp`);

const connect = async (name) => {
  const client = new Client({ name, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(frontUrl);
  await client.connect(transport);
  return { client, session: transport.sessionId };
};

// One after the other, so the front's turn order gives each its own server.
const first = await connect('abgen-check');
const second = await connect('cursor-vscode');
assert.equal(owner.get(first.session), 0, 'the first session is on server 0');
assert.equal(owner.get(second.session), 1, 'the second session is on server 1');

for (const { client } of [first, second]) {
  const { tools } = await client.listTools();
  assert.ok(tools.some((tool) => tool.name === 'search_books'));
  const search = await client.callTool({ name: 'search_books', arguments: { query: 'le guin', limit: 1 } });
  assert.notEqual(search.isError, true, JSON.stringify(search));
  assert.equal(search.structuredContent.books.length, 1);
  const shelf = await client.readResource({ uri: 'curator://shelf' });
  assert.match(shelf.contents[0].text, /^# Reading shelf/);
}
// Each session saw its own host's tool list: the sessions are not shared.
const names = async (client) => (await client.listTools()).tools.map((tool) => tool.name);
assert.ok((await names(first.client)).includes('export_bibliography'));
assert.ok(!(await names(second.client)).includes('export_bibliography'));
assert.ok(served[0] >= 4 && served[1] >= 4, `both servers served: ${served}`);

/** A `ping` of `session` sent straight to server `index`, past the front: its HTTP status. */
const ping = (index, session) =>
  new Promise((resolve, reject) => {
    const target = backends[index];
    const body = JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'ping' });
    const request = http.request(
      {
        host: target.hostname, port: target.port, path: target.pathname, method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': session,
          'mcp-protocol-version': '2025-11-25',
          'content-length': Buffer.byteLength(body),
        },
      },
      (answer) => {
        answer.resume();
        answer.on('end', () => resolve(answer.statusCode));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
// A server answers its own session and knows nothing of the other's.
assert.equal(await ping(0, first.session), 200);
assert.equal(await ping(1, second.session), 200);
assert.equal(await ping(1, first.session), 404);
assert.equal(await ping(0, second.session), 404);

await Promise.all([first.client.close(), second.client.close()]);
front.closeAllConnections();
await new Promise((resolve) => front.close(resolve));
console.error(`two-servers.mjs: ok (requests served: ${served.join(' and ')})`);
process.exit(0);
