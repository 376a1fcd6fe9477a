// What `agent-bundle/app` must do behind any MCP Apps host, as one script both hosts run: the
// official bridge (ext-apps' AppBridge, browser.mjs) and `abgen-host web` (in-web-host.mjs). It
// drives clients inside the built `valid-app-probe` App (`window.probe.createAppClient`) on the
// plugin's real MCP server: handshake, a typed call round trip, the opening notifications,
// timeout and abort (the server's `hold` route sees the cancellation), a foreign frame and a
// foreign origin ignored, rebind, dispose, host features and teardown. Asserts as it goes and
// returns a summary.
//
// `host` is what differs between the hosts:
// - `name`: the host name the handshake reports;
// - `open({ input, result })`: a fresh App, whose opening notifications carry `input` and
//   `result` (a host that makes its opening call itself carries its own, `opening` below);
// - `opening`: `{ input, result }` of the opening call, the same for every host;
// - `inApp(body, arg)`: runs `body` in the App's window;
// - `forge(message)`: a frame of another origin posts `message` to the App's window;
// - `parentOrigin`: the exact origin of the window the App talks to; `otherOrigin`: another;
// - `framesAtServer()`: the `notifications/cancelled` the server was sent, when the host's
//   relay is observable (else the markers alone prove the cancellation reached the route);
// - `hostFeatures()`: the host's record of an App's open-link and size change, or null when the
//   host asks the user first (those are then proven by the host's own tests);
// - `teardown()`: the host tears the App down; resolves with what it observed;
// - `afterTeardown()`: the code a call of the torn-down client was rejected with.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';

export async function runClientCases(host, scratch) {
  const summary = {};
  const { inApp } = host;
  const open = (extra = {}) => host.open(extra);
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
  assert.deepEqual(summary.handshake, { protocolVersion: '2026-01-26', host: host.name, cached: true, echo: { echo: 'héllo', length: 5 } });
  summary.handshake.host = 'the host';
  assert.equal(await inApp(() => window.probe.echo('four')), 4);

  // Opening notifications: the host's tool-input and the real opening result.
  await open(host.opening);
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
  const frames = host.framesAtServer();
  if (frames !== null) {
    const cancelled = frames.filter((message) => message.method === 'notifications/cancelled');
    assert.equal(cancelled.length, 2, JSON.stringify(cancelled));
  }
  summary.serverSawCancelled = [timedOut, aborted].filter((file) => existsSync(file)).length;

  // A foreign frame (another window, another origin) forging a host frame is ignored.
  await open({ input: { text: 'real' } });
  summary.foreignFrame = await inApp(async () => {
    const client = window.probe.createAppClient({ appInfo: { name: 'probe', version: '1' } });
    window.seen = [];
    const first = new Promise((resolve) => {
      client.onToolInput('tool:desk/echo', (input) => {
        window.seen.push(input);
        resolve();
      });
    });
    await client.connect();
    await first;
    window.probeClient = client;
    return true;
  });
  await host.forge({ jsonrpc: '2.0', method: 'ui/notifications/tool-input', params: { arguments: { text: 'forged' } } });
  await new Promise((resolve) => setTimeout(resolve, 200));
  summary.foreignFrame = await inApp(() => window.seen);
  assert.equal(summary.foreignFrame.length, 1, JSON.stringify(summary.foreignFrame));
  assert.notDeepEqual(summary.foreignFrame[0], { text: 'forged' });
  summary.foreignFrame = 'ignored';
  await inApp(() => window.probeClient.dispose());

  // A client pinned to another origin ignores its real parent's frames.
  await open();
  summary.foreignOrigin = await inApp(async (origin) => {
    const client = window.probe.createAppClient({ appInfo: { name: 'probe', version: '1' }, targetOrigin: origin, timeoutMs: 500 });
    return client.connect().then(() => 'connected', (error) => error.code);
  }, host.otherOrigin);
  assert.equal(summary.foreignOrigin, 'timeout');
  // The exact origin works.
  summary.exactOrigin = await inApp(async (origin) => {
    const client = window.probe.createAppClient({ appInfo: { name: 'probe', version: '1' }, targetOrigin: origin });
    const { length } = await client.call('tool:desk/echo', { text: 'pinned' });
    client.dispose();
    return length;
  }, host.parentOrigin);
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
  const features = await inApp(async () => {
    const client = window.probe.createAppClient({ appInfo: { name: 'probe', version: '1' } });
    await client.connect();
    client.sendSizeChanged({ width: 320, height: 240 });
    const message = await client.sendMessage('hi').then(() => 'sent', (error) => error.code);
    window.featureClient = client;
    return { message };
  });
  assert.equal(features.message, 'capability-unavailable');
  const hostEvents = await host.hostFeatures(async () => inApp(() => window.featureClient.openLink('https://example.com/shelf')));
  if (hostEvents !== null) {
    assert.ok(hostEvents.some((event) => event[0] === 'open-link' && event[1] === 'https://example.com/shelf'), JSON.stringify(hostEvents));
    assert.ok(hostEvents.some((event) => event[0] === 'size' && event[1] === 320 && event[2] === 240), JSON.stringify(hostEvents));
  }
  summary.hostFeatures = features;
  await inApp(() => window.featureClient.dispose());

  // Teardown: the host's ui/resource-teardown is acknowledged, then the client is disposed: a
  // call right after it (reported through the host's `reportAfterTeardown` binding, since a
  // host may remove the App's frame at once) is rejected.
  await open();
  await inApp(async () => {
    const client = window.probe.createAppClient({ appInfo: { name: 'probe', version: '1' } });
    await client.connect();
    // Registered after the client's own listener, so it runs once the client answered.
    window.addEventListener('message', (event) => {
      if (event.data?.method !== 'ui/resource-teardown') return;
      client.call('tool:desk/echo', { text: 'x' }).then(
        () => window.reportAfterTeardown('answered'),
        (error) => window.reportAfterTeardown(error.code),
      );
    });
  });
  summary.teardown = await host.teardown();
  summary.afterTeardown = await host.afterTeardown();
  assert.equal(summary.afterTeardown, 'disposed');
  return summary;
}
