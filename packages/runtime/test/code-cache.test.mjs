// The worker's code cache: written under the state directory (never beside the bundle), keyed by
// artifact digest and Node version, reused, replaced when V8 refuses it; and the ES module
// fallback for bundles CommonJS cannot express.
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

before(async () => {
  mkdirSync(join(artifact, 'runtime'), { recursive: true });
  writeFileSync(join(artifact, 'abgen.manifest.json'), JSON.stringify({ digest }));
  const entry = join(here, 'fixture/entry.tsx');
  await bundleFlightEntry({ contents: readFileSync(entry, 'utf8'), resolveDir: dirname(entry), outfile: workerPath });
});

after(() => rmSync(workDir, { recursive: true, force: true }));

/** Starts the worker with `env` (and none of the state variables of the test's own), waits for its hello, then closes fd 3 and waits for the exit. */
async function helloAndExit(env) {
  const inherited = { ...process.env };
  for (const name of ['ABGEN_STATE_DIR', 'CLAUDE_PLUGIN_DATA', 'PLUGIN_DATA']) delete inherited[name];
  const child = spawn(process.execPath, ['--conditions=react-server', workerPath], {
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

test('without a state directory nothing is written', async () => {
  await helloAndExit({});
  assert.deepEqual(readdirSync(join(artifact, 'runtime')), ['worker.mjs']);
});

test('an unwritable state directory only costs the cache', async () => {
  const state = join(workDir, 'state-is-a-file');
  writeFileSync(state, '');
  await helloAndExit({ ABGEN_STATE_DIR: state });
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
