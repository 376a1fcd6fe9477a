// agent-bundle/rsbuild with real Rsbuild and the real abgen: routes.d.ts before the first
// compile, the artifact after the build, abgen's diagnostics as compile errors (a failed abgen
// build fails `rsbuild build`), rebuilds in dev with readable App documents, and no abgen child
// left once Rsbuild closes.
// Each test builds a copy of the valid-minimal fixture in a temporary directory.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRsbuild } from '@rsbuild/core';
import { PLUGIN_AGENT_BUNDLE_NAME, pluginAgentBundle } from 'agent-bundle/rsbuild';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const fixture = path.join(repo, 'fixtures/projects/valid-minimal');
const ROUTE = 'src/mcp/hello/tools/greet.ts';
/** A route abgen refuses: AB4810 at 2:16 (the definition call). */
const BROKEN_ROUTE = "import { defineTool } from 'agent-bundle/routes';\nexport default defineTool({ description: 'Greet.' }, async () => 1);\n";

// The copies have no node_modules of their own: abgen finds React and agent-bundle in the
// workspace's, as it does for every test project of this repository.
process.env.ABGEN_NODE_MODULES ??= path.join(repo, 'node_modules');

const scratch = mkdtempSync(path.join(tmpdir(), 'agent-bundle-rsbuild-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** A fresh copy of a fixture project with a one-line web entry outside `src/` for Rsbuild. */
function project(name, from = fixture) {
  const root = path.join(scratch, name);
  mkdirSync(root);
  cpSync(path.join(from, 'agent-bundle.config.ts'), path.join(root, 'agent-bundle.config.ts'));
  cpSync(path.join(from, 'src'), path.join(root, 'src'), { recursive: true });
  mkdirSync(path.join(root, 'web'));
  writeFileSync(path.join(root, 'web/index.js'), "document.title = 'web';\n");
  return root;
}

function rsbuildConfig(plugins, extra = {}) {
  return { source: { entry: { index: './web/index.js' } }, logLevel: 'warn', plugins, ...extra };
}

function manifestText(root) {
  const file = path.join(root, 'artifact/abgen.manifest.json');
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
}

function editRoute(root, from, to) {
  const file = path.join(root, ROUTE);
  const source = readFileSync(file, 'utf8');
  assert.ok(source.includes(from), `${ROUTE} has no ${from}`);
  writeFileSync(file, source.replace(from, to));
}

/** Polls `check` every 25 ms until it returns a truthy value; fails after `ms`. */
async function waitFor(what, check, ms = 30_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) assert.fail(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The pids of the processes other than this one whose working directory is in `root`. */
function processesIn(root) {
  const found = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    try {
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      if (cwd === root || cwd.startsWith(`${root}/`)) found.push(pid);
    } catch {
      // Gone, or not ours to read.
    }
  }
  return found;
}

/** Holds an exclusive `flock` on `file` (abgen's build lock) until `release`. */
async function holdLock(file) {
  // A build that ends removes the lock file it held: a holder that started waiting on that file
  // would then hold a lock on a file no longer there, which no later build sees. So the lock is
  // taken once no abgen child runs in the project (a build can outlive the artifact it wrote,
  // removing the one it replaced).
  await waitFor('no abgen child running', () => processesIn(path.dirname(file)).length === 0);
  // Its own process group: flock and the command it holds the lock for end together.
  const holder = spawn('flock', [file, 'sleep', '120'], { stdio: 'ignore', detached: true });
  await waitFor(`the lock on ${file}`, () => spawnSync('flock', ['--nonblock', file, 'true']).status === 1);
  return holder;
}

function release(holder) {
  try {
    process.kill(-holder.pid, 'SIGKILL');
  } catch {
    // Already released.
  }
}

/** Every compile's errors, as Rsbuild's stats give them, collected by a plugin of the test. */
function statsProbe() {
  const seen = { compiles: [], routesAtCompileStart: [] };
  const record = ({ stats }) => seen.compiles.push(stats.toJson({ all: false, errors: true, warnings: true }));
  return {
    seen,
    plugin: {
      name: 'test:probe',
      setup(api) {
        api.onAfterCreateCompiler(({ compiler }) => {
          compiler.hooks.compile.tap('test:probe', () => {
            seen.routesAtCompileStart.push(existsSync(path.join(api.context.rootPath, '.agent-bundle/routes.d.ts')));
          });
        });
        api.onAfterBuild(record);
        api.onAfterDevCompile(record);
      },
    },
  };
}

describe('pluginAgentBundle', () => {
  it('is an Rsbuild plugin with its name, and refuses options it does not take', () => {
    assert.equal(pluginAgentBundle().name, PLUGIN_AGENT_BUNDLE_NAME);
    assert.throws(() => pluginAgentBundle({ target: ['claude'] }), /unknown option `target`/);
    assert.throws(() => pluginAgentBundle({ targets: 'claude' }), /`targets` is a list of hosts/);
    assert.throws(() => pluginAgentBundle({ out: 1 }), /`out` is a path/);
  });

  it('writes routes.d.ts before the compile starts and builds the artifact after it', async () => {
    const root = project('build');
    const probe = statsProbe();
    assert.equal(existsSync(path.join(root, '.agent-bundle/routes.d.ts')), false);
    const rsbuild = await createRsbuild({ cwd: root, rsbuildConfig: rsbuildConfig([pluginAgentBundle(), probe.plugin]) });
    await rsbuild.build();
    assert.deepEqual(probe.seen.routesAtCompileStart, [true]);
    assert.match(readFileSync(path.join(root, '.agent-bundle/routes.d.ts'), 'utf8'), /tool:hello\/greet/);
    const manifest = JSON.parse(manifestText(root));
    assert.equal(manifest.application.name, 'minimal');
    assert.match(JSON.stringify(manifest), /"Greet\."/);
    assert.ok(existsSync(path.join(root, 'dist/index.html')), 'Rsbuild built its own output too');
    assert.deepEqual(probe.seen.compiles[0].errors, []);
  });

  it('passes root, out and targets to abgen', async () => {
    const base = project('options');
    // Rsbuild's root is the web folder; the abgen project is its parent.
    const web = path.join(base, 'web');
    const config = { ...rsbuildConfig([pluginAgentBundle({ root: '..', out: '../built', targets: ['claude', 'codex'] })]), source: { entry: { index: './index.js' } } };
    const rsbuild = await createRsbuild({ cwd: web, rsbuildConfig: config });
    await rsbuild.build();
    assert.equal(existsSync(path.join(base, 'artifact')), false);
    assert.ok(existsSync(path.join(base, 'built/abgen.manifest.json')));
    assert.ok(existsSync(path.join(base, 'built/.claude-plugin/plugin.json')));
    assert.ok(existsSync(path.join(base, 'built/.codex-plugin/plugin.json')));
    assert.equal(existsSync(path.join(base, 'built/.cursor-plugin')), false);
  });

  it("fails the build with abgen's diagnostic as an Rsbuild error: code, file:line:col, message", async () => {
    const root = project('broken');
    writeFileSync(path.join(root, ROUTE), BROKEN_ROUTE);
    const probe = statsProbe();
    const rsbuild = await createRsbuild({ cwd: root, rsbuildConfig: rsbuildConfig([pluginAgentBundle(), probe.plugin]) });
    await assert.rejects(rsbuild.build(), /build failed/i);
    const [compile] = probe.seen.compiles;
    assert.equal(compile.errors.length, 1, JSON.stringify(compile.errors));
    const [error] = compile.errors;
    assert.match(error.message, /AB4810: the tool definition's options have no `inputSchema` and `resultSchema`/);
    assert.match(error.message, /help: Add `inputSchema` and `resultSchema`/);
    assert.equal(error.file, `${path.join(root, ROUTE)}:2:16`);
    assert.equal(manifestText(root), '', 'nothing is built');
  });

  it('says how to install abgen when it finds none', async () => {
    const root = project('no-abgen');
    const saved = { ABGEN_BIN: process.env.ABGEN_BIN, PATH: process.env.PATH };
    // No ABGEN_BIN, no `abgen` package above the copy, nothing on PATH.
    process.env.ABGEN_BIN = '';
    process.env.PATH = path.join(root, 'empty');
    try {
      const rsbuild = await createRsbuild({ cwd: root, rsbuildConfig: rsbuildConfig([pluginAgentBundle()]) });
      await assert.rejects(rsbuild.build(), /agent-bundle\/rsbuild needs `abgen`: install it in the project \(npm install --save-dev abgen\), set ABGEN_BIN/);
    } finally {
      Object.assign(process.env, saved);
    }
  });

  it("reports abgen's warnings as Rsbuild warnings and still builds", async () => {
    const root = project('warning', path.join(repo, 'fixtures/projects/ab5101-factory-call'));
    const probe = statsProbe();
    const rsbuild = await createRsbuild({ cwd: root, rsbuildConfig: rsbuildConfig([pluginAgentBundle(), probe.plugin]) });
    await rsbuild.build();
    const [compile] = probe.seen.compiles;
    assert.deepEqual(compile.errors, []);
    assert.equal(compile.warnings.length, 1, JSON.stringify(compile.warnings));
    assert.match(compile.warnings[0].message, /AB5101: /);
    const [file, line, column] = compile.warnings[0].file.split(':');
    assert.deepEqual([file, line], [path.join(root, 'src/mcp/fx/tools/search.ts'), '11']);
    assert.match(column, /^\d+$/);
    assert.notEqual(manifestText(root), '');
  });

  it('makes `rsbuild build` exit non-zero and print the diagnostic', async () => {
    const root = project('cli');
    writeFileSync(path.join(root, ROUTE), BROKEN_ROUTE);
    const plugin = pathToFileURL(path.join(repo, 'packages/agent-bundle/src/rsbuild/index.mjs')).href;
    writeFileSync(
      path.join(root, 'rsbuild.config.mjs'),
      `import { pluginAgentBundle } from ${JSON.stringify(plugin)};\n` +
        "export default { source: { entry: { index: './web/index.js' } }, plugins: [pluginAgentBundle()] };\n",
    );
    const cli = path.join(repo, 'node_modules/@rsbuild/core/bin/rsbuild.js');
    const { code, output } = await new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [cli, 'build'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
      let output = '';
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, output });
      });
    });
    assert.notEqual(code, 0, output);
    assert.match(output, /src\/mcp\/hello\/tools\/greet\.ts:2:16/);
    assert.match(output, /AB4810: the tool definition's options have no `inputSchema` and `resultSchema`/);
  });

  it('builds readable App documents under rsbuild dev and production ones under rsbuild build', async () => {
    const appFixture = path.join(repo, 'fixtures/projects/valid-app-probe');
    const document = (root) => readFileSync(path.join(root, 'artifact/mcp-apps/probe.html'), 'utf8');

    const shipped = project('app-build', appFixture);
    const built = await createRsbuild({ cwd: shipped, rsbuildConfig: rsbuildConfig([pluginAgentBundle()]) });
    await built.build();
    const production = document(shipped);

    const developed = project('app-dev', appFixture);
    const rsbuild = await createRsbuild({
      cwd: developed,
      rsbuildConfig: rsbuildConfig([pluginAgentBundle()], { server: { host: '127.0.0.1', port: 0, printUrls: false } }),
    });
    const { server } = await rsbuild.startDevServer();
    try {
      await waitFor('the dev artifact', () => existsSync(path.join(developed, 'artifact/abgen.manifest.json')));
      const readable = document(developed);
      // The development document keeps the App's module headers and its names; the
      // production one is minified.
      assert.ok(readable.includes('\n// src/mcp/desk/apps/probe.ts\n'), 'the dev document names its modules');
      assert.ok(!production.includes('// src/mcp/desk/apps/probe.ts'), 'the production document is minified');
      assert.ok(2 * readable.length > 3 * production.length, `${readable.length} readable bytes against ${production.length}`);
    } finally {
      await server.close();
    }
  });

  it('rebuilds in dev on a route edit, reports a broken one as a compile error, and ends abgen on close', async () => {
    const root = project('dev');
    const probe = statsProbe();
    const rsbuild = await createRsbuild({
      cwd: root,
      rsbuildConfig: rsbuildConfig([pluginAgentBundle(), probe.plugin], { server: { host: '127.0.0.1', port: 0, printUrls: false } }),
    });
    const { server } = await rsbuild.startDevServer();
    const holders = [];
    try {
      await waitFor('the first dev compile', () => probe.seen.routesAtCompileStart.length > 0);
      assert.equal(probe.seen.routesAtCompileStart[0], true, 'routes.d.ts is there when the first dev compile starts');
      await waitFor('the first artifact', () => manifestText(root).includes('"Greet."'));

      editRoute(root, "'Greet.'", "'Greet warmly.'");
      await waitFor('the artifact rebuilt with the edit', () => manifestText(root).includes('"Greet warmly."'));

      const before = probe.seen.compiles.length;
      writeFileSync(path.join(root, ROUTE), BROKEN_ROUTE);
      const broken = await waitFor('a dev compile with an error', () =>
        probe.seen.compiles.slice(before).find((compile) => compile.errors.length > 0),
      );
      assert.match(broken.errors[0].message, /AB4810: the tool definition/);
      assert.equal(broken.errors[0].file, `${path.join(root, ROUTE)}:2:16`);
      assert.ok(manifestText(root).includes('"Greet warmly."'), 'the last good artifact stays');

      // While the artifact's build lock is held, the next abgen build waits on it: a child
      // that is certainly running while the route changes again, and when the server closes.
      const lock = path.join(root, '.artifact.abgen-lock');
      const locked = await holdLock(lock);
      holders.push(locked);
      writeFileSync(path.join(root, ROUTE), readFileSync(path.join(fixture, ROUTE)));
      await waitFor('an abgen build waiting on the lock', () => processesIn(root).length > 0);
      editRoute(root, "'Greet.'", "'Greet at last.'");
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(processesIn(root).length, 1, 'one abgen child at a time, whatever changed meanwhile');
      release(locked);
      await waitFor('the change made during a build, built after it', () => manifestText(root).includes('"Greet at last."'));

      holders.push(await holdLock(lock));
      editRoute(root, "'Greet at last.'", "'Greet once more.'");
      await waitFor('an abgen build waiting on the lock', () => processesIn(root).length > 0);
      const closing = Date.now();
      await server.close();
      assert.ok(Date.now() - closing < 10_000, 'close is bounded');
      assert.deepEqual(processesIn(root), [], 'no abgen child is left');
    } finally {
      for (const holder of holders) release(holder);
      await server.close();
    }
  });
});
