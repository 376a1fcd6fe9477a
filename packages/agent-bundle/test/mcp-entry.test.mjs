import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bundleEntry, loadEntry } from '../test-support/load-entry.mjs';

const mcpEntry = await loadEntry('mcp-entry');
const lifecycle = pathToFileURL(await bundleEntry('mcp-entry')).href;
const sdk = pathToFileURL(
  fileURLToPath(new URL('../../../node_modules/@modelcontextprotocol/sdk/dist/esm/server/mcp.js', import.meta.url)),
).href;
const dir = mkdtempSync(join(tmpdir(), 'agent-bundle-mcp-entry-'));
after(() => rmSync(dir, { recursive: true, force: true }));

// A handwritten entry on the real MCP SDK, run the way the generated shell runs it: the
// redirect first, the server module afterwards (it logs at its top level), then the shell.
const entry = join(dir, 'entry.mjs');
writeFileSync(
  entry,
  `import { redirectConsoleToStderr, runStdioServer } from ${JSON.stringify(lifecycle)};
redirectConsoleToStderr();
const { McpServer } = await import(${JSON.stringify(sdk)});
console.log('loading the docs server');
const factory = () => {
  const server = new McpServer({ name: 'docs', version: '1.0.0' });
  server.registerTool('ping', { description: 'Ping.' }, async () => ({ content: [{ type: 'text', text: 'pong' }] }));
  return server;
};
const wedged = process.env.WEDGED_CLOSE === '1';
await runStdioServer(wedged ? () => Object.assign(factory(), { close: () => new Promise(() => {}) }) : factory, {
  name: 'docs',
  heartbeatMs: Number(process.env.HEARTBEAT_MS ?? 300000),
  shutdownMs: Number(process.env.SHUTDOWN_MS ?? 5000),
});
`,
);

/** Starts the entry; resolves its exit code, stdout lines and stderr text. */
function start(env = {}) {
  const child = spawn(process.execPath, [entry], { env: { ...process.env, ...env }, stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal, lines: () => stdout.split('\n').filter(Boolean), stderr: () => stderr }));
  });
  const send = (message) => child.stdin.write(`${JSON.stringify(message)}\n`);
  const waitFor = async (predicate) => {
    for (let i = 0; i < 200; i += 1) {
      if (predicate(stdout, stderr)) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`timed out; stdout: ${stdout}; stderr: ${stderr}`);
  };
  return { child, exited, send, waitFor };
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '0' } },
};

describe('agent-bundle/mcp-entry', () => {
  it('exports the lifecycle and nothing else', () => {
    assert.deepEqual(Object.keys(mcpEntry).sort(), ['redirectConsoleToStderr', 'runStdioServer']);
  });

  it('serves frames on stdout only and exits 0 at the end of its input', async () => {
    const server = start();
    server.send(initialize);
    server.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    server.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    await server.waitFor((out) => out.includes('"id":2'));
    server.child.stdin.end();
    const { code, lines, stderr } = await server.exited;
    assert.equal(code, 0);
    const frames = lines().map((line) => JSON.parse(line));
    assert.equal(frames[0].result.serverInfo.name, 'docs');
    assert.deepEqual(frames[1].result.tools.map((tool) => tool.name), ['ping']);
    assert.match(stderr(), /loading the docs server/);
    assert.match(stderr(), /\[docs\] connected over stdio/);
    assert.match(stderr(), /\[docs\] handling requests/);
  });

  it('writes a heartbeat line on stderr, labelled with the server', async () => {
    const server = start({ HEARTBEAT_MS: '50' });
    await server.waitFor((_, err) => err.includes('[docs] alive'));
    server.child.stdin.end();
    const { code, lines } = await server.exited;
    assert.equal(code, 0);
    assert.deepEqual(lines(), []);
  });

  it('bounds the shutdown of a server whose close never settles', async () => {
    const server = start({ WEDGED_CLOSE: '1', SHUTDOWN_MS: '300' });
    await server.waitFor((_, err) => err.includes('connected over stdio'));
    const began = Date.now();
    server.child.kill('SIGTERM');
    const { code } = await server.exited;
    assert.equal(code, 143);
    const elapsed = Date.now() - began;
    assert.ok(elapsed >= 250 && elapsed < 4000, `exited after ${elapsed} ms`);
  });

  for (const [signal, expected] of [['SIGINT', 130], ['SIGTERM', 143]]) {
    it(`exits ${expected} on ${signal}`, async () => {
      const server = start();
      await server.waitFor((_, err) => err.includes('connected over stdio'));
      server.child.kill(signal);
      const { code } = await server.exited;
      assert.equal(code, expected);
    });
  }
});
