import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadEntry } from '../test-support/load-entry.mjs';

const config = await loadEntry('config');

describe('defineConfig', () => {
  it('returns the very object it is given', () => {
    const value = { plugin: { name: 'curator' }, targets: ['claude'] };
    assert.equal(config.defineConfig(value), value);
    assert.deepEqual(value, { plugin: { name: 'curator' }, targets: ['claude'] });
  });

  it('is the entry\'s only value export', () => {
    assert.deepEqual(Object.keys(config), ['defineConfig']);
  });
});
