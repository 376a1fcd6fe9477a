// A client that goes away mid-call: the route's render is cancelled through the kernel, so its
// child process and its fetch's socket end at once, and nothing outlives the session.
//
// - stdio: `abgen-host mcp` is started on pipes, a `hold` call is made, and once it holds the
//   client closes the server's stdin and its stdout; the server process, the route's child and
//   its socket must all be gone within the bound.
// - http: over Streamable HTTP (the official SDK client), the session is closed (DELETE) while a
//   `hold` call runs; the child and the socket must go, and a new session is then served at
//   once, so the worker was left healthy.
//
// Usage: node disconnect.mjs stdio <artifact dir> <scratch dir>
//        node disconnect.mjs http <url> <scratch dir>
// Prints the measured figures as JSON.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { alive, within } from './processes.mjs';
import { serverEnvironment } from './server-env.mjs';

const [mode, target, scratch] = process.argv.slice(2);
assert.ok(['stdio', 'http'].includes(mode) && target && scratch, 'usage: node disconnect.mjs stdio|http <target> <scratch>');

// A loopback server that accepts and never answers; it sees when the route's fetch lets go. A
// connection counts once the request arrived on it: before that, an aborted fetch may keep the
// idle connection in its pool for reuse, which is not the socket outliving the render.
const sockets = new Set();
const silent = createServer((socket) => {
  socket.once('data', () => sockets.add(socket));
  socket.resume();
  socket.on('close', () => sockets.delete(socket));
});
await new Promise((resolve) => silent.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${silent.address().port}/`;
const marker = path.join(scratch, `hold-${mode}.pid`);
rmSync(marker, { force: true });
const holding = () => {
  try {
    return Number(readFileSync(marker, 'utf8')) > 0 && sockets.size > 0;
  } catch {
    return false;
  }
};

const figures = {};
if (mode === 'stdio') {
  const server = spawn(
    path.join(target, 'bin/abgen-host'),
    ['mcp', '--server', 'desk', '--artifact', target, '--workers', '1'],
    { env: serverEnvironment(), stdio: ['pipe', 'pipe', 'inherit'] },
  );
  let exited = false;
  server.on('exit', () => {
    exited = true;
  });
  const send = (message) => server.stdin.write(`${JSON.stringify(message)}\n`);
  send({
    jsonrpc: '2.0', id: 1, method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'abgen-disconnect-check', version: '1' } },
  });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'hold', arguments: { marker, url } } });
  await within(20_000, holding, 'the hold call holding');
  const child = Number(readFileSync(marker, 'utf8'));
  assert.ok(alive(child));
  // The client goes: its end of both streams closes.
  server.stdin.end();
  server.stdout.destroy();
  figures.childGoneMs = await within(3_000, () => !alive(child), 'the route child exiting');
  figures.socketClosedMs = await within(3_000, () => sockets.size === 0, 'the fetch socket closing');
  figures.serverExitedMs = await within(3_000, () => exited, 'the server exiting');
} else {
  const connect = async () => {
    const transport = new StreamableHTTPClientTransport(new URL(target));
    const client = new Client({ name: 'abgen-disconnect-check', version: '1.0.0' });
    await client.connect(transport);
    return { client, transport };
  };
  const first = await connect();
  const call = first.client
    .callTool({ name: 'hold', arguments: { marker, url } })
    .then(() => 'answered', (error) => `rejected: ${error.message}`);
  await within(20_000, holding, 'the hold call holding');
  const child = Number(readFileSync(marker, 'utf8'));
  await first.transport.terminateSession();
  figures.childGoneMs = await within(3_000, () => !alive(child), 'the route child exiting');
  figures.socketClosedMs = await within(3_000, () => sockets.size === 0, 'the fetch socket closing');
  await first.client.close();
  await call;
  // The one worker serves the next session at once.
  const second = await connect();
  const started = performance.now();
  const quick = await second.client.callTool({ name: 'quick', arguments: { n: 3 } });
  figures.nextCallMs = Number((performance.now() - started).toFixed(1));
  assert.deepEqual(quick.structuredContent, { n: 3 });
  await second.client.close();
}
for (const key of ['childGoneMs', 'socketClosedMs']) {
  assert.ok(figures[key] < 1_000, `${key}: ${figures[key]}`);
}
silent.close();
process.stdout.write(`${JSON.stringify(figures)}\n`);
