// Drives `abgen-host mcp` on a built `fixtures/projects/valid-mcp-calls` with the official MCP
// TypeScript SDK client and many concurrent calls of `tick`, a tool that reports progress right
// up to its result, and asserts that every progress notification of a call arrives before the
// call's result on the wire, and that the SDK delivers every one of them: it handles a
// notification a microtask after reading it but a response at once, so a progress notification
// read in the same chunk as its result is reported as an error ("unknown token") and dropped.
//
// Usage: node progress-order.mjs stdio <artifact dir>
//        node progress-order.mjs http <url>
// Prints {calls, progress} as JSON: how many calls, how many progress notifications arrived.

import assert from 'node:assert/strict';
import path from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { serverEnvironment } from './server-env.mjs';

const [mode, target] = process.argv.slice(2);
assert.ok(['stdio', 'http'].includes(mode) && target, 'usage: node progress-order.mjs stdio|http <artifact|url>');

const CALLS = 300;
const STEPS = 5;

const transport =
  mode === 'stdio'
    ? new StdioClientTransport({
        env: serverEnvironment(),
        command: path.join(target, 'bin/abgen-host'),
        args: ['mcp', '--server', 'desk', '--artifact', target, '--workers', '4'],
        stderr: 'inherit',
      })
    : new StreamableHTTPClientTransport(new URL(target));
const errors = [];
const client = new Client({ name: 'abgen-progress-check', version: '1.0.0' });
client.onerror = (error) => errors.push(error.message);
await client.connect(transport);

// The order messages arrive in: for each progress token, was its request already answered?
const answered = new Set();
const late = [];
const deliver = transport.onmessage;
transport.onmessage = (message, extra) => {
  if (message.method === 'notifications/progress') {
    const token = message.params.progressToken;
    if (answered.has(token)) late.push(message);
  } else if ('id' in message && ('result' in message || 'error' in message)) {
    // The SDK uses a request's id as its progress token.
    answered.add(message.id);
  }
  deliver?.(message, extra);
};

const counted = new Map();
const calls = Array.from({ length: CALLS }, (_, n) =>
  client.callTool({ name: 'tick', arguments: { steps: STEPS } }, undefined, {
    onprogress: () => counted.set(n, (counted.get(n) ?? 0) + 1),
    // Every call waits its turn for a worker; none times out under the test's load.
    timeout: 120_000,
  }),
);
const results = await Promise.all(calls);
for (const result of results) {
  if (result.isError) assert.match(result.content[0].text, /^\[busy\]/, JSON.stringify(result));
  else assert.deepEqual(result.structuredContent, { steps: STEPS });
}
assert.deepEqual(late, [], `${late.length} progress notifications arrived after their result`);
assert.deepEqual(errors, [], 'the SDK reported errors');
const progress = [...counted.values()].reduce((sum, n) => sum + n, 0);
assert.ok(progress > 0, 'no progress arrived at all');
await client.close();
process.stdout.write(`${JSON.stringify({ calls: CALLS, progress })}\n`);
