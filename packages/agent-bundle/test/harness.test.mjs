// agent-bundle/test over seed 002's examples (test/fixtures/seed-002): every route renders through
// the real kernel, its events project through the Rust projectors, and the MCP level is the
// built server with the official SDK client — the seed's own task example included.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { specTypeSchemas } from '@modelcontextprotocol/client';
import { createHarness, locateBinary } from 'agent-bundle/test';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures/seed-002');
const harness = createHarness({ root, context: { host: 'claude' } });
after(() => harness.dispose());

describe('route-unit: renderRoute and renderRouteEvents', () => {
  it('renders the status tool of the seed, with the root layout around it', async () => {
    const document = await harness.renderRoute('tool:runtime/status', { input: { verbose: true } });
    assert.deepEqual(document, {
      version: 1,
      status: 'success',
      root: { kind: 'result', children: [{ kind: 'text', text: 'Runtime is ready.' }] },
      value: { status: 'ready' },
      metadata: { route: 'tool:runtime/status' },
    });
  });

  it("renders every one of the seed's tool routes", async () => {
    const routes = {
      'tool:curator/find': { id: 'dune' },
      'tool:curator/search': { query: 'le guin' },
      'tool:curator/settle': {},
      'tool:curator/topology': {},
      'tool:curator/wait': { holdMs: 1 },
      'tool:curator/whereabouts': {},
    };
    for (const [id, input] of Object.entries(routes)) {
      const document = await harness.renderRoute(id, { input });
      assert.equal(document.status, 'success', `${id}: ${JSON.stringify(document)}`);
      assert.equal(document.metadata.route, id);
    }
  });

  it("renders the seed's MarkdownContent table and its Agent.Error", async () => {
    const found = await harness.renderRoute('tool:curator/find', { input: { id: 'dune' } });
    assert.deepEqual(found.root.children, [
      { kind: 'markdown', text: '| File | Bytes |\n| --- | --: |\n| dune/01.mp3 | 1024 |\n| dune/cover \\| front.jpg | 77 |' },
    ]);
    const missing = await harness.renderRoute('tool:curator/find', { input: { id: 'nope' } });
    assert.equal(missing.status, 'represented-error');
    assert.deepEqual(missing.root.children, [{ kind: 'error', code: 'E_NOT_FOUND', message: 'No entry is named nope.' }]);
  });

  it('gives the exact event sequence: the Suspense fallback, then its replacement', async () => {
    const events = await harness.renderRouteEvents('tool:curator/search', { input: { query: 'dune' } });
    assert.deepEqual(events.map((event) => event.type), ['shell', 'replace', 'complete']);
    const [fallback] = events[0].document.root.children[0].children;
    assert.deepEqual(fallback, { kind: 'progress', completed: 0, message: 'Searching for dune' });
  });

  it('injects context axes through the render context, lineage tree included', async () => {
    const peer = { conversation: 'c2', depth: 1, startedAt: '2026-01-01T00:00:00Z', resolution: 'registry' };
    const lineage = { conversation: 'c1', root: 'c0', depth: 1, resolution: 'native', tree: { siblings: [peer], children: [peer], roots: [] } };
    const document = await harness.renderRoute('tool:curator/topology', { input: {}, context: { lineage } });
    assert.deepEqual(document.value, { peers: 2, plugin: true });
    const without = await harness.renderRoute('tool:curator/topology', { input: {} });
    assert.deepEqual(without.value, { peers: 0, plugin: true });
  });

  it("gives every render the harness's own plugin axis, and takes a call's override", async () => {
    const artifact = await harness.build();
    const { digest } = JSON.parse(readFileSync(path.join(artifact, 'abgen.manifest.json'), 'utf8'));
    const own = await harness.renderRoute('tool:curator/whereabouts');
    assert.equal(own.value.plugin.state, 'available');
    assert.equal(own.value.plugin.value.digest, digest);
    assert.equal(own.value.plugin.value.root, artifact);
    assert.ok(own.value.plugin.value.stateRoot.startsWith(path.dirname(artifact)), own.value.plugin.value.stateRoot);

    // Fields the test leaves out are the harness's own; the value as given is `native`.
    const moved = await harness.renderRoute('tool:curator/whereabouts', { context: { plugin: { stateRoot: '/srv/state' } } });
    assert.deepEqual(moved.value.plugin, {
      state: 'available',
      value: { digest, root: artifact, stateRoot: '/srv/state' },
      source: 'native',
    });
    assert.deepEqual(moved.root.children, [{ kind: 'text', text: 'State lives in /srv/state.' }]);
    const derived = await harness.renderRoute('tool:curator/whereabouts', {
      context: { plugin: { state: 'available', value: { root: '/opt/plugin' }, source: 'derived' } },
    });
    assert.deepEqual(derived.value.plugin.value.root, '/opt/plugin');
    assert.equal(derived.value.plugin.source, 'derived');
    const outside = await harness.renderRoute('tool:curator/whereabouts', { context: { plugin: { state: 'unavailable', reason: 'outside a generated scope' } } });
    assert.deepEqual(outside.value.plugin, { state: 'unavailable', code: 'not-provided', reason: 'outside a generated scope' });
  });

  it('resolves an injected provider value instead of the provider module', async () => {
    const lineage = {
      conversation: 'c1', root: 'c0', depth: 1, resolution: 'native',
      tree: { siblings: [{ conversation: 'from-lineage', depth: 1, startedAt: '2026-01-01T00:00:00Z', resolution: 'registry' }], children: [], roots: [] },
    };
    // Discovery: src/providers/agent-topology.ts reads the lineage tree.
    const discovered = await harness.renderRoute('tool:curator/whereabouts', { context: { lineage } });
    assert.deepEqual(discovered.value.peers, ['from-lineage']);
    const injected = await harness.renderRoute('tool:curator/whereabouts', {
      context: { lineage, providers: { agentTopology: { peers: [{ conversation: 'injected' }] } } },
    });
    assert.deepEqual(injected.value.peers, ['injected']);
    // The route's log record is one of its events, never part of the document.
    const events = await harness.renderRouteEvents('tool:curator/whereabouts', {
      context: { providers: { agentTopology: { peers: [{ conversation: 'a' }, { conversation: 'b' }] } } },
    });
    assert.deepEqual(
      events.filter((event) => event.type === 'log').map(({ level, message, data }) => ({ level, message, data })),
      [{ level: 'info', message: 'peers found', data: { count: 2 } }],
    );
  });

  it("merges a call's providers over the harness's, key by key", async (t) => {
    const seeded = createHarness({ root, context: { providers: { agentTopology: { peers: [{ conversation: 'harness' }] } } } });
    t.after(() => seeded.dispose());
    const base = await seeded.renderRoute('tool:curator/whereabouts');
    assert.deepEqual(base.value.peers, ['harness']);
    const call = await seeded.renderRoute('tool:curator/whereabouts', { context: { providers: { agentTopology: { peers: [] } } } });
    assert.deepEqual(call.value.peers, []);
  });

  it('refuses a provider value JSON cannot carry, and a context key that is no axis', async () => {
    await assert.rejects(
      harness.renderRoute('tool:curator/whereabouts', { context: { providers: { agentTopology: { peers: [], at: new Date(0) } } } }),
      { name: 'TypeError', message: /`context\.providers\.agentTopology\.at` is a Date; an injected provider value reaches the route as JSON/ },
    );
    await assert.rejects(
      harness.renderRoute('tool:curator/whereabouts', { context: { providers: { agentTopology: () => ({ peers: [] }) } } }),
      { name: 'TypeError', message: /`context\.providers\.agentTopology` is a function/ },
    );
    await assert.rejects(
      harness.renderRoute('tool:curator/whereabouts', { context: { hots: 'claude' } }),
      { name: 'TypeError', message: /`context\.hots` is no request-context axis; a test injects `host`/ },
    );
  });

  it('answers an unknown route with the routes there are', async () => {
    await assert.rejects(harness.renderRoute('tool:curator/nope'), /no route `tool:curator\/nope`.*tool:curator\/find/);
  });
});

describe('projection: projectTargetCapabilities runs the Rust projectors', () => {
  it('sends the fallback as progress to a client with a token, and nothing without one', async () => {
    const events = await harness.renderRouteEvents('tool:curator/search', { input: { query: 'dune' } });
    const withToken = await harness.projectTargetCapabilities(events, { surface: 'mcp', progressToken: 'p1' });
    assert.deepEqual(withToken.progress, [{ progressToken: 'p1', progress: 0, message: 'Searching for dune' }]);
    assert.deepEqual(withToken.result.structuredContent, { found: true });
    assert.deepEqual(withToken.result._meta, { route: 'tool:curator/search' });
    const without = await harness.projectTargetCapabilities(events, { surface: 'mcp' });
    assert.deepEqual(without.progress, []);
    const cli = await harness.projectTargetCapabilities(events, { surface: 'cli', format: 'markdown' });
    assert.deepEqual(cli, { stdout: 'Results for dune\n', exitCode: 0 });
  });
});

describe('mcp-in-memory: openInMemoryMcpServer', () => {
  // The seed's task example (fixtures/seed-002/snippets/tasks.test.ts, type-checked there), run:
  // a task-augmented tools/call answered with a task at once, then tasks/result.
  it("runs the seed's task example over the real protocol", async (t) => {
    // Node 20 has no `await using`: the session is disposed through the same Symbol.asyncDispose.
    const session = await harness.openInMemoryMcpServer({ server: 'curator' });
    t.after(() => session[Symbol.asyncDispose]());
    const asked = performance.now();
    const created = await session.client.request({
      method: 'tools/call',
      params: { arguments: { holdMs: 400 }, name: 'wait', task: { ttl: 60_000 } },
    }, specTypeSchemas.CreateTaskResult);
    assert.ok(performance.now() - asked < 400, 'the task is created before the tool settles');
    assert.equal(created.task.status, 'working');
    const result = await session.client.request({
      method: 'tasks/result',
      params: { taskId: created.task.taskId },
    }, specTypeSchemas.CallToolResult);
    assert.deepEqual(result.structuredContent, { found: true });
    assert.deepEqual(result.content, [{ type: 'text', text: 'Held for 400 ms.' }]);
    // A client without tasks calls the same tool the ordinary way.
    const ordinary = await session.client.request({
      method: 'tools/call',
      params: { arguments: { holdMs: 1 }, name: 'wait' },
    }, specTypeSchemas.CallToolResult);
    assert.deepEqual(ordinary.structuredContent, { found: true });
  });

  it('lists the tools of a server and calls one with invokeMcpTool', async (t) => {
    const session = await harness.openInMemoryMcpServer({ server: 'runtime' });
    t.after(() => session.close());
    const { tools } = await session.client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name), ['status']);
    assert.deepEqual(tools[0].outputSchema.required, ['status']);
    const result = await harness.invokeMcpTool('status', { verbose: false }, { server: 'runtime' });
    assert.deepEqual(result.structuredContent, { status: 'ready' });
    assert.deepEqual(result._meta, { route: 'tool:runtime/status' });
  });
});

describe('the harness itself', () => {
  it('finds the binaries through ABGEN_BIN and ABGEN_HOST, then PATH, and says how when it cannot', () => {
    const saved = { ...process.env };
    try {
      const host = locateBinary('abgen-host');
      process.env.ABGEN_HOST = path.join(root, 'no-such-binary');
      assert.throws(() => locateBinary('abgen-host'), /ABGEN_HOST names .*no-such-binary, which is not an executable file/);
      delete process.env.ABGEN_HOST;
      process.env.PATH = path.dirname(host);
      assert.equal(locateBinary('abgen-host'), path.join(path.dirname(host), 'abgen-host'));
      process.env.PATH = '';
      assert.throws(() => locateBinary('abgen-host'), /set ABGEN_HOST to its path or put it on PATH/);
    } finally {
      process.env = saved;
    }
  });

  it('renders in at most 200 ms (median) once it is warm', async (t) => {
    // A harness of its own, so that its first render includes the build and Node's start.
    const fresh = createHarness({ root });
    t.after(() => fresh.dispose());
    const first = performance.now();
    await fresh.renderRoute('tool:runtime/status', { input: {} });
    t.diagnostic(`renderRoute, first (abgen build, abgen-host and Node started): ${(performance.now() - first).toFixed(0)} ms`);
    const timings = [];
    for (let i = 0; i < 20; i += 1) {
      const start = performance.now();
      await fresh.renderRoute('tool:runtime/status', { input: {} });
      timings.push(performance.now() - start);
    }
    const sorted = timings.sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)];
    t.diagnostic(`renderRoute median after the first: ${median.toFixed(1)} ms`);
    assert.ok(median <= 200, `median ${median} ms`);
  });
});
