// docs/authoring.md cannot rot: every code block that names a file (```lang file=path) is written
// into a fresh project, which must type-check with tsc --strict (its routes typed by the
// generated .agent-bundle/routes.d.ts) and whose own tests, on agent-bundle/test, must pass
// (the App's module is type-checked only, as the doc says).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { locateBinary } from 'agent-bundle/test';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const doc = readFileSync(path.join(repo, 'docs/authoring.md'), 'utf8');

/** The doc's file blocks: `{ path, text }`, in order. */
function fileBlocks(markdown) {
  const blocks = [];
  for (const match of markdown.matchAll(/^```[\w-]* file=(\S+)\n([\s\S]*?)^```$/gm)) {
    blocks.push({ path: match[1], text: match[2] });
  }
  return blocks;
}

const project = mkdtempSync(path.join(tmpdir(), 'abgen-authoring-'));
after(() => rmSync(project, { recursive: true, force: true }));

test('the doc names the files of one whole project, each once', () => {
  const paths = fileBlocks(doc).map((block) => block.path);
  assert.deepEqual(paths, [
    'agent-bundle.config.ts',
    'tsconfig.json',
    'src/lib/notes.ts',
    'src/mcp/notes/tools/add_note.tsx',
    'src/events/session/start.tsx',
    'src/mcp/notes/apps/notes_panel.ts',
    'test/notes.test.mjs',
  ]);
});

test('its project type-checks and its tests pass', () => {
  for (const block of fileBlocks(doc)) {
    const file = path.join(project, block.path);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, block.text);
  }
  writeFileSync(path.join(project, 'package.json'), `${JSON.stringify({ name: 'notes', version: '0.1.0', type: 'module' })}\n`);
  // The workspace's packages, as an installed project would have them.
  symlinkSync(path.join(repo, 'node_modules'), path.join(project, 'node_modules'), 'dir');

  const generate = spawnSync(locateBinary('abgen'), ['generate', '--root', project], { encoding: 'utf8' });
  assert.equal(generate.status, 0, `${generate.stdout}${generate.stderr}`);
  const tsc = spawnSync(process.execPath, [path.join(repo, 'node_modules/typescript/bin/tsc'), '-p', project, '--pretty', 'false'], {
    encoding: 'utf8',
  });
  assert.equal(tsc.status, 0, `${tsc.stdout}${tsc.stderr}`);

  // The App is type-checked only: Apps are not compiled into the artifact yet, and
  // `agent-bundle/app` has types but no browser code to bundle.
  rmSync(path.join(project, 'src/mcp/notes/apps'), { recursive: true });

  // Run as a test run of its own, not as a child of this one (which reports in another format).
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  const tests = spawnSync(process.execPath, ['--test', path.join(project, 'test/notes.test.mjs')], {
    encoding: 'utf8',
    cwd: project,
    env,
    timeout: 120_000,
  });
  assert.equal(tests.status, 0, `${tests.stdout}${tests.stderr}`);
  assert.match(tests.stdout, /# pass 5\n/);
  assert.match(tests.stdout, /# fail 0\n/);
});
