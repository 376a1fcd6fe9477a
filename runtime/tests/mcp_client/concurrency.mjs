// Drives `abgen-host mcp --server desk --workers 2` on a built `fixtures/projects/valid-mcp-calls`
// with the official MCP TypeScript SDK client, and asserts what the kernel promises a client:
// - `ping` is answered while a render runs;
// - other calls complete while one holds a worker;
// - cancelling a call (the SDK sends notifications/cancelled) ends the route's child process and
//   closes its fetch's socket at once, and nothing of that call arrives afterwards;
// - 1,000 concurrent calls each get exactly one response (a result, or a `busy` error result
//   once the queue is full).
// Prints the measured figures as JSON.
//
// Usage: node concurrency.mjs <artifact dir> <scratch dir>

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

import { serverEnvironment } from './server-env.mjs';

const [artifact, scratch] = process.argv.slice(2);
assert.ok(artifact && scratch, 'usage: node concurrency.mjs <artifact> <scratch dir>');

/** Polls `condition` every 2 ms; the elapsed milliseconds once it holds, or throws after `ms`. */
async function within(ms, condition, what) {
  const started = performance.now();
  while (!condition()) {
    if (performance.now() - started > ms) throw new Error(`${what} not within ${ms} ms`);
    await sleep(2);
  }
  return performance.now() - started;
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// A loopback server that accepts and never answers. It reads (so it sees the client close) and
// keeps the first connection: the one the route's fetch opened.
let fetchSocket;
let fetchSocketOpen = false;
const silent = createServer((socket) => {
  socket.resume();
  if (fetchSocket !== undefined) return;
  fetchSocket = socket;
  fetchSocketOpen = true;
  socket.on('close', () => {
    fetchSocketOpen = false;
  });
});
await new Promise((resolve) => silent.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${silent.address().port}/`;

const transport = new StdioClientTransport({
  env: serverEnvironment(),
  command: path.join(artifact, 'bin/abgen-host'),
  args: ['mcp', '--server', 'desk', '--artifact', artifact, '--workers', '2'],
  stderr: 'inherit',
});
const client = new Client({ name: 'abgen-concurrency-check', version: '1.0.0' });
await client.connect(transport);
// Every message the server sends, as it arrives, to check what follows a cancel.
const received = [];
const deliver = transport.onmessage;
transport.onmessage = (message) => {
  received.push({ at: performance.now(), message });
  deliver?.(message);
};

const figures = {};
// Warm both workers, so the timings below are not Node's start-up.
await Promise.all([1, 2].map((n) => client.callTool({ name: 'quick', arguments: { n } })));

// A call that holds a worker until cancelled.
const marker = path.join(scratch, 'hold.pid');
const abort = new AbortController();
let held = false;
const holding = client
  .callTool({ name: 'hold', arguments: { marker, url } }, undefined, {
    signal: abort.signal,
    onprogress: () => {
      held = true;
    },
  })
  .then(
    () => 'answered',
    (error) => `rejected: ${error.message}`,
  );
await within(20_000, () => held && fetchSocketOpen, 'the hold call reporting progress');
const pid = Number(readFileSync(marker, 'utf8'));
assert.ok(alive(pid), 'the route started its child');

// ping while the render runs.
const pings = [];
for (let i = 0; i < 20; i += 1) {
  const started = performance.now();
  await client.ping();
  pings.push(performance.now() - started);
}
pings.sort((a, b) => a - b);
figures.pingMedianMs = Number(pings[10].toFixed(2));
assert.ok(pings[10] < 50, `ping median ${pings[10]} ms during a render`);

// Other calls complete on the second worker meanwhile.
const quick = await client.callTool({ name: 'quick', arguments: { n: 7 } });
assert.deepEqual(quick.structuredContent, { n: 7 });

// Cancel: the child and the socket go at once, and nothing of the call follows.
const holdRequests = received.length;
abort.abort('the user moved on');
const cancelledAt = performance.now();
figures.childGoneMs = Number((await within(2_000, () => !alive(pid), 'the child exiting')).toFixed(1));
figures.socketClosedMs = Number(
  (await within(2_000, () => !fetchSocketOpen, 'the fetch socket closing')).toFixed(1),
);
assert.ok(figures.childGoneMs < 200, `child gone after ${figures.childGoneMs} ms`);
assert.ok(figures.socketClosedMs < 200, `socket closed after ${figures.socketClosedMs} ms`);
assert.match(await holding, /^rejected/);
// Long enough for the worker's own ending to have been sent, if the server were to send it.
await sleep(1_500);
const after = received.slice(holdRequests).filter(({ at }) => at >= cancelledAt);
assert.deepEqual(after.map(({ message }) => message), [], 'messages after the cancel');

// 1,000 concurrent calls: one response each.
const calls = Array.from({ length: 1000 }, (_, n) =>
  client.callTool({ name: 'quick', arguments: { n } }).then((result) => ({ n, result })),
);
const results = await Promise.all(calls);
let answered = 0;
let busy = 0;
for (const { n, result } of results) {
  if (result.isError) {
    assert.match(result.content[0].text, /^\[busy\]/, JSON.stringify(result));
    busy += 1;
  } else {
    assert.deepEqual(result.structuredContent, { n });
    answered += 1;
  }
}
const responses = received.filter(({ message }) => 'result' in message || 'error' in message);
const ids = responses.map(({ message }) => message.id);
assert.equal(new Set(ids).size, ids.length, 'a response was duplicated');
figures.concurrentCalls = { answered, busy };
assert.equal(answered + busy, 1000);

// The host axis of a call's context, as the server observed it from the client's name.
const whoami = await client.callTool({ name: 'whoami', arguments: {} });
assert.deepEqual(whoami.structuredContent.host, {
  state: 'unavailable',
  code: 'not-reported',
  reason: 'the MCP client `abgen-concurrency-check` names no known host',
});
const claude = new Client({ name: 'claude-code', version: '2.1.332' });
await claude.connect(
  new StdioClientTransport({
    env: serverEnvironment(),
    command: path.join(artifact, 'bin/abgen-host'),
    args: ['mcp', '--server', 'desk', '--artifact', artifact, '--workers', '1'],
    stderr: 'inherit',
  }),
);
const asClaude = await claude.callTool({ name: 'whoami', arguments: {} });
assert.deepEqual(asClaude.structuredContent.host, { state: 'available', value: 'claude', source: 'derived' });
await claude.close();

await client.close();
silent.close();
process.stdout.write(`${JSON.stringify(figures)}\n`);
