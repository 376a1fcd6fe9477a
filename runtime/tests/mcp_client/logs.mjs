// Drives `abgen-host mcp` on a built `fixtures/projects/valid-mcp-tasks` with the official MCP
// TypeScript SDK client and checks the route log API (`agent().log`) end to end: a session that
// never sets a level receives no record; `logging/setLevel` lets through exactly the records at
// or above its level, in the order the route wrote them (over stdio all before the call's result;
// over HTTP rmcp sends them on the session's standalone stream, beside the POST's, so they arrive
// within a bound instead); a later setLevel changes what the next call sends; and a call that is
// cancelled sends no record once its cancellation has been read.
//
// Usage: node logs.mjs stdio <artifact dir>
//        node logs.mjs http <url>
// Prints {levels, ticksBeforeCancel, ticksAfterCancel} as JSON.

import assert from 'node:assert/strict';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

import { serverEnvironment } from './server-env.mjs';

const [mode, target] = process.argv.slice(2);
assert.ok(['stdio', 'http'].includes(mode) && target, 'usage: node logs.mjs stdio|http <artifact|url>');

const transport =
  mode === 'stdio'
    ? new StdioClientTransport({
        env: serverEnvironment(),
        command: path.join(target, 'bin/abgen-host'),
        args: ['mcp', '--server', 'mill', '--artifact', target, '--workers', '1'],
        stderr: 'inherit',
      })
    : new StreamableHTTPClientTransport(new URL(target));
const client = new Client({ name: 'abgen-logs-check', version: '1.0.0' });
const errors = [];
client.onerror = (error) => errors.push(error.message);

// Every record with when it arrived, and every message in wire order, so a record that arrives
// after its call's result is seen.
const records = [];
const wire = [];
client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
  records.push({ at: performance.now(), ...notification.params });
});
await client.connect(transport);
const deliver = transport.onmessage;
transport.onmessage = (message, extra) => {
  wire.push(message.method ?? ('result' in message || 'error' in message ? 'response' : 'other'));
  deliver?.(message, extra);
};

const chatter = (untilCancelled, options) =>
  client.callTool({ name: 'chatter', arguments: { untilCancelled } }, undefined, options);

/**
 * Calls chatter once and returns the `expected` records it produced (waiting a bounded time for
 * them over HTTP, and a little longer for any beyond); over stdio they all came before the result.
 */
async function recordsOfOneCall(expected) {
  records.length = 0;
  wire.length = 0;
  const result = await chatter(false);
  assert.deepEqual(result.structuredContent, { logged: 5 }, JSON.stringify(result));
  if (mode === 'stdio') {
    const answered = wire.lastIndexOf('response');
    assert.ok(
      !wire.slice(answered + 1).includes('notifications/message'),
      `a log record arrived after its call's result: ${wire.join(', ')}`,
    );
  } else {
    for (let waited = 0; records.length < expected; waited += 10) {
      assert.ok(waited < 10_000, `${records.length} of ${expected} records arrived`);
      await sleep(10);
    }
    await sleep(200);
  }
  return records.map(({ level, logger, data }) => ({ level, logger, data }));
}

// A session that never set a level receives nothing.
assert.deepEqual(await recordsOfOneCall(0), [], 'records were sent before any logging/setLevel');

// At warning: warning and error only, in order, with the route's message and data.
await client.setLoggingLevel('warning');
const atWarning = await recordsOfOneCall(2);
assert.deepEqual(atWarning, [
  { level: 'warning', logger: 'abgen/mill', data: { route: 'tool:mill/chatter', message: 'record 3 at warning', data: { n: 3 } } },
  { level: 'error', logger: 'abgen/mill', data: { route: 'tool:mill/chatter', message: 'record 4 at error', data: { n: 4 } } },
]);

// setLevel again: the next call sends every level.
await client.setLoggingLevel('debug');
const atDebug = await recordsOfOneCall(5);
assert.deepEqual(
  atDebug.map(({ level }) => level),
  ['debug', 'info', 'notice', 'warning', 'error'],
);

// Raised above every route level: nothing.
await client.setLoggingLevel('critical');
assert.deepEqual(await recordsOfOneCall(0), []);

// A cancelled call: ticks flow until the cancel, none arrives once the server has read it.
await client.setLoggingLevel('debug');
records.length = 0;
const controller = new AbortController();
const cancelled = chatter(true, { signal: controller.signal }).then(
  () => 'answered',
  (error) => error.name ?? 'rejected',
);
const ticks = () => records.filter((record) => record.data?.message === 'tick');
for (let waited = 0; ticks().length < 3; waited += 10) {
  assert.ok(waited < 20_000, 'no tick arrived');
  await sleep(10);
}
controller.abort('enough');
const abortedAt = performance.now();
assert.notEqual(await cancelled, 'answered', 'the cancelled call was answered');
await sleep(800);
const ticksBeforeCancel = ticks().filter((record) => record.at <= abortedAt).length;
// Records already on the wire when the cancel was sent may still arrive; none may come later.
const late = ticks().filter((record) => record.at > abortedAt + 250);
assert.deepEqual(late, [], `${late.length} records of the cancelled call arrived after its cancel`);

// The session is still serving.
assert.equal((await recordsOfOneCall(5)).length, 5, `${mode}: the session serves records after the cancel`);
assert.deepEqual(errors, [], 'the SDK reported errors');
await client.close();
process.stdout.write(
  `${JSON.stringify({ levels: atDebug.length, ticksBeforeCancel, ticksAfterCancel: ticks().length - ticksBeforeCancel })}\n`,
);
