// The worker's code cache: written under the state directory a host names, else under the
// plugin's state root (never inside the artifact), keyed by artifact digest and Node version,
// reused, replaced when V8 refuses it; and the ES module fallback for bundles CommonJS cannot
// express.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { bundleFlightEntry } from '../scripts/bundle.mjs';
import { buildWorker, REQUIRE_BANNER } from '../scripts/code-cache.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const workDir = mkdtempSync(join(tmpdir(), 'abgen-code-cache-test-'));
const artifact = join(workDir, 'artifact');
const digest = 'c0de'.repeat(16);
const workerPath = join(artifact, 'runtime/worker.mjs');
const cacheFile = (state) => join(state, 'abgen/code-cache', `${digest}-node${process.versions.node}-${process.arch}.bin`);
/** The plugin axis's own resolution, which the loader's choice of state root must equal. */
let resolvePluginRoot;

before(async () => {
  mkdirSync(join(artifact, 'runtime'), { recursive: true });
  writeFileSync(join(artifact, 'abgen.manifest.json'), JSON.stringify({ digest }));
  const entry = join(here, 'fixture/entry.tsx');
  await bundleFlightEntry({ contents: readFileSync(entry, 'utf8'), resolveDir: dirname(entry), outfile: workerPath });
  const pluginRoot = join(workDir, 'plugin-root.mjs');
  await esbuild.build({ entryPoints: [join(here, '../src/plugin-root.ts')], outfile: pluginRoot, format: 'esm', bundle: true, platform: 'node', logLevel: 'warning' });
  ({ resolvePluginRoot } = await import(pluginRoot));
});

after(() => rmSync(workDir, { recursive: true, force: true }));

/** Every variable that decides where the cache goes. */
const STATE_VARIABLES = [
  'ABGEN_STATE_DIR',
  'CLAUDE_PLUGIN_DATA',
  'PLUGIN_DATA',
  'AGENT_BUNDLE_STATE_ROOT',
  'AGENT_BUNDLE_PLUGIN_ROOT',
  'XDG_STATE_HOME',
  'HOME',
];

/**
 * Starts the worker (`worker`, else the test's) with `env` (none of the test's own state variables; HOME a directory of
 * the test's unless `env` names one), waits for its hello, then closes fd 3 and waits for the exit.
 */
async function helloAndExit(env, worker = workerPath) {
  const inherited = { ...process.env };
  for (const name of STATE_VARIABLES) delete inherited[name];
  inherited.HOME = join(workDir, 'home');
  const child = spawn(process.execPath, ['--conditions=react-server', worker], {
    stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'],
    env: { ...inherited, NODE_ENV: 'production', ...env },
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  await new Promise((resolve, reject) => {
    child.stdio[4].once('data', resolve);
    child.once('exit', () => reject(new Error(`the worker exited before its hello: ${stderr}`)));
  });
  // Let the cache write that follows start-up run before fd 3 closes.
  await new Promise((resolve) => setTimeout(resolve, 200));
  child.stdio[3].end();
  assert.equal(await exited, 0, stderr);
  assert.equal(stderr, '');
}

test('the compiled code is cached under the state directory, keyed by digest and Node version, and reused', async () => {
  const state = join(workDir, 'state-reused');
  await helloAndExit({ ABGEN_STATE_DIR: state });
  const written = statSync(cacheFile(state));
  assert.ok(written.size > 10_000, `a real cache (${written.size} bytes)`);
  assert.deepEqual(readdirSync(join(artifact, 'runtime')), ['worker.mjs'], 'nothing beside the bundle');
  assert.deepEqual(readdirSync(artifact).sort(), ['abgen.manifest.json', 'runtime']);
  await helloAndExit({ ABGEN_STATE_DIR: state });
  // An accepted cache is not written again (a rewrite replaces the file, and its inode).
  assert.equal(statSync(cacheFile(state)).ino, written.ino);
});

test('the loader reads the digest from the head of a canonical manifest, however long its routes', async () => {
  const manifestPath = join(artifact, 'abgen.manifest.json');
  const original = readFileSync(manifestPath);
  // Past its digest this manifest is no JSON: a loader that read it whole would find no digest
  // and keep no cache.
  writeFileSync(manifestPath, `{\n  "application": {},\n  "digest": "${digest}",\n  "routes": [` + '{'.repeat(1 << 20));
  try {
    const state = join(workDir, 'state-canonical');
    await helloAndExit({ ABGEN_STATE_DIR: state });
    assert.ok(statSync(cacheFile(state)).size > 10_000);
  } finally {
    writeFileSync(manifestPath, original);
  }
});

test('the cache is written again after the first render, so a worker ended by SIGKILL keeps the render path', async () => {
  const framing = join(workDir, 'framing.mjs');
  await esbuild.build({ entryPoints: [join(here, '../src/framing.ts')], outfile: framing, format: 'esm', bundle: true, logLevel: 'warning' });
  const { FrameReader, encodeFrame } = await import(framing);
  const state = join(workDir, 'state-rendered');
  const inherited = { ...process.env };
  for (const name of STATE_VARIABLES) delete inherited[name];
  const child = spawn(process.execPath, ['--conditions=react-server', workerPath], {
    stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'],
    env: { ...inherited, NODE_ENV: 'production', HOME: join(workDir, 'home'), ABGEN_STATE_DIR: state },
  });
  const reader = new FrameReader();
  let hello;
  let ended;
  const helloSeen = new Promise((resolve) => (hello = resolve));
  const endSeen = new Promise((resolve) => (ended = resolve));
  child.stdio[4].on('data', (chunk) => {
    for (const frame of reader.push(new Uint8Array(chunk))) {
      if (frame.header.type === 'hello') hello();
      if (frame.header.type === 'end' || frame.header.type === 'error') ended(frame.header.type);
    }
  });
  await helloSeen;
  await new Promise((resolve) => setTimeout(resolve, 300));
  const started = statSync(cacheFile(state));
  child.stdio[3].write(encodeFrame({ type: 'render', id: 1, route: 'tool:t/echo', kind: 'tool', input: { text: 'x' } }));
  assert.equal(await endSeen, 'end');
  await new Promise((resolve) => setTimeout(resolve, 300));
  child.kill('SIGKILL');
  await new Promise((resolve) => child.on('exit', resolve));
  const rendered = statSync(cacheFile(state));
  assert.notEqual(rendered.ino, started.ino, 'written again after the render');
  assert.ok(rendered.size > started.size, `the render path is in it (${started.size} → ${rendered.size} bytes)`);
  assert.ok(statSync(`${cacheFile(state)}.rendered`).isFile(), 'marked as holding the render path');
  await helloAndExit({ ABGEN_STATE_DIR: state });
  assert.equal(statSync(cacheFile(state)).ino, rendered.ino, 'and the next start takes it');
});

test("the host's plugin data directory is a state directory too", async () => {
  const state = join(workDir, 'plugin-data');
  await helloAndExit({ CLAUDE_PLUGIN_DATA: state });
  assert.ok(statSync(cacheFile(state)).size > 10_000);
});

test('a cache V8 refuses is replaced, and the worker starts all the same', async () => {
  const state = join(workDir, 'state-corrupt');
  mkdirSync(dirname(cacheFile(state)), { recursive: true });
  writeFileSync(cacheFile(state), 'not a code cache');
  await helloAndExit({ ABGEN_STATE_DIR: state });
  assert.notEqual(readFileSync(cacheFile(state), 'utf8'), 'not a code cache');
});

/** The plugin's state root the worker's plugin axis resolves under `env`. */
function stateRoot(env) {
  const axis = resolvePluginRoot({ digest, fallbackRoot: artifact, env, report: () => {} });
  return axis.value.stateRoot;
}

test("without a state directory the cache goes under the plugin's state root, and a second cold start uses it", async () => {
  const env = { XDG_STATE_HOME: join(workDir, 'xdg-state') };
  const root = stateRoot(env);
  assert.ok(root.startsWith(join(workDir, 'xdg-state', 'agent-bundle', 'artifact-')), root);
  await helloAndExit(env);
  const written = statSync(cacheFile(root));
  assert.ok(written.size > 10_000, `a real cache (${written.size} bytes)`);
  assert.deepEqual(readdirSync(join(artifact, 'runtime')), ['worker.mjs'], 'nothing beside the bundle');
  await helloAndExit(env);
  // The second process read the cache and V8 took it: an accepted cache is not written again.
  assert.equal(statSync(cacheFile(root)).ino, written.ino);
});

test('the state root follows HOME, AGENT_BUNDLE_STATE_ROOT and AGENT_BUNDLE_PLUGIN_ROOT as the plugin axis does', async () => {
  const home = join(workDir, 'other-home');
  const codeRoot = join(workDir, 'code-root');
  mkdirSync(codeRoot, { recursive: true });
  const cases = [
    { HOME: home },
    { HOME: home, AGENT_BUNDLE_PLUGIN_ROOT: codeRoot },
    { HOME: home, AGENT_BUNDLE_PLUGIN_ROOT: '${CLAUDE_PLUGIN_ROOT}' },
    { AGENT_BUNDLE_STATE_ROOT: join(workDir, 'explicit-state') },
  ];
  for (const env of cases) {
    const root = stateRoot(env);
    await helloAndExit(env).catch((error) => {
      // The worker reports an unexpanded anchor once on stderr, which helloAndExit refuses.
      if (!/did not expand/.test(String(error))) throw error;
    });
    assert.ok(statSync(cacheFile(root)).size > 10_000, `${JSON.stringify(env)}: ${root}`);
  }
  assert.ok(stateRoot(cases[0]).startsWith(join(home, '.agent-bundle', 'state', 'artifact-')));
});

test('a cold start derives the state root without loading crypto, and loads no undici', async () => {
  // Node lists every built-in module a process loaded; a preload writes the list as it exits.
  const listFile = join(workDir, 'loaded-modules.json');
  const preload = join(workDir, 'list-modules.cjs');
  writeFileSync(
    preload,
    `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(listFile)}, JSON.stringify(process.moduleLoadList)));`,
  );
  await helloAndExit({ HOME: join(workDir, 'home-modules'), NODE_OPTIONS: `--require ${JSON.stringify(preload)}` });
  const loaded = JSON.parse(readFileSync(listFile, 'utf8'));
  assert.ok(loaded.includes('NativeModule vm'), 'the list is the worker\'s');
  assert.deepEqual(loaded.filter((name) => /crypto|undici/.test(name)), []);
});

test('a state directory inside the artifact is never used', async () => {
  await helloAndExit({ ABGEN_STATE_DIR: join(artifact, 'state') });
  await helloAndExit({ AGENT_BUNDLE_STATE_ROOT: artifact });
  assert.deepEqual(readdirSync(artifact).sort(), ['abgen.manifest.json', 'runtime']);
  assert.deepEqual(readdirSync(join(artifact, 'runtime')), ['worker.mjs']);
});

test('an unwritable state directory only costs the cache', async () => {
  const state = join(workDir, 'state-is-a-file');
  writeFileSync(state, '');
  await helloAndExit({ ABGEN_STATE_DIR: state });
});

test('a worker whose bundle `abgen build` moved beside it starts from there and keeps its cache', async () => {
  // The split of codegen/src/emit/worker_files.rs, whose own tests hold the Rust side.
  const split = join(workDir, 'split-artifact');
  mkdirSync(join(split, 'runtime'), { recursive: true });
  writeFileSync(join(split, 'abgen.manifest.json'), JSON.stringify({ digest }));
  const whole = readFileSync(workerPath, 'utf8');
  const tail = '\nrun(ownBundle());\n/*abgen-commonjs-bundle\n';
  const at = whole.indexOf(tail);
  assert.ok(at > 0 && whole.endsWith('\n*/\n'), 'the bundle rides in a trailing comment');
  assert.ok(whole.slice(0, at).includes('function siblingBundle('));
  const loader = `${whole.slice(0, at)}\nrun(...siblingBundle());\n`;
  writeFileSync(join(split, 'runtime/worker.mjs'), loader);
  writeFileSync(join(split, 'runtime/worker.bundle.cjs'), whole.slice(at + tail.length, -'\n*/\n'.length));
  assert.ok(loader.length < 20_000, `the loader alone (${loader.length} bytes)`);

  const state = join(workDir, 'state-split');
  const splitWorker = join(split, 'runtime/worker.mjs');
  await helloAndExit({ ABGEN_STATE_DIR: state }, splitWorker);
  const written = statSync(cacheFile(state));
  assert.ok(written.size > 10_000, `a real cache (${written.size} bytes)`);
  await helloAndExit({ ABGEN_STATE_DIR: state }, splitWorker);
  assert.equal(statSync(cacheFile(state)).ino, written.ino, 'V8 took the cache');
  // Without its bundle the loader fails loudly, not with an empty worker.
  rmSync(join(split, 'runtime/worker.bundle.cjs'));
  await assert.rejects(helloAndExit({ ABGEN_STATE_DIR: state }, splitWorker), /worker\.bundle\.cjs/);
});

test('a bundle CommonJS cannot express stays an ES module', async () => {
  const options = (contents) => ({ stdin: { contents, loader: 'js' }, bundle: true, platform: 'node', logLevel: 'silent' });
  const wrapped = await buildWorker(esbuild, options('console.log(import.meta.url);'));
  assert.ok(wrapped.text.startsWith('// The render worker'), wrapped.text.slice(0, 80));
  const topLevelAwait = await buildWorker(esbuild, options('await Promise.resolve(); console.log(1);'));
  assert.ok(topLevelAwait.text.startsWith(REQUIRE_BANNER), topLevelAwait.text.slice(0, 80));
  const otherMeta = await buildWorker(esbuild, options('console.log(import.meta.dirname);'));
  assert.ok(otherMeta.text.startsWith(REQUIRE_BANNER), otherMeta.text.slice(0, 80));
});
