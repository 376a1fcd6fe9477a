// Drives `abgen dev proxy --root <project> --server desk` with the official MCP TypeScript SDK
// client while `abgen dev` (process <dev pid>) rebuilds `fixtures/projects/valid-mcp-calls`
// behind it, and asserts what a host keeping the proxy connected is promised:
// - a call's progress reaches the host under the host's progress token;
// - a call admitted before a rebuild finishes on its epoch after the new epoch took over;
// - the rebuild reaches the host as `notifications/tools/list_changed`, and new calls (a new
//   listing, a call) are served by the new epoch;
// - each epoch runs from its own pinned copy of the artifact, which goes with the epoch;
// - the epoch's artifact removed: a call fails closed with AB8024;
// - the development server stopped: a call fails closed with AB8025.
// Prints what it saw as JSON.
//
// Usage: node dev-proxy.mjs <abgen> <project> <out> <dev pid>

import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const [abgen, project, out, devPid] = process.argv.slice(2);
assert.ok(abgen && project && out && devPid, 'usage: node dev-proxy.mjs <abgen> <project> <out> <dev pid>');

/** Polls `condition` every 10 ms; throws after `ms`. */
async function within(ms, condition, what) {
  const started = performance.now();
  while (!condition()) {
    if (performance.now() - started > ms) throw new Error(`${what} not within ${ms} ms`);
    await sleep(10);
  }
}

// The test's runtime and state directories pass through, so the warm socket and the workers'
// code cache stay in the test's own directories.
const env = { ...getDefaultEnvironment(), XDG_RUNTIME_DIR: process.env.XDG_RUNTIME_DIR ?? '' };
if (process.env.XDG_STATE_HOME) env.XDG_STATE_HOME = process.env.XDG_STATE_HOME;
const transport = new StdioClientTransport({
  command: abgen,
  args: ['dev', 'proxy', '--root', project, '--server', 'desk'],
  env,
  stderr: 'pipe',
});
let proxyStderr = '';
transport.stderr?.on('data', (chunk) => {
  proxyStderr += chunk;
});
const client = new Client({ name: 'abgen-dev-proxy-check', version: '1.0.0' });
const events = [];
client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
  events.push('tools/list_changed');
});
await client.connect(transport);
const capabilities = client.getServerCapabilities();
assert.equal(capabilities?.tools?.listChanged, true, 'the proxy says its tool list changes');

const description = async (name) => (await client.listTools()).tools.find((tool) => tool.name === name)?.description;
const before = await description('quick');
assert.equal(before, 'Answers at once with the number it was given.');

// Progress of a forwarded call reaches the host under the host's own token.
const progress = [];
const ticked = await client.callTool({ name: 'tick', arguments: { steps: 3 } }, undefined, {
  onprogress: ({ progress: value }) => progress.push(value),
});
assert.deepEqual(ticked.structuredContent, { steps: 3 });

// A call admitted on the first epoch, still running while the next one takes over.
const nap = client.callTool({ name: 'nap', arguments: { ms: 4000 } }, undefined, { timeout: 60_000 }).then((result) => {
  events.push('nap answered');
  return result;
});
await sleep(300);
const quickSource = path.join(project, 'src/mcp/desk/tools/quick.tsx');
writeFileSync(quickSource, readFileSync(quickSource, 'utf8').replace(before, 'Answers at once, rebuilt.'));
await within(60_000, () => events.includes('tools/list_changed'), 'tools/list_changed');
const after = await description('quick');
const quick = await client.callTool({ name: 'quick', arguments: { n: 7 } });
assert.deepEqual(quick.structuredContent, { n: 7 });
// Each epoch runs from its own pinned copy of the artifact: the admitted call's epoch still
// has the worker bundle it started with, whatever the rebuild put in the output since.
const epochsDir = path.join(project, '.agent-bundle/dev/epochs');
const workerOf = (dir) =>
  JSON.parse(readFileSync(path.join(dir, 'abgen.manifest.json'), 'utf8')).files.find(
    (file) => file.path === 'runtime/worker.mjs',
  ).sha256;
const newDigest = JSON.parse(readFileSync(path.join(project, '.agent-bundle/dev.json'), 'utf8')).digest;
const pinsWhileHeld = readdirSync(epochsDir).sort();
const oldPin = pinsWhileHeld.find((name) => !name.startsWith(newDigest));
assert.equal(pinsWhileHeld.length, 2, `two epochs pinned while the first is held: ${pinsWhileHeld}`);
assert.ok(oldPin, `the first epoch's pin: ${pinsWhileHeld}`);
assert.notEqual(workerOf(path.join(epochsDir, oldPin)), workerOf(out), 'the old epoch keeps its worker');
const napped = await nap;
assert.equal(napped.isError ?? false, false, JSON.stringify(napped));
assert.deepEqual(napped.structuredContent, { slept: 4000 });
// Nothing holds the first epoch any more: its runtime ends and its pin goes.
await within(5000, () => !existsSync(path.join(epochsDir, oldPin)), 'the first epoch unpinned');
const pinsAfter = readdirSync(epochsDir);

/** The error a call to `quick` fails with, once the proxy has noticed (within 5 s). */
async function failure() {
  const started = performance.now();
  for (;;) {
    try {
      await client.callTool({ name: 'quick', arguments: { n: 1 } });
    } catch (error) {
      return String(error?.message ?? error);
    }
    if (performance.now() - started > 5000) throw new Error('the call kept succeeding');
    await sleep(50);
  }
}

// The epoch's artifact removed under it: fail closed.
rmSync(out, { recursive: true, force: true });
const epochGone = await failure();

// The development server stopped (it removes its lock): fail closed.
process.kill(Number(devPid), 'SIGTERM');
await within(10_000, () => !existsSync(path.join(project, '.agent-bundle/dev.json')), 'the lock removed');
let devGone = await failure();
for (let tries = 0; !devGone.includes('AB8025') && tries < 50; tries += 1) {
  await sleep(50);
  devGone = await failure();
}

await client.close();
process.stdout.write(
  `${JSON.stringify({ before, after, progress, events, pinsWhileHeld, pinsAfter, epochGone, devGone, proxyStderr })}\n`,
);
