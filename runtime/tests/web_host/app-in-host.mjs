// `abgen-host web` in real headless Chromium, with the official MCP Apps client inside it.
//
// Usage: node app-in-host.mjs <artifact>   (a built curator, run as installed: its own
// `bin/abgen-host`, from outside the repository; Chromium from ABGEN_CHROMIUM, else `chromium`
// on PATH). Until Apps are compiled by abgen, the App document is
// `ext-apps-view.ts` bundled here with esbuild into one self-contained HTML file and placed where
// a build puts it, `mcp-apps/shelf_viewer.html`. Prints a JSON summary; every assertion fails
// the script.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

import { build } from 'esbuild';
import { chromium } from 'playwright-core';

const [artifact] = process.argv.slice(2);
assert.ok(artifact, 'usage: node app-in-host.mjs <artifact>');
const host = join(artifact, 'bin', 'abgen-host');
// The artifact's own folder is the working directory: nothing of the framework is reachable.
const installed = { cwd: dirname(artifact), env: { ...process.env, ABGEN_ARTIFACT: '' } };
const install = readFileSync(join(artifact, 'INSTALL.md'), 'utf8');
assert.ok(install.includes('- `bin/abgen-host web library/shelf_viewer`'), install);
const summary = {};
const here = fileURLToPath(new URL('.', import.meta.url));

/** Lines of a child's stdout, one at a time, each within `ms`. */
const lines = (child) => {
  const reader = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  return async (ms = 60_000) => {
    const timer = new Promise((_, reject) => setTimeout(() => reject(new Error('no line in time')), ms).unref());
    const { value, done } = await Promise.race([reader.next(), timer]);
    assert.ok(!done, 'the process ended');
    return value;
  };
};

// The MCP server's resources/read of the App: an honest error without a document, the document
// once `mcp-apps/<name>.html` is there.
const readApp = async () => {
  const server = spawn(host, ['mcp', '--server', 'library'], { ...installed, stdio: ['pipe', 'pipe', 'inherit'] });
  const next = lines(server);
  const send = (message) => server.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'web-test', version: '1' } } });
  JSON.parse(await next());
  send({ method: 'notifications/initialized' });
  send({ id: 2, method: 'resources/read', params: { uri: 'ui://curator/shelf-viewer' } });
  const reply = JSON.parse(await next());
  server.stdin.end();
  await new Promise((resolve) => server.on('exit', resolve));
  return reply;
};
const appPath = join(artifact, 'mcp-apps', 'shelf_viewer.html');
// The build compiled the curator's own App; without it the server says so, and the test then
// places an App written on ext-apps' own client there instead.
assert.ok(existsSync(appPath), 'the build compiled the App document');
rmSync(appPath);
const before = await readApp();
assert.match(before.error?.message ?? '', /no readable compiled document/, JSON.stringify(before));

const bundled = await build({
  entryPoints: [join(here, 'ext-apps-view.ts')],
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  write: false,
  logLevel: 'silent',
});
const script = bundled.outputFiles[0].text;
assert.ok(!/<\/script/i.test(script), 'the bundle can be inlined');
const document = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>shelf_viewer</title></head><body>
<pre id="host"></pre><pre id="tool-input"></pre><pre id="tool-result"></pre>
<button id="call" type="button">Call show_shelf</button><pre id="call-result"></pre><pre id="teardown"></pre>
<script type="module">${script}</script></body></html>`;
mkdirSync(join(artifact, 'mcp-apps'), { recursive: true });
writeFileSync(appPath, document);
const after = await readApp();
assert.equal(after.result?.contents?.[0]?.mimeType, 'text/html;profile=mcp-app', JSON.stringify(after).slice(0, 400));
assert.equal(after.result.contents[0].text, document);
assert.equal(after.result.contents[0].uri, 'ui://curator/shelf-viewer');
summary.read = { before: before.error.message, after: { mimeType: after.result.contents[0].mimeType, sameDocument: true } };

// The host.
const web = spawn(host, ['web', 'library/shelf_viewer', '--json', '--input', '{"shelf":"reading"}'], {
  ...installed,
  stdio: ['ignore', 'pipe', 'pipe'],
});
let hostLog = '';
web.stderr.on('data', (chunk) => { hostLog += chunk; });
const exited = new Promise((resolve) => web.on('exit', (code, signal) => resolve({ code, signal })));
const address = JSON.parse(await lines(web)(90_000));
assert.deepEqual(Object.keys(address).sort(), ['app', 'port', 'resourceUri', 'sandboxOrigin', 'server', 'tool', 'url']);
assert.equal(address.app, 'library/shelf_viewer');
assert.equal(address.tool, 'show_shelf');
assert.equal(address.resourceUri, 'ui://curator/shelf-viewer');
assert.equal(address.url, `http://127.0.0.1:${address.port}/`);
assert.match(address.sandboxOrigin, /^http:\/\/127\.0\.0\.1:\d+$/);
assert.notEqual(address.sandboxOrigin, new URL(address.url).origin, 'the App has an origin of its own');
summary.address = { app: address.app, tool: address.tool, resourceUri: address.resourceUri };

// The relay answers the host page only, and each server only its own loopback Host.
const raw = (url, { method = 'GET', headers = {}, body } = {}) =>
  new Promise((resolve, reject) => {
    const request = http.request(url, { method, headers }, (response) => {
      response.resume();
      resolve(response.statusCode);
    });
    request.on('error', reject);
    request.end(body);
  });
const relayBody = JSON.stringify({ method: 'tools/call', params: { name: 'show_shelf', arguments: { shelf: 'finished' } } });
summary.refused = {
  noToken: await raw(`${address.url}api/mcp`, { method: 'POST', headers: { origin: new URL(address.url).origin }, body: relayBody }),
  foreignOrigin: await raw(`${address.url}api/mcp`, { method: 'POST', headers: { origin: 'http://127.0.0.1:1' }, body: relayBody }),
  reboundHost: await raw(address.url, { headers: { host: `attacker.example:${address.port}` } }),
  sandboxPageOnHostOrigin: await raw(`${address.url}sandbox`),
};
assert.deepEqual(summary.refused, { noToken: 403, foreignOrigin: 403, reboundHost: 421, sandboxPageOnHostOrigin: 404 });

// The processes the host started: its render workers (children of the host process).
const children = () =>
  readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === web.pid;
      } catch {
        return false;
      }
    })
    .map(Number);

// The Chromium `scripts/browser/install` put on PATH, unless ABGEN_CHROMIUM names another.
const executablePath =
  process.env.ABGEN_CHROMIUM || execFileSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim();
const browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
try {
  const page = await browser.newPage();
  const consoleLines = [];
  page.on('console', (message) => consoleLines.push(message.text()));
  page.on('pageerror', (error) => consoleLines.push(`pageerror: ${error.message}`));
  await page.goto(address.url);
  const view = page.frameLocator('#app-frame').frameLocator('iframe');
  const text = async (id) => view.locator(`#${id}`).textContent();
  const waitFor = async (id, predicate, what) => {
    for (let i = 0; i < 300; i += 1) {
      const value = await text(id).catch(() => '');
      if (predicate(value)) return value;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.fail(`${what}: #${id} is ${JSON.stringify(await text(id).catch(() => ''))}; console: ${consoleLines.join('\n')}`);
  };

  // Handshake and host context, then the opening notifications, as the official client reads them.
  const hostSeen = JSON.parse(await waitFor('host', (v) => v.startsWith('{'), 'the handshake'));
  assert.equal(hostSeen.hostInfo.name, 'abgen-host web');
  assert.equal(hostSeen.hostContext.toolInfo.tool.name, 'show_shelf');
  assert.equal(hostSeen.hostContext.platform, 'web');
  assert.equal(hostSeen.hostContext.displayMode, 'inline');
  assert.ok(hostSeen.capabilities.serverTools, JSON.stringify(hostSeen.capabilities));
  summary.handshake = {
    hostInfo: hostSeen.hostInfo.name,
    tool: hostSeen.hostContext.toolInfo.tool.name,
    platform: hostSeen.hostContext.platform,
    displayMode: hostSeen.hostContext.displayMode,
    capabilities: Object.keys(hostSeen.capabilities).sort(),
  };
  summary.toolInput = JSON.parse(await waitFor('tool-input', (v) => v.startsWith('{'), 'the opening input'));
  assert.deepEqual(summary.toolInput, { shelf: 'reading' });
  const opening = JSON.parse(await waitFor('tool-result', (v) => v.startsWith('{'), 'the opening result'));
  assert.equal(opening.shelf, 'reading');
  assert.ok(Array.isArray(opening.books) && opening.books.length > 0, JSON.stringify(opening));
  summary.toolResult = { shelf: opening.shelf, books: opening.books.map((book) => book.id) };

  // A frame that is not the App's — even one at the sandbox's own origin — and the host window
  // itself post a tools/call: both are ignored, no consent is asked and nothing is relayed.
  await page.evaluate((sandboxOrigin) => new Promise((resolve) => {
    const foreign = document.createElement('iframe');
    foreign.name = 'foreign';
    foreign.src = `${sandboxOrigin}/sandbox`;
    foreign.onload = resolve;
    document.body.appendChild(foreign);
  }), address.sandboxOrigin);
  const forged = { jsonrpc: '2.0', id: 'forged', method: 'tools/call', params: { name: 'show_shelf', arguments: { shelf: 'finished' } } };
  const foreignFrame = page.frame({ name: 'foreign' });
  assert.ok(foreignFrame, 'the foreign frame loaded');
  await foreignFrame.evaluate((message) => window.parent.postMessage(message, '*'), forged);
  await page.evaluate((message) => window.postMessage(message, '*'), forged);
  await page.waitForTimeout(500);
  const activity = await page.locator('#activity').textContent();
  const ignored = activity.match(/ignored a message/g)?.length ?? 0;
  // The foreign proxy's own ready notice, its forged call and the window's own.
  assert.ok(ignored >= 3, activity);
  assert.ok(!activity.includes('App: tools/call'), activity);
  assert.equal(await page.locator('#consent').isVisible(), false);
  assert.ok(!hostLog.includes('the App calls'), hostLog);
  summary.foreign = { ignored: ignored >= 3, relayed: false, consentAsked: false };

  // Consent: the App's call asks in the host page; denied, the App hears -32001; allowed, the
  // call reaches the real server and its structured result comes back.
  await view.locator('#call').click();
  await page.locator('#consent').waitFor({ state: 'visible' });
  const question = await page.locator('#consent-text').textContent();
  assert.equal(question, 'The App asks to call the tool show_shelf.');
  await page.locator('#consent-deny').click();
  const denied = await waitFor('call-result', (v) => v.startsWith('error'), 'the denied call');
  assert.match(denied, /^error -32001: /);
  assert.ok(!hostLog.includes('the App calls'), hostLog);
  await view.locator('#call').click();
  await page.locator('#consent').waitFor({ state: 'visible' });
  await page.locator('#consent-allow').click();
  const called = JSON.parse(await waitFor('call-result', (v) => v.startsWith('{'), 'the allowed call'));
  assert.equal(called.shelf, 'finished');
  assert.ok(hostLog.includes('the App calls show_shelf'), hostLog);
  summary.consent = { question, denied: denied.replace(/: .*/, ''), allowed: { shelf: called.shelf, books: called.books.map((book) => book.id) } };

  // Teardown on exit: SIGTERM ends the host with 143 and every process it started; the page
  // learns it, tears the App down (the official client's onteardown runs) and says so.
  const workers = children();
  // Only the first worker of a kernel starts before demand; these calls ran one at a time.
  assert.ok(workers.length >= 1, `the host runs its render workers: ${workers}`);
  web.kill('SIGTERM');
  const end = await exited;
  assert.deepEqual(end, { code: 143, signal: null });
  for (const pid of workers) {
    assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' }, `process ${pid} outlived the host`);
  }
  await page.locator('#status').filter({ hasText: 'stopped: the host stopped' }).waitFor({ timeout: 10_000 });
  assert.ok(consoleLines.includes('ext-apps view: torn down'), consoleLines.join('\n'));
  assert.equal(await page.locator('#app-frame').count(), 0);
  // How many workers there are follows the machine's cores; that every one ended does not.
  summary.exit = { code: end.code, workersEnded: 'all', appTornDown: true };

  // `--allow call-tool` grants what the page would ask, and `--port` places the host page;
  // Ctrl-C (SIGINT) ends it with 130.
  const port = await new Promise((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port: free } = probe.address();
      probe.close(() => resolve(free));
    });
  });
  const granted = spawn(host, ['web', '--json', '--allow', 'call-tool', '--port', String(port), '--input', '{"shelf":"to-read"}'], {
    ...installed,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const grantedExit = new Promise((resolve) => granted.on('exit', (code, signal) => resolve({ code, signal })));
  try {
    const second = JSON.parse(await lines(granted)(90_000));
    assert.equal(second.port, port);
    assert.equal(second.url, `http://127.0.0.1:${port}/`);
    const page2 = await browser.newPage();
    await page2.goto(second.url);
    const view2 = page2.frameLocator('#app-frame').frameLocator('iframe');
    await view2.locator('#tool-result').filter({ hasText: '"shelf":"to-read"' }).waitFor({ timeout: 30_000 });
    await view2.locator('#call').click();
    await view2.locator('#call-result').filter({ hasText: '"shelf":"finished"' }).waitFor({ timeout: 30_000 });
    assert.equal(await page2.locator('#consent').isVisible(), false);
    granted.kill('SIGINT');
    assert.deepEqual(await grantedExit, { code: 130, signal: null });
    summary.allowed = { port: 'as asked', consentAsked: false, call: 'finished', exit: 130 };
  } finally {
    if (granted.exitCode === null && granted.signalCode === null) granted.kill('SIGKILL');
  }
} finally {
  await browser.close();
  if (web.exitCode === null && web.signalCode === null) web.kill('SIGKILL');
}

console.log(JSON.stringify(summary, null, 2));
