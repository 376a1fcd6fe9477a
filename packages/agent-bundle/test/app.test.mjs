// The App client's state machine against a fake parent window: the handshake, calls and their
// decoding, timeouts and aborts (with notifications/cancelled), transport authentication (exact
// parent, exact origin), rebind, dispose, teardown, the opening notifications, the host-feature
// helpers and every misuse error. The same client runs in real Chromium in
// runtime/tests/apps/ (codegen/tests/apps_browser.rs).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadEntry } from '../test-support/load-entry.mjs';

const app = await loadEntry('app');
const { createAppClient, AppClientError } = app;

const INITIALIZE_RESULT = {
  protocolVersion: '2026-01-26',
  hostInfo: { name: 'fake-host', version: '1' },
  hostCapabilities: { openLinks: {}, serverTools: {} },
  hostContext: { toolInfo: { tool: { name: 'show_shelf' } }, availableDisplayModes: ['inline'] },
};

/** A window whose parent records every frame and answers `ui/initialize` (unless told not to). */
function fakeHost({ origin = 'https://host.example', answerInitialize = true, initializeResult = INITIALIZE_RESULT } = {}) {
  const listeners = new Set();
  const frames = [];
  const host = {
    frames,
    origin,
    onFrame: undefined,
    parent: {
      postMessage(message, targetOrigin) {
        frames.push({ message: structuredClone(message), targetOrigin });
        if (answerInitialize && message.method === 'ui/initialize') {
          queueMicrotask(() => host.deliver({ jsonrpc: '2.0', id: message.id, result: initializeResult }));
        }
        host.onFrame?.(message);
      },
    },
    window: {
      get parent() {
        return host.parent;
      },
      addEventListener(type, listener) {
        if (type === 'message') listeners.add(listener);
      },
      removeEventListener(type, listener) {
        if (type === 'message') listeners.delete(listener);
      },
    },
    listenerCount: () => listeners.size,
    deliver(data, { source = host.parent, origin: from = host.origin } = {}) {
      for (const listener of [...listeners]) listener({ data, source, origin: from });
    },
    methods: () => frames.map((frame) => frame.message.method ?? (frame.message.result ? 'result' : 'error')),
    last: (method) => frames.filter((frame) => frame.message.method === method).at(-1),
  };
  return host;
}

const client = (host, options = {}) =>
  createAppClient({ appInfo: { name: 'shelf', version: '1' }, window: host.window, ...options });
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));
const rejectsWith = (promise, code) =>
  assert.rejects(promise, (error) => {
    assert.ok(error instanceof AppClientError, `${error}`);
    assert.equal(error.code, code);
    return true;
  });

/** Answers the next `tools/call` frame with `result` (or a JSON-RPC `error`). */
function answerCalls(host, answer) {
  host.onFrame = (message) => {
    if (message.method === 'tools/call') {
      queueMicrotask(() => host.deliver({ jsonrpc: '2.0', id: message.id, ...answer(message) }));
    }
  };
}

describe('createAppClient misuse', () => {
  const host = fakeHost();
  it('throws a TypeError for an origin that is not an exact http(s) origin', () => {
    for (const targetOrigin of ['*', 'null', 'chrome-extension://x', 'https://host.example/', 'host.example', 'https://a.example:443x']) {
      assert.throws(() => client(host, { targetOrigin }), TypeError, targetOrigin);
    }
    assert.doesNotThrow(() => client(host, { targetOrigin: 'http://127.0.0.1:8123' }).dispose());
  });
  it('throws a TypeError for app info or capabilities that are not finite JSON objects', () => {
    assert.throws(() => createAppClient({ appInfo: null, window: host.window }), TypeError);
    assert.throws(() => createAppClient({ appInfo: { name: 'x', version: '1', n: Number.NaN }, window: host.window }), TypeError);
    assert.throws(() => client(host, { appCapabilities: new Map() }), TypeError);
    assert.throws(() => client(host, { appCapabilities: { f: () => 1 } }), TypeError);
  });
  it('throws a TypeError without a window', () => {
    assert.throws(() => createAppClient({ appInfo: { name: 'x', version: '1' } }), TypeError);
  });
  it('throws a RangeError for a timeout that is not an integer from 1 to 2^31 - 1 ms', () => {
    for (const timeoutMs of [0, -1, 1.5, 2 ** 31, Number.POSITIVE_INFINITY]) {
      assert.throws(() => client(host, { timeoutMs }), RangeError, String(timeoutMs));
    }
  });
  it('rejects a malformed route id, an empty method and an out-of-range request timeout', async () => {
    const c = client(fakeHost());
    await assert.rejects(c.call('show_shelf', {}), TypeError);
    await assert.rejects(c.call('tool:library/a/b', {}), TypeError);
    await assert.rejects(c.request(''), TypeError);
    await assert.rejects(c.request('ping', undefined, { timeoutMs: 0 }), RangeError);
    assert.throws(() => c.onToolResult('library/show_shelf', () => {}), TypeError);
    assert.throws(() => c.onToolInput('tool:library/show_shelf', 'not a function'), TypeError);
    c.dispose();
  });
});

describe('the handshake', () => {
  it('sends ui/initialize to the parent with "*", then ui/notifications/initialized', async () => {
    const host = fakeHost();
    const c = client(host, { appCapabilities: { availableDisplayModes: ['inline'] } });
    const result = await c.connect();
    assert.deepEqual(result, INITIALIZE_RESULT);
    const [initialize, initialized] = host.frames;
    assert.equal(initialize.targetOrigin, '*');
    assert.deepEqual(initialize.message.params, {
      appInfo: { name: 'shelf', version: '1' },
      appCapabilities: { availableDisplayModes: ['inline'] },
      protocolVersion: '2026-01-26',
    });
    assert.deepEqual(initialized.message, { jsonrpc: '2.0', method: 'ui/notifications/initialized' });
    // Idempotent: a connected client resolves the cached result, sending nothing.
    assert.equal(await c.connect(), result);
    assert.equal(host.frames.length, 2);
    c.dispose();
  });
  it('shares one in-flight handshake', async () => {
    const host = fakeHost();
    const c = client(host);
    const [a, b] = await Promise.all([c.connect(), c.connect()]);
    assert.equal(a, b);
    assert.equal(host.methods().filter((method) => method === 'ui/initialize').length, 1);
    c.dispose();
  });
  it('rejects an initialize result of another protocol version as invalid-message', async () => {
    const host = fakeHost({ initializeResult: { ...INITIALIZE_RESULT, protocolVersion: '2025-01-01' } });
    await rejectsWith(client(host).connect(), 'invalid-message');
  });
  it('uses and requires the exact targetOrigin when one is given', async () => {
    const host = fakeHost({ origin: 'https://host.example' });
    const c = client(host, { targetOrigin: 'https://host.example', timeoutMs: 50 });
    await c.connect();
    assert.ok(host.frames.every((frame) => frame.targetOrigin === 'https://host.example'));
    c.dispose();
    const foreign = fakeHost({ origin: 'https://evil.example' });
    await rejectsWith(client(foreign, { targetOrigin: 'https://host.example', timeoutMs: 50 }).connect(), 'timeout');
  });
});

describe('calls', () => {
  it('resolve to the structured result and carry the route id in _meta', async () => {
    const host = fakeHost();
    answerCalls(host, () => ({ result: { content: [], structuredContent: { shelf: 'reading', books: [] } } }));
    const c = client(host);
    assert.deepEqual(await c.call('tool:library/show_shelf', { shelf: 'reading' }), { shelf: 'reading', books: [] });
    const call = host.last('tools/call').message;
    assert.deepEqual(call.params, {
      name: 'show_shelf',
      arguments: { shelf: 'reading' },
      _meta: { 'agent-bundle/routeId': 'tool:library/show_shelf' },
    });
    c.dispose();
  });
  it('resolve to the value a model: content tool carries in _meta', async () => {
    const host = fakeHost();
    const value = { query: 'Le Guin', total: 0, books: [] };
    answerCalls(host, () => ({
      result: { content: [{ type: 'text', text: 'No book matches.' }], _meta: { 'abgen.dev/structuredContent': value } },
    }));
    const c = client(host);
    assert.deepEqual(await c.call('tool:library/search_books', { query: 'Le Guin' }), value);
    c.dispose();
  });

  it('reject an isError result as rpc with the whole result, and a result without an object structuredContent as invalid-message', async () => {
    const host = fakeHost();
    const failed = { content: [{ type: 'text', text: 'no such shelf' }], isError: true };
    answerCalls(host, (message) =>
      message.params.arguments.kind === 'error' ? { result: failed } : { result: { content: [], structuredContent: [1, 2] } },
    );
    const c = client(host);
    await assert.rejects(c.call('tool:library/show_shelf', { kind: 'error' }), (error) => {
      assert.equal(error.code, 'rpc');
      assert.deepEqual(error.data, failed);
      return true;
    });
    await rejectsWith(c.call('tool:library/show_shelf', { kind: 'array' }), 'invalid-message');
    c.dispose();
  });
  it('map JSON-RPC errors by code', async () => {
    const host = fakeHost();
    const codes = { a: -32601, b: -32001, c: -32000 };
    answerCalls(host, (message) => ({ error: { code: codes[message.params.arguments.k], message: 'no', data: { k: 1 } } }));
    const c = client(host);
    await rejectsWith(c.call('tool:s/t', { k: 'a' }), 'capability-unavailable');
    await rejectsWith(c.call('tool:s/t', { k: 'b' }), 'consent-required');
    await assert.rejects(c.call('tool:s/t', { k: 'c' }), (error) => error.code === 'rpc' && error.rpcCode === -32000 && error.data.k === 1);
    c.dispose();
  });
  it('time out at once and send notifications/cancelled naming the request', async () => {
    const host = fakeHost();
    const c = client(host);
    await c.connect();
    await rejectsWith(c.call('tool:s/slow', {}, { timeoutMs: 20 }), 'timeout');
    const call = host.last('tools/call').message;
    const cancelled = host.last('notifications/cancelled').message;
    assert.equal(cancelled.params.requestId, call.id);
    assert.match(cancelled.params.reason, /within 20 ms/);
    // A late answer is dropped.
    host.deliver({ jsonrpc: '2.0', id: call.id, result: { structuredContent: {} } });
    c.dispose();
  });
  it('abort at once and send notifications/cancelled; an aborted signal sends nothing', async () => {
    const host = fakeHost();
    const c = client(host);
    await c.connect();
    const controller = new AbortController();
    const call = c.call('tool:s/slow', {}, { signal: controller.signal });
    await tick();
    controller.abort();
    await rejectsWith(call, 'aborted');
    assert.equal(host.last('notifications/cancelled').message.params.requestId, host.last('tools/call').message.id);
    const before = host.frames.length;
    await rejectsWith(c.call('tool:s/slow', {}, { signal: AbortSignal.abort() }), 'aborted');
    assert.equal(host.frames.length, before, 'nothing is sent for an already aborted signal');
    c.dispose();
  });
});

describe('transport authentication', () => {
  it('ignores a frame from a foreign window, even one claiming the same origin', async () => {
    const host = fakeHost();
    const c = client(host);
    await c.connect();
    const call = c.call('tool:s/t', {}, { timeoutMs: 200 });
    await tick();
    const { id } = host.last('tools/call').message;
    host.deliver({ jsonrpc: '2.0', id, result: { structuredContent: { forged: true } } }, { source: { postMessage() {} } });
    host.deliver({ jsonrpc: '2.0', id, result: { structuredContent: { real: true } } });
    assert.deepEqual(await call, { real: true });
    c.dispose();
  });
  it('ignores a frame of the right window from a foreign origin when targetOrigin is given', async () => {
    const host = fakeHost();
    const c = client(host, { targetOrigin: 'https://host.example' });
    await c.connect();
    const call = c.call('tool:s/t', {});
    await tick();
    const { id } = host.last('tools/call').message;
    host.deliver({ jsonrpc: '2.0', id, result: { structuredContent: { forged: true } } }, { origin: 'https://evil.example' });
    host.deliver({ jsonrpc: '2.0', id, result: { structuredContent: { real: true } } });
    assert.deepEqual(await call, { real: true });
    c.dispose();
  });
  it('ignores frames that are not strict JSON-RPC', async () => {
    const host = fakeHost();
    const c = client(host);
    await c.connect();
    const call = c.call('tool:s/t', {});
    await tick();
    const { id } = host.last('tools/call').message;
    host.deliver({ id, result: { structuredContent: { noVersion: true } } });
    host.deliver('{"jsonrpc":"2.0"}');
    host.deliver({ jsonrpc: '2.0', id, result: { structuredContent: { real: true } } });
    assert.deepEqual(await call, { real: true });
    c.dispose();
  });
});

describe('lifecycle', () => {
  it('rebind rejects the old generation with connection-rebound, a handshake in flight included, and ignores its late answers', async () => {
    const host = fakeHost({ answerInitialize: false });
    const c = client(host);
    const first = c.connect();
    await tick();
    const oldInitialize = host.last('ui/initialize').message;
    const next = fakeHost();
    const rebound = c.rebind({ window: next.window });
    await rejectsWith(first, 'connection-rebound');
    // The old parent's late answer is no longer heard.
    host.deliver({ jsonrpc: '2.0', id: oldInitialize.id, result: INITIALIZE_RESULT });
    assert.deepEqual(await rebound, INITIALIZE_RESULT);
    assert.equal(host.listenerCount(), 0);
    answerCalls(next, () => ({ result: { structuredContent: { ok: 1 } } }));
    assert.deepEqual(await c.call('tool:s/t', {}), { ok: 1 });
    c.dispose();
  });
  it('rebind rejects a pending call and keeps the configured targetOrigin', async () => {
    const host = fakeHost();
    const c = client(host, { targetOrigin: 'https://host.example' });
    await c.connect();
    const call = c.call('tool:s/t', {});
    await tick();
    const rebound = c.rebind();
    await rejectsWith(call, 'connection-rebound');
    await rebound;
    assert.equal(host.last('ui/initialize').targetOrigin, 'https://host.example');
    c.dispose();
  });
  it('dispose rejects pending requests, removes the listener and is idempotent', async () => {
    const host = fakeHost();
    const c = client(host);
    await c.connect();
    const call = c.call('tool:s/t', {});
    await tick();
    c.dispose();
    c.dispose();
    await rejectsWith(call, 'disposed');
    assert.equal(host.listenerCount(), 0);
    await rejectsWith(c.connect(), 'disposed');
    await rejectsWith(c.call('tool:s/t', {}), 'disposed');
  });
  it('acknowledges ui/resource-teardown from the parent, then disposes; ignores it from another window', async () => {
    const host = fakeHost();
    const c = client(host);
    await c.connect();
    host.deliver({ jsonrpc: '2.0', id: 'td-1', method: 'ui/resource-teardown', params: {} }, { source: { postMessage() {} } });
    assert.equal(host.listenerCount(), 1);
    const call = c.call('tool:s/t', {});
    await tick();
    host.deliver({ jsonrpc: '2.0', id: 'td-2', method: 'ui/resource-teardown', params: {} });
    assert.deepEqual(host.frames.at(-1).message, { jsonrpc: '2.0', id: 'td-2', result: {} });
    await rejectsWith(call, 'disposed');
    assert.equal(host.listenerCount(), 0);
  });
});

describe('opening notifications', () => {
  it('reach the listeners of the opening tool only, decoded', async () => {
    const host = fakeHost();
    const c = client(host);
    const seen = [];
    c.onToolInput('tool:library/show_shelf', (input) => seen.push(['input', input]));
    c.onToolResult('tool:library/show_shelf', (result) => seen.push(['result', result]));
    c.onToolError('tool:library/show_shelf', (error) => seen.push(['error', error.code]));
    c.onToolResult('tool:library/search_books', (result) => seen.push(['other', result]));
    const stop = c.onToolCancelled((cancelled) => seen.push(['cancelled', cancelled]));
    c.onToolResult('tool:library/show_shelf', () => {
      throw new Error('a listener failing is dropped');
    });
    await c.connect();
    host.deliver({ jsonrpc: '2.0', method: 'ui/notifications/tool-input', params: { arguments: { shelf: 'reading' } } });
    host.deliver({ jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: { content: [], structuredContent: { shelf: 'reading' } } });
    host.deliver({ jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: { content: [], isError: true } });
    host.deliver({ jsonrpc: '2.0', method: 'ui/notifications/tool-cancelled', params: { reason: 'user' } });
    await tick();
    // After unsubscribing, nothing more arrives.
    stop();
    host.deliver({ jsonrpc: '2.0', method: 'ui/notifications/tool-cancelled', params: {} });
    await tick();
    assert.deepEqual(seen, [
      ['input', { shelf: 'reading' }],
      ['result', { shelf: 'reading' }],
      ['error', 'rpc'],
      ['cancelled', { reason: 'user' }],
    ]);
    c.dispose();
  });
  it('reach no listener when the handshake names no tool', async () => {
    const host = fakeHost({ initializeResult: { ...INITIALIZE_RESULT, hostContext: {} } });
    const c = client(host);
    const seen = [];
    c.onToolResult('tool:library/show_shelf', (result) => seen.push(result));
    await c.connect();
    host.deliver({ jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: { structuredContent: {} } });
    await tick();
    assert.deepEqual(seen, []);
    c.dispose();
  });
});

describe('host features', () => {
  it('map to their ui/* methods, and a capability the host lacks is capability-unavailable', async () => {
    const host = fakeHost();
    host.onFrame = (message) => {
      if (message.method?.startsWith('ui/') && message.id !== undefined && message.method !== 'ui/initialize') {
        queueMicrotask(() => host.deliver({ jsonrpc: '2.0', id: message.id, result: message.method === 'ui/request-display-mode' ? { mode: 'inline' } : {} }));
      }
    };
    const c = client(host);
    await c.openLink('https://example.com/book');
    assert.deepEqual(host.last('ui/open-link').message.params, { url: 'https://example.com/book' });
    await rejectsWith(c.sendMessage('hello'), 'capability-unavailable');
    await rejectsWith(c.updateModelContext({ structuredContent: { a: 1 } }), 'capability-unavailable');
    assert.equal(await c.requestDisplayMode('inline'), 'inline');
    await rejectsWith(c.requestDisplayMode('fullscreen'), 'capability-unavailable');
    c.sendSizeChanged({ width: 300, height: 200 });
    assert.deepEqual(host.last('ui/notifications/size-changed').message.params, { width: 300, height: 200 });
    const stop = c.autoResize({ scrollWidth: 640, scrollHeight: 480.2 });
    await tick();
    assert.deepEqual(host.last('ui/notifications/size-changed').message.params, { width: 640, height: 481 });
    stop();
    c.dispose();
  });
});
