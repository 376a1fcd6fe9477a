import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadEntry } from '../test-support/load-entry.mjs';

const routes = await loadEntry('routes');

// ARCHITECTURE.md §3, "Event vocabulary": agent-bundle's canonical events plus `file/saved`,
// `notification` and `turn/interrupt`. Kept here as a second, independent copy on purpose.
const ARCHITECTURE_VOCABULARY = [
  'session/start', 'session/end', 'prompt/submit', 'agent/start', 'agent/stop', 'agent/idle',
  'tool/before', 'tool/after', 'tool/failure', 'permission/request', 'permission/denied',
  'compact/before', 'compact/after', 'stop', 'stop/failure', 'config/change', 'task/create',
  'task/complete', 'model-switch/before', 'model-switch/after', 'workspace/open', 'file/saved',
  'notification', 'turn/interrupt',
];

/** `model-switch/before` → ['modelSwitch', 'before'], as authors write it. */
function pathOf(name) {
  return name.split('/').map((segment) => segment.replace(/-([a-z])/g, (_, c) => c.toUpperCase()));
}

/** Every callable helper reachable in `events`, by its property path. */
function helpersIn(namespace, prefix = []) {
  const found = [];
  for (const [key, value] of Object.entries(namespace)) {
    const path = [...prefix, key];
    if (typeof value === 'function') found.push(path.join('.'));
    if (typeof value === 'function' || (typeof value === 'object' && value !== null)) {
      found.push(...helpersIn(value, path));
    }
  }
  return found;
}

describe('defineTool', () => {
  const options = { description: 'Finds books.', inputSchema: {}, resultSchema: {} };
  const handler = () => null;

  it('returns the frozen contract object and nothing else', () => {
    const definition = routes.defineTool(options, handler);
    assert.deepEqual(Object.keys(definition), ['kind', 'options', 'handler']);
    assert.equal(definition.kind, 'tool');
    assert.equal(definition.options, options, 'options are passed through, not copied');
    assert.equal(definition.handler, handler);
    assert.ok(Object.isFrozen(definition));
    assert.equal(Object.getPrototypeOf(definition), Object.prototype, 'a plain object');
    assert.ok(!('event' in definition));
  });

  it('neither validates nor touches the options', () => {
    const loose = { anything: true };
    const definition = routes.defineTool(loose, 'not a function');
    assert.equal(definition.options, loose);
    assert.equal(definition.handler, 'not a function');
    assert.ok(!Object.isFrozen(loose), "the author's object stays the author's");
    assert.deepEqual(loose, { anything: true });
  });

  it('does not call the handler', () => {
    let calls = 0;
    routes.defineTool(options, () => { calls += 1; });
    assert.equal(calls, 0);
  });
});

describe('events', () => {
  it('lists exactly the vocabulary of ARCHITECTURE.md', () => {
    assert.deepEqual([...routes.EVENT_NAMES].sort(), [...ARCHITECTURE_VOCABULARY].sort());
    assert.equal(new Set(routes.EVENT_NAMES).size, routes.EVENT_NAMES.length, 'no duplicates');
    assert.deepEqual(routes.EVENT_ALIASES, { 'file/change': 'file/saved' });
  });

  it('has one helper per name and alias, at its camelCase path', () => {
    const expected = [...ARCHITECTURE_VOCABULARY, 'file/change'].map((name) => pathOf(name).join('.'));
    assert.deepEqual(helpersIn(routes.events).sort(), expected.sort());
  });

  for (const name of [...ARCHITECTURE_VOCABULARY, 'file/change']) {
    it(`events.${pathOf(name).join('.')} returns the frozen contract object for '${name}'`, () => {
      const helper = pathOf(name).reduce((node, key) => node[key], routes.events);
      const options = { tools: ['file.write'] };
      const handler = () => null;
      const definition = helper(options, handler);
      assert.deepEqual(Object.keys(definition), ['kind', 'event', 'options', 'handler']);
      assert.deepEqual(definition, { kind: 'event', event: name, options, handler });
      assert.equal(definition.options, options);
      assert.ok(Object.isFrozen(definition));
      assert.equal(Object.getPrototypeOf(definition), Object.prototype);
    });
  }

  it('keeps single-segment and family helpers apart where they share a name', () => {
    assert.equal(routes.events.stop({}, () => null).event, 'stop');
    assert.equal(routes.events.stop.failure({}, () => null).event, 'stop/failure');
    assert.equal(routes.events.notification({}, () => null).event, 'notification');
  });

  it('cannot be changed by a route module', () => {
    assert.ok(Object.isFrozen(routes.events));
    assert.ok(Object.isFrozen(routes.events.tool));
    assert.ok(Object.isFrozen(routes.events.stop));
    assert.throws(() => { routes.events.tool.after = () => 'hijacked'; }, TypeError);
  });
});

describe('appResourceUri', () => {
  it('returns an unresolved ui:// reference the compiler replaces', () => {
    assert.equal(routes.appResourceUri('shelf_viewer'), 'ui://app-ref/shelf_viewer');
  });
});

describe('entry surface', () => {
  it('exports only the documented values', () => {
    assert.deepEqual(Object.keys(routes).sort(), [
      'EVENT_ALIASES', 'EVENT_NAMES', 'appResourceUri', 'defineTool', 'events',
    ]);
  });
});
