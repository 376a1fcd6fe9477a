// Drives `abgen-host mcp` on a built `fixtures/projects/valid-mcp-tasks` with the official MCP
// TypeScript SDK client and checks the MCP 2025-11-25 task lifecycle end to end (seed 002
// §Long-running tools: tasks): the `tasks` capability and `execution.taskSupport` in tools/list;
// a task-augmented call answered with a CreateTaskResult at once; tasks/get with the render's
// latest progress; tasks/result blocking until the task settles and answering what the ordinary
// call answers, with the related-task `_meta`; progress and log notifications of a task stamped
// with that `_meta`; a failed render as a failed task; tasks/list by cursor; tasks/cancel
// aborting the render (the route's child process ends); -32601 for a task call to a tool without
// support and for an ordinary call to a `required` tool; -32602 for unknown ids, for cancelling a
// settled task and for an invalid cursor; ttl honoured; at most 256 tasks; and every working task
// cancelled when the session closes.
//
// Usage: node tasks.mjs stdio <artifact dir> <scratch dir>
//        node tasks.mjs http <url> <scratch dir>
// Prints the measured figures as JSON.

import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  CancelTaskResultSchema,
  CreateTaskResultSchema,
  GetTaskResultSchema,
  ListTasksResultSchema,
  RELATED_TASK_META_KEY,
} from '@modelcontextprotocol/sdk/types.js';

import { alive, within } from './processes.mjs';
import { serverEnvironment } from './server-env.mjs';

const [mode, target, scratch] = process.argv.slice(2);
assert.ok(['stdio', 'http'].includes(mode) && target && scratch, 'usage: node tasks.mjs stdio|http <target> <scratch>');

/** The pid `hold` wrote to `marker`, once it has. */
function heldPid(marker) {
  try {
    return Number(readFileSync(marker, 'utf8')) || undefined;
  } catch {
    return undefined;
  }
}

/** A connected client and every message it received, in order. */
async function connect() {
  const transport =
    mode === 'stdio'
      ? new StdioClientTransport({
          env: serverEnvironment(),
          command: path.join(target, 'bin/abgen-host'),
          args: ['mcp', '--server', 'mill', '--artifact', target, '--workers', '2'],
          stderr: 'inherit',
        })
      : new StreamableHTTPClientTransport(new URL(target));
  const client = new Client({ name: 'abgen-tasks-check', version: '1.0.0' });
  const errors = [];
  client.onerror = (error) => errors.push(error.message);
  await client.connect(transport);
  const received = [];
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    received.push(message);
    deliver?.(message, extra);
  };
  return { client, transport, errors, received };
}

/** The JSON-RPC error code `promise` rejects with. */
async function errorCode(promise) {
  try {
    await promise;
  } catch (error) {
    return error.code;
  }
  assert.fail('the request succeeded');
}

const { client, transport, errors, received } = await connect();
const figures = {};

// The capability and each tool's execution block.
assert.deepEqual(client.getServerCapabilities().tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } });
const { tools } = await client.listTools();
const execution = Object.fromEntries(tools.map((tool) => [tool.name, tool.execution?.taskSupport ?? null]));
assert.deepEqual(execution, { batch: 'required', chatter: null, convert: 'optional', hold: 'optional' });

const taskCall = (name, args, task = { ttl: 60_000 }, options) =>
  client.request({ method: 'tools/call', params: { name, arguments: args, task } }, CreateTaskResultSchema, options);
const getTask = (taskId) => client.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema);
const taskResult = (taskId) => client.request({ method: 'tasks/result', params: { taskId } }, CallToolResultSchema);
const cancelTask = (taskId) => client.request({ method: 'tasks/cancel', params: { taskId } }, CancelTaskResultSchema);
const listTasks = (cursor) =>
  client.request({ method: 'tasks/list', params: cursor === undefined ? {} : { cursor } }, ListTasksResultSchema);

// A task-augmented call answers at once, while its render goes on.
await client.setLoggingLevel('info');
const steps = 4;
const stepMs = 250;
let progressed = 0;
const askedAt = performance.now();
const created = await taskCall('convert', { steps, stepMs }, { ttl: 60_000 }, { onprogress: () => (progressed += 1) });
figures.createdMs = Number((performance.now() - askedAt).toFixed(1));
const taskId = created.task.taskId;
assert.match(taskId, /^[0-9a-f]{32}$/);
assert.equal(created.task.status, 'working');
assert.equal(created.task.ttl, 60_000);
assert.ok(created.task.pollInterval > 0);
assert.ok(figures.createdMs < steps * stepMs, `the task was created only after ${figures.createdMs} ms`);

// tasks/get follows the render's progress.
await within(5_000, async () => (await getTask(taskId)).statusMessage === `step 2 of ${steps}`, 'step 2 in tasks/get');
const midway = await getTask(taskId);
assert.equal(midway.status, 'working');
assert.deepEqual(midway._meta['abgen.dev/progress'], { progress: 2, total: steps, message: `step 2 of ${steps}` });

// tasks/result blocks until the task settles, then answers what the ordinary call answers.
const blockedAt = performance.now();
const result = await taskResult(taskId);
figures.resultBlockedMs = Number((performance.now() - blockedAt).toFixed(1));
assert.ok(figures.resultBlockedMs > stepMs, `tasks/result answered after ${figures.resultBlockedMs} ms`);
assert.deepEqual(result._meta[RELATED_TASK_META_KEY], { taskId });
const ordinary = await client.callTool({ name: 'convert', arguments: { steps, stepMs: 0 } });
const withoutTask = structuredClone(result);
delete withoutTask._meta[RELATED_TASK_META_KEY];
if (Object.keys(withoutTask._meta).length === 0) delete withoutTask._meta;
assert.deepEqual(withoutTask, ordinary);
const settled = await getTask(taskId);
assert.equal(settled.status, 'completed');
assert.ok(Date.parse(settled.lastUpdatedAt) >= Date.parse(settled.createdAt));

// The task's progress and log notifications carry its related-task `_meta`.
const related = (method) =>
  received.filter((message) => message.method === method && message.params?._meta?.[RELATED_TASK_META_KEY]?.taskId === taskId);
// Over HTTP rmcp sends them on the session's standalone stream, so they may trail tasks/result.
await within(10_000, () => related('notifications/progress').length >= steps && related('notifications/message').length >= steps, 'the task\'s notifications');
assert.equal(related('notifications/progress').length, steps, 'progress of the task');
assert.equal(progressed, steps, 'the SDK delivered each progress notification');
assert.deepEqual(
  related('notifications/message').map((message) => message.params.data.message),
  Array.from({ length: steps }, (_, n) => `step ${n + 1}`),
);

// A render that fails is a failed task whose result is the ordinary call's error result.
const failing = await taskCall('convert', { steps: 1, fail: true });
const failed = await taskResult(failing.task.taskId);
assert.equal(failed.isError, true);
assert.match(failed.content[0].text, /the conversion failed/);
assert.equal((await getTask(failing.task.taskId)).status, 'failed');

// The wrong kind of call to a tool, and unknown ids.
assert.equal(await errorCode(taskCall('chatter', {})), -32601, 'a task call to a tool without support');
assert.equal(
  await errorCode(client.request({ method: 'tools/call', params: { name: 'batch', arguments: { items: 3 } } }, CallToolResultSchema)),
  -32601,
  'an ordinary call to a required tool',
);
const batched = await taskCall('batch', { items: 3 });
assert.deepEqual((await taskResult(batched.task.taskId)).structuredContent, { batched: 3 });
for (const request of [getTask, taskResult, cancelTask]) {
  assert.equal(await errorCode(request('nope')), -32602, 'an unknown task id');
}
assert.equal(await errorCode(cancelTask(taskId)), -32602, 'cancelling a settled task');
assert.equal(await errorCode(listTasks('not-a-cursor')), -32602, 'an invalid cursor');

// tasks/cancel: the task is cancelled before the answer, and its render is aborted.
const marker = path.join(scratch, `task-hold-${mode}.pid`);
rmSync(marker, { force: true });
const holding = await taskCall('hold', { marker });
await within(10_000, () => heldPid(marker) !== undefined, 'the held child');
const child = heldPid(marker);
assert.ok(alive(child));
const cancelled = await cancelTask(holding.task.taskId);
assert.equal(cancelled.status, 'cancelled');
figures.cancelledChildGoneMs = await within(2_000, () => !alive(child), 'the cancelled render ending its child');
assert.equal((await getTask(holding.task.taskId)).status, 'cancelled');
assert.ok((await errorCode(taskResult(holding.task.taskId))) < 0, 'a cancelled task has no result');

// ttl honoured: a settled task stays for its ttl, then is unknown.
const brief = await taskCall('convert', { steps: 1 }, { ttl: 400 });
await taskResult(brief.task.taskId);
assert.equal((await getTask(brief.task.taskId)).ttl, 400);
await sleep(700);
assert.equal(await errorCode(getTask(brief.task.taskId)), -32602, 'a task past its ttl');

// tasks/list pages by cursor through every task of the session, oldest first; at most 256.
async function allTasks() {
  const pages = [];
  let cursor;
  do {
    const page = await listTasks(cursor);
    pages.push(page.tasks);
    cursor = page.nextCursor;
    assert.ok(pages.length < 10, 'tasks/list never ends');
  } while (cursor !== undefined);
  return pages;
}
const live = (await allTasks()).flat().length;
const more = [];
for (let n = live; n < 256; n += 1) more.push(taskCall('convert', { steps: 1 }).then((created) => created.task.taskId));
const moreIds = await Promise.all(more);
const pages = await allTasks();
figures.listPages = pages.map((page) => page.length);
assert.deepEqual(figures.listPages, [100, 100, 56]);
const listed = pages.flat().map((task) => task.taskId);
assert.equal(new Set(listed).size, 256);
assert.deepEqual(listed.slice(0, 2), [taskId, failing.task.taskId], 'oldest first');
assert.deepEqual(listed.slice(-moreIds.length).sort(), [...moreIds].sort());
const full = await errorCode(taskCall('convert', { steps: 1 }));
assert.equal(full, -32603, 'a 257th task');
assert.deepEqual(errors, [], 'the SDK reported errors');

// The session ends with a task still working: the task is cancelled and its render aborted.
const closing = await connect();
const closingMarker = path.join(scratch, `task-close-${mode}.pid`);
rmSync(closingMarker, { force: true });
await closing.client.request(
  { method: 'tools/call', params: { name: 'hold', arguments: { marker: closingMarker }, task: {} } },
  CreateTaskResultSchema,
);
await within(10_000, () => heldPid(closingMarker) !== undefined, 'the second held child');
const closingChild = heldPid(closingMarker);
// stdio: the client closes the server's input (the session's end; the process exits after);
// http: it deletes its session, and the server goes on serving others.
if (mode === 'http') await closing.transport.terminateSession();
else closing.transport._process.stdin.end();
figures.sessionClosedChildGoneMs = await within(3_000, () => !alive(closingChild), 'the session end ending the task');
await closing.client.close();
assert.deepEqual(await client.ping(), {}, 'the first session is still served');

await client.close();
process.stdout.write(`${JSON.stringify(figures)}\n`);
