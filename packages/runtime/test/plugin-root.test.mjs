// resolvePluginRoot on its own: the default state root's name and digest, and the precedence of
// the state-root variable and XDG_STATE_HOME.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const workDir = mkdtempSync(join(tmpdir(), 'abgen-plugin-root-test-'));
let resolvePluginRoot;

before(async () => {
  const outfile = join(workDir, 'plugin-root.mjs');
  await build({ entryPoints: [join(here, '../src/plugin-root.ts')], outfile, format: 'esm', bundle: true, platform: 'node', logLevel: 'warning' });
  ({ resolvePluginRoot } = await import(outfile));
});

after(() => rmSync(workDir, { recursive: true, force: true }));

test('the default state root is ~/.agent-bundle/state/<basename>-<digest16 of the real path>', () => {
  const root = mkdtempSync(join(workDir, 'my plugin '));
  const home = join(workDir, 'home');
  const axis = resolvePluginRoot({ digest: 'd', fallbackRoot: root, env: { HOME: home } });
  const digest16 = createHash('sha256').update(realpathSync(root)).digest('hex').slice(0, 16);
  const name = basename(realpathSync(root)).replace(/[^A-Za-z0-9._-]/g, '_');
  assert.deepEqual(axis, {
    state: 'available',
    value: { digest: 'd', root, stateRoot: join(home, '.agent-bundle', 'state', `${name}-${digest16}`) },
    source: 'derived',
  });
  assert.match(name, /^my_plugin_/);
});

test('AGENT_BUNDLE_STATE_ROOT wins over XDG_STATE_HOME, which wins over HOME', () => {
  const env = { HOME: '/home/u', XDG_STATE_HOME: '/xdg', AGENT_BUNDLE_STATE_ROOT: '/state' };
  assert.equal(resolvePluginRoot({ digest: 'd', fallbackRoot: '/p/notes', env }).value.stateRoot, '/state');
  delete env.AGENT_BUNDLE_STATE_ROOT;
  assert.match(resolvePluginRoot({ digest: 'd', fallbackRoot: '/p/notes', env }).value.stateRoot, /^\/xdg\/agent-bundle\/notes-[0-9a-f]{16}$/);
});

test('an unexpanded state root is reported and ignored', () => {
  const reports = [];
  const axis = resolvePluginRoot({
    digest: 'd',
    fallbackRoot: '/p/notes',
    env: { HOME: '/home/u', AGENT_BUNDLE_STATE_ROOT: '${CLAUDE_PLUGIN_DATA}' },
    report: (line) => reports.push(line),
  });
  assert.match(axis.value.stateRoot, /^\/home\/u\/\.agent-bundle\/state\/notes-/);
  assert.equal(reports.length, 1);
});

test("the state root's digest is SHA-256, as node:crypto computes it, for any text a path can hold", async () => {
  const { sha256Hex } = await import('../scripts/state-root.mjs');
  // Empty, one block, the lengths around the padding's edges (55, 56, 63, 64 bytes), several
  // blocks, multi-byte UTF-8 and a lone surrogate (written as U+FFFD by both).
  const texts = ['', 'abc', '/home/u/.claude/plugins/cache/notes', 'é/ü/😀/日本', '\ud800/x'];
  for (const length of [55, 56, 63, 64, 65, 119, 120, 1000]) texts.push('p'.repeat(length));
  for (let length = 0; length < 200; length++) {
    texts.push(Array.from({ length }, (_, i) => String.fromCodePoint(32 + ((length * 31 + i * 977) % 0x2ffff))).join(''));
  }
  for (const text of texts) {
    assert.equal(sha256Hex(text), createHash('sha256').update(text).digest('hex'), JSON.stringify(text));
  }
});
