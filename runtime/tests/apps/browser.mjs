// Proves `agent-bundle/app` in real headless Chromium against the official MCP Apps host bridge
// (ext-apps' AppBridge in host-page.mjs), wired to the built plugin's real MCP server
// (`abgen-host mcp` over stdio, driven by the SDK client in this process; the page reaches it
// through playwright's exposed functions). Each case opens the App document the server serves
// for ui://desk/probe in a fresh sandboxed iframe and drives clients inside it. Asserts as it
// goes and prints a JSON summary.
//
// Usage: node browser.mjs <artifact dir> <scratch dir>
// Chromium: $ABGEN_CHROMIUM, else /usr/bin/chromium (scripts/browser/install).

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';

import { startHarness } from './harness.mjs';

const [artifact, scratch] = process.argv.slice(2);
assert.ok(artifact && scratch, 'usage: node browser.mjs <artifact dir> <scratch dir>');

const harness = await startHarness(artifact, 'desk');
const { mcp, sentToServer, page, port, hostOrigin, inApp } = harness;
const html = (await mcp.readResource({ uri: 'ui://desk/probe' })).contents[0].text;
const echoTool = (await mcp.listTools()).tools.find((tool) => tool.name === 'echo');
const opening = await mcp.callTool({ name: 'echo', arguments: { text: 'opening' } });

const summary = {};
try {
  const open = (extra = {}) => harness.open(html, { tool: echoTool, ...extra });
  const marker = (name) => path.join(scratch, `${name}.marker`);
  const waitFor = async (file) => {
    for (let i = 0; i < 100 && !existsSync(file); i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
    return existsSync(file);
  };

  // Handshake and a typed call round trip to the real server.
  await open();
  summary.handshake = await inApp(async () => {
    const client = window.probe.createAppClient({ appInfo: { name: 'probe', version: '1' } });
    const result = await client.connect();
    const again = await client.connect();
    const echo = await client.call('tool:desk/echo', { text: 'héllo' });
    client.dispose();
    return { protocolVersion: result.protocolVersion, host: result.hostInfo.name, cached: result === again, echo };
  });
  assert.deepEqual(summary.handshake, { protocolVersion: '2026-01-26', host: 'ext-apps-test-host', cached: true, echo: { echo: 'héllo', length: 5 } });
  assert.equal(await inApp(() => window.probe.echo('four')), 4);

  // Opening notifications: the host's tool-input and the real opening result.
  await open({ input: { text: 'opening' }, result: opening });
  summary.opening = await inApp(async () => {
    const client = window.probe.createAppClient({ appInfo: { name: 'probe', version: '1' } });
    const seen = [];
    const done = new Promise((resolve) => {
      client.onToolInput('tool:desk/echo', (input) => seen.push(['input', input]));
      client.onToolResult('tool:desk/echo', (result) => {
        seen.push(['result', result]);
        resolve();
      });
      client.onToolResult('tool:desk/hold', (result) => seen.push(['other', result]));
    });
    await client.connect();
    await done;
    client.dispose();
    return seen;
  });
  assert.deepEqual(summary.opening, [['input', { text: 'opening' }], ['result', { echo: 'opening', length: 7 }]]);

  // Timeout: rejected at once; the server's route sees the cancellation.
  await open();
  const timedOut = marker('timeout');
  summary.timeout = await inApp(async (file) => {
    const client = window.probe.createAppClient({ appInfo: { name: 'probe', version: '1' } });
    await client.connect();
    const started = performance.now();
    const code = await client.call('tool:desk/hold', { marker: file }, { timeoutMs: 300 }).catch((error) => error.code);
    return { code, ms: Math.round(performance.now() - started) };
  }, timedOut);
  assert.equal(summary.timeout.code, 'timeout');
  assert.ok(summary.timeout.ms < 2_000, JSON.stringify(summary.timeout));
  assert.ok(await waitFor(timedOut), 'the hold route saw its cancellation after the timeout');

  // Abort: the same, from an AbortSignal; notifications/cancelled reached the server.
  const aborted = marker('abort');
  summary.abort = await inApp(async (file) => {
    const client = window.probe.createAppClient({ appInfo: { name: 'probe', version: '1' } });
    await client.connect();
    const controller = new AbortController();
    const call = client.call('tool:desk/hold', { marker: file }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 200);
    return call.catch((error) => error.code);
  }, aborted);
  assert.equal(summary.abort, 'aborted');
  assert.ok(await waitFor(aborted), 'the hold route saw its cancellation after the abort');
  const cancelledAtServer = sentToServer.filter((message) => message.method === 'notifications/cancelled');
  assert.equal(cancelledAtServer.length, 2, JSON.stringify(cancelledAtServer));
  summary.serverSawCancelled = cancelledAtServer.length;

  // A foreign frame (another window, another origin) forging a host frame is ignored.
  await open({ input: { text: 'real' } });
  await page.evaluate((url) => window.addForeignFrame(url), `http://localhost:${port}/foreign`);
  const foreign = await (await page.$('iframe[name=foreign]')).contentFrame();
  summary.foreignFrame = await inApp(async () => {
    const client = window.probe.createAppClient({ appInfo: { name: 'probe', version: '1' } });
    window.seen = [];
    client.onToolInput('tool:desk/echo', (input) => window.seen.push(input));
    await client.connect();
    window.probeClient = client;
    return true;
  });
  await foreign.evaluate(() =>
    window.forge({ jsonrpc: '2.0', method: 'ui/notifications/tool-input', params: { arguments: { text: 'forged' } } }),
  );
  await new Promise((resolve) => setTimeout(resolve, 200));
  summary.foreignFrame = await inApp(() => window.seen);
  assert.deepEqual(summary.foreignFrame, [{ text: 'real' }]);
  await inApp(() => window.probeClient.dispose());

  // A client pinned to another origin ignores its real parent's frames.
  await open();
  summary.foreignOrigin = await inApp(async (origin) => {
    const client = window.probe.createAppClient({ appInfo: { name: 'probe', version: '1' }, targetOrigin: origin, timeoutMs: 500 });
    return client.connect().then(() => 'connected', (error) => error.code);
  }, `http://localhost:${port}`);
  assert.equal(summary.foreignOrigin, 'timeout');
  // The exact host origin works.
  summary.exactOrigin = await inApp(async (origin) => {
    const client = window.probe.createAppClient({ appInfo: { name: 'probe', version: '1' }, targetOrigin: origin });
    const { length } = await client.call('tool:desk/echo', { text: 'pinned' });
    client.dispose();
    return length;
  }, hostOrigin);
  assert.equal(summary.exactOrigin, 6);

  // Rebind rejects the old generation, then works on the new one; dispose rejects what is pending.
  await open();
  summary.rebind = await inApp(async (file) => {
    const client = window.probe.createAppClient({ appInfo: { name: 'probe', version: '1' } });
    await client.connect();
    const held = client.call('tool:desk/hold', { marker: file }).catch((error) => error.code);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const rebound = await client.rebind().then(() => 'connected', (error) => error.code);
    const old = await held;
    const after = await client.call('tool:desk/echo', { text: 'new' }).then((result) => result.length, (error) => error.code);
    const pending = client.call('tool:desk/hold', { marker: `${file}.disposed` }).catch((error) => error.code);
    await new Promise((resolve) => setTimeout(resolve, 100));
    client.dispose();
    return { old, rebound, after, disposed: await pending };
  }, marker('rebind'));
  assert.deepEqual(summary.rebind, { old: 'connection-rebound', rebound: 'connected', after: 3, disposed: 'disposed' });

  // Host features through their helpers: open-link and size changes reach the host.
  await open();
  summary.hostFeatures = await inApp(async () => {
    const client = window.probe.createAppClient({ appInfo: { name: 'probe', version: '1' } });
    await client.openLink('https://example.com/shelf');
    const message = await client.sendMessage('hi').then(() => 'sent', (error) => error.code);
    client.sendSizeChanged({ width: 320, height: 240 });
    return { message };
  });
  await new Promise((resolve) => setTimeout(resolve, 100));
  const hostEvents = await page.evaluate(() => window.hostEvents);
  assert.ok(hostEvents.some((event) => event[0] === 'open-link' && event[1] === 'https://example.com/shelf'), JSON.stringify(hostEvents));
  assert.ok(hostEvents.some((event) => event[0] === 'size' && event[1] === 320 && event[2] === 240), JSON.stringify(hostEvents));
  assert.equal(summary.hostFeatures.message, 'capability-unavailable');

  // Teardown: the host's ui/resource-teardown is acknowledged, then the client is disposed.
  await open();
  await inApp(async () => {
    window.teardownClient = window.probe.createAppClient({ appInfo: { name: 'probe', version: '1' } });
    await window.teardownClient.connect();
  });
  summary.teardown = await page.evaluate(() => window.teardownApp().then(() => 'acknowledged', (error) => String(error)));
  assert.equal(summary.teardown, 'acknowledged');
  summary.afterTeardown = await inApp(() => window.teardownClient.call('tool:desk/echo', { text: 'x' }).then(() => 'answered', (error) => error.code));
  assert.equal(summary.afterTeardown, 'disposed');
} finally {
  await harness.close();
}
process.stdout.write(`${JSON.stringify(summary)}\n`);
