// Two sessions through one address in front of two `abgen-host mcp --http` processes (built
// `fixtures/projects/valid-mcp-tasks`), with the official MCP TypeScript SDK client: each session
// is served whole (initialize, tools/list, a call, a task and its result), and a task of one
// session is unknown to the other, whose records live in the other process.
//
// Usage: node two-servers.mjs <front url>
// Prints {sessions: [id, id]} as JSON: the session ids the servers gave.

import assert from 'node:assert/strict';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema, GetTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';

const [front] = process.argv.slice(2);
assert.ok(front, 'usage: node two-servers.mjs <front url>');

async function session() {
  const transport = new StreamableHTTPClientTransport(new URL(front));
  const client = new Client({ name: 'abgen-front-check', version: '1.0.0' });
  await client.connect(transport);
  const { tools } = await client.listTools();
  assert.ok(tools.some((tool) => tool.name === 'convert'));
  const answered = await client.callTool({ name: 'convert', arguments: { steps: 2 } });
  assert.deepEqual(answered.structuredContent, { steps: 2 });
  const created = await client.request(
    { method: 'tools/call', params: { name: 'convert', arguments: { steps: 1 }, task: {} } },
    CreateTaskResultSchema,
  );
  const result = await client.request({ method: 'tasks/result', params: { taskId: created.task.taskId } }, CallToolResultSchema);
  assert.deepEqual(result.structuredContent, { steps: 1 });
  return { client, transport, taskId: created.task.taskId };
}

const first = await session();
const second = await session();
assert.notEqual(first.transport.sessionId, second.transport.sessionId);
// Each session sees its own tasks only.
assert.equal((await first.client.request({ method: 'tasks/get', params: { taskId: first.taskId } }, GetTaskResultSchema)).status, 'completed');
await assert.rejects(
  second.client.request({ method: 'tasks/get', params: { taskId: first.taskId } }, GetTaskResultSchema),
  (error) => error.code === -32602,
);
const sessions = [first.transport.sessionId, second.transport.sessionId];
for (const { client, transport } of [first, second]) {
  await transport.terminateSession();
  await client.close();
}
process.stdout.write(`${JSON.stringify({ sessions })}\n`);
