// The worker framing: the codec on its own, then a real worker spoken to over fds 3 and 4.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { bundleFlightEntry } from '../scripts/bundle.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const workDir = mkdtempSync(join(tmpdir(), 'abgen-runtime-test-'));
let framing;
let workerPath;

before(async () => {
  const framingPath = join(workDir, 'framing.mjs');
  await build({ entryPoints: [join(here, '../src/framing.ts')], outfile: framingPath, format: 'esm', bundle: true, logLevel: 'warning' });
  framing = await import(framingPath);
  workerPath = join(workDir, 'worker.mjs');
  const entry = join(here, 'fixture/entry.tsx');
  await bundleFlightEntry({ contents: readFileSync(entry, 'utf8'), resolveDir: dirname(entry), outfile: workerPath });
});

after(() => rmSync(workDir, { recursive: true, force: true }));

test('frames round-trip when split at every byte', () => {
  const payload = new TextEncoder().encode('0:["$","agent-text",null,{"children":"✓"}]\n');
  const bytes = new Uint8Array([
    ...framing.encodeFrame({ type: 'flight', id: 7 }, payload),
    ...framing.encodeFrame({ type: 'end', id: 7 }),
  ]);
  for (let offset = 0; offset <= bytes.length; offset += 1) {
    const reader = new framing.FrameReader();
    const frames = [...reader.push(bytes.subarray(0, offset)), ...reader.push(bytes.subarray(offset))];
    assert.equal(frames.length, 2, `split at ${offset}`);
    assert.deepEqual(frames[0].header, { type: 'flight', id: 7 });
    assert.deepEqual([...frames[0].payload], [...payload]);
    assert.deepEqual(frames[1].header, { type: 'end', id: 7 });
    assert.equal(frames[1].payload.length, 0);
    assert.equal(reader.pending, 0);
  }
});

test('the frame layout is u32le total, u32le header length, header, payload', () => {
  const frame = framing.encodeFrame({ type: 'end', id: 1 }, new Uint8Array([9]));
  const view = new DataView(frame.buffer);
  const header = JSON.stringify({ type: 'end', id: 1 });
  assert.equal(view.getUint32(0, true), 4 + header.length + 1);
  assert.equal(view.getUint32(4, true), header.length);
  assert.equal(frame.at(-1), 9);
});

test('malformed frames are refused', () => {
  const huge = new Uint8Array(8);
  new DataView(huge.buffer).setUint32(0, 0xffffffff, true);
  assert.throws(() => new framing.FrameReader().push(huge), /outside/);
  const badHeader = new Uint8Array(12);
  new DataView(badHeader.buffer).setUint32(0, 8, true);
  new DataView(badHeader.buffer).setUint32(4, 50, true);
  assert.throws(() => new framing.FrameReader().push(badHeader), /exceeds/);
});

test('a worker says hello, renders over fd 4, and keeps console output off the protocol', async () => {
  const child = spawn(process.execPath, ['--conditions=react-server', workerPath], {
    stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'],
    env: { ...process.env, NODE_ENV: 'production' },
  });
  let stdout = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  const reader = new framing.FrameReader();
  const frames = [];
  const ended = new Promise((resolve) => {
    child.stdio[4].on('data', (chunk) => {
      for (const frame of reader.push(new Uint8Array(chunk))) {
        frames.push(frame);
        if (frame.header.type === 'end' || frame.header.type === 'error') resolve();
      }
    });
  });
  child.stdio[3].write(framing.encodeFrame({ type: 'render', id: 1, route: 'tool:t/echo', kind: 'tool', input: { text: 'hi' } }));
  await ended;
  child.stdio[3].end();
  await new Promise((resolve) => child.on('exit', resolve));

  assert.deepEqual(frames[0].header, { type: 'hello', protocol: 7, react: '19.3.1', artifact: 'node-test' });
  const types = frames.map((frame) => frame.header.type);
  assert.deepEqual(types.slice(1, 2), ['progress']);
  assert.equal(types.at(-1), 'end');
  const flight = frames
    .filter((frame) => frame.header.type === 'flight')
    .map((frame) => new TextDecoder().decode(frame.payload))
    .join('');
  assert.match(flight, /"agent-text",null,\{"children":"hi"\}/);
  assert.match(stdout, /noise on stdout/);
});

test('a progress report after the render completed is refused with handoff-required', async () => {
  const child = spawn(process.execPath, ['--conditions=react-server', workerPath], {
    stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'],
    env: { ...process.env, NODE_ENV: 'production' },
  });
  const reader = new framing.FrameReader();
  const frames = [];
  const waiters = new Map();
  child.stdio[4].on('data', (chunk) => {
    for (const frame of reader.push(new Uint8Array(chunk))) {
      frames.push(frame);
      if (frame.header.type === 'end' || frame.header.type === 'error') waiters.get(frame.header.id)?.();
    }
  });
  const render = (id, route) =>
    new Promise((resolve) => {
      waiters.set(id, resolve);
      child.stdio[3].write(framing.encodeFrame({ type: 'render', id, route, kind: 'tool', input: {} }));
    });
  await render(1, 'tool:t/late');
  await new Promise((resolve) => setTimeout(resolve, 150));
  await render(2, 'tool:t/late-outcome');
  child.stdio[3].end();
  await new Promise((resolve) => child.on('exit', resolve));

  const flightOf = (id) =>
    frames
      .filter((frame) => frame.header.type === 'flight' && frame.header.id === id)
      .map((frame) => new TextDecoder().decode(frame.payload))
      .join('');
  assert.match(flightOf(2), /"children":"handoff-required"/);
  assert.equal(
    frames.filter((frame) => frame.header.type === 'progress' && frame.header.id === 1).length,
    0,
    'nothing reported after the render reached the host',
  );
});

/** Renders `route` once in a fresh worker with `env`; resolves the text it rendered. */
async function renderText(route, env, extra = {}) {
  const child = spawn(process.execPath, ['--conditions=react-server', workerPath], {
    stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'],
    env: { ...process.env, NODE_ENV: 'production', ...env },
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const reader = new framing.FrameReader();
  const frames = [];
  const ended = new Promise((resolve) => {
    child.stdio[4].on('data', (chunk) => {
      for (const frame of reader.push(new Uint8Array(chunk))) {
        frames.push(frame);
        if (frame.header.type === 'end' || frame.header.type === 'error') resolve();
      }
    });
  });
  child.stdio[3].write(framing.encodeFrame({ type: 'render', id: 1, route, kind: 'tool', input: {}, ...extra }));
  await ended;
  child.stdio[3].end();
  await new Promise((resolve) => child.on('exit', resolve));
  const flight = frames
    .filter((frame) => frame.header.type === 'flight')
    .map((frame) => new TextDecoder().decode(frame.payload))
    .join('');
  const text = /"agent-text",null,\{"children":("(?:[^"\\]|\\.)*")\}/.exec(flight);
  assert.ok(text, flight);
  return { value: JSON.parse(JSON.parse(text[1])), stderr };
}

test('the plugin axis carries the code and state roots; lineage is unavailable until a registry exists', async () => {
  const root = mkdtempSync(join(tmpdir(), 'abgen-plugin-root-'));
  const state = join(root, 'state');
  try {
    const native = await renderText('tool:t/axes', { AGENT_BUNDLE_PLUGIN_ROOT: root, AGENT_BUNDLE_STATE_ROOT: state });
    assert.deepEqual(native.value.plugin, {
      state: 'available',
      value: { digest: 'node-test', root, stateRoot: state },
      source: 'native',
    });
    assert.deepEqual(native.value.lineage, {
      state: 'unavailable',
      code: 'not-provided',
      reason: 'no lineage registry exists yet',
    });
    // An unexpanded token is treated as unset (reported once) and never joined into a path.
    const literal = await renderText('tool:t/axes', {
      AGENT_BUNDLE_PLUGIN_ROOT: '${CLAUDE_PLUGIN_ROOT}',
      AGENT_BUNDLE_STATE_ROOT: '',
      XDG_STATE_HOME: join(root, 'xdg'),
    });
    assert.equal(literal.value.plugin.source, 'derived');
    assert.equal(literal.value.plugin.value.root, process.cwd());
    assert.match(literal.value.plugin.value.stateRoot, new RegExp(`^${join(root, 'xdg', 'agent-bundle')}/[A-Za-z0-9._-]+-[0-9a-f]{16}$`));
    assert.equal(literal.stderr.match(/did not expand/g)?.length, 1, literal.stderr);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a command line render reads its terminal axis and invocation kind cli as the host sent them', async () => {
  const terminal = {
    state: 'available',
    source: 'derived',
    value: {
      hostSurface: 'cli',
      stdout: { kind: 'tty', color: '256', columns: 80, rows: 24 },
      stderr: { kind: 'pipe', color: 'none' },
      sharesTarget: false,
    },
  };
  const cli = await renderText('tool:t/axes', {}, { invocation: 'cli', context: { terminal } });
  assert.deepEqual(cli.value.terminal, terminal);
  assert.deepEqual(cli.value.invocation, { kind: 'cli' });
  // Without them: the route's own kind, and an honest unavailable terminal.
  const call = await renderText('tool:t/axes', {});
  assert.deepEqual(call.value.invocation, { kind: 'tool' });
  assert.deepEqual(call.value.terminal, {
    state: 'unavailable',
    code: 'not-provided',
    reason: 'the tool call carries no terminal',
  });
});

test('a schemas request is answered with zod\'s own JSON Schemas, printed once per route for the worker\'s life', async () => {
  const child = spawn(process.execPath, ['--conditions=react-server', workerPath], {
    stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'],
    env: { ...process.env, NODE_ENV: 'production' },
  });
  const reader = new framing.FrameReader();
  const answers = new Map();
  const flights = new Map();
  const waiters = new Map();
  child.stdio[4].on('data', (chunk) => {
    for (const frame of reader.push(new Uint8Array(chunk))) {
      if (frame.header.type === 'hello') continue;
      if (frame.header.type === 'flight') {
        flights.set(frame.header.id, (flights.get(frame.header.id) ?? '') + new TextDecoder().decode(frame.payload));
      }
      answers.set(frame.header.id, frame);
      if (['end', 'error', 'schemas'].includes(frame.header.type)) waiters.get(frame.header.id)?.();
    }
  });
  const ask = (id, message) =>
    new Promise((resolve) => {
      waiters.set(id, () => resolve(answers.get(id).header));
      child.stdio[3].write(framing.encodeFrame({ id, ...message }));
    });
  try {
    const first = await ask(1, { type: 'schemas', route: 'tool:t/schemas', kind: 'tool' });
    const second = await ask(2, { type: 'schemas', route: 'tool:t/schemas', kind: 'tool' });
    const zod = await import('zod');
    const expected = {
      input: zod.toJSONSchema(zod.object({ span: zod.tuple([zod.int(), zod.int()]) }), { io: 'input' }),
      result: zod.toJSONSchema(zod.object({ printed: zod.int() }), { io: 'output' }),
    };
    assert.deepEqual(first, { type: 'schemas', id: 1, ...expected });
    assert.deepEqual(second, { type: 'schemas', id: 2, ...expected });
    const render = await ask(3, { type: 'render', route: 'tool:t/schemas', kind: 'tool', input: { span: [1, 2] } });
    assert.equal(render.type, 'end');
    // Two requests, one printing: the route renders zod's count.
    assert.match(flights.get(3), /"agent-text",null,\{"children":"1"\}/);

    const none = await ask(4, { type: 'schemas', route: 'tool:t/echo', kind: 'tool' });
    assert.deepEqual(none, { type: 'schemas', id: 4, input: null, result: null });
    const unprintable = await ask(5, { type: 'schemas', route: 'tool:t/unprintable', kind: 'tool' });
    assert.equal(unprintable.type, 'error');
    assert.equal(unprintable.error.code, 'schema-unrepresentable');
    assert.match(unprintable.error.message, /input schema of `tool:t\/unprintable` has no JSON Schema form/);
    const unknown = await ask(6, { type: 'schemas', route: 'tool:t/nothing', kind: 'tool' });
    assert.deepEqual(unknown.error.code, 'unknown-route');
  } finally {
    child.stdio[3].end();
    await new Promise((resolve) => child.on('exit', resolve));
  }
});
