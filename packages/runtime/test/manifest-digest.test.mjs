// The artifact digest as a render worker reads it: from the head of a canonical manifest, never
// its routes; from the whole file when the layout is another.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { manifestDigest } from '../scripts/manifest-digest.mjs';

const workDir = mkdtempSync(join(tmpdir(), 'abgen-manifest-digest-test-'));
after(() => rmSync(workDir, { recursive: true, force: true }));

const digest = 'd1'.repeat(32);

/**
 * A manifest in the canonical layout (keys sorted, two spaces of indent) with `description`, and
 * a route whose description holds the digest line's text (escaped, as in any JSON string).
 */
function canonical(description) {
  const manifest = {
    application: { description, name: 'notes', version: '1.0.0' },
    cli: { bin: 'notes', commands: [] },
    digest,
    files: [{ mode: 420, path: 'plugin.json', sha256: 'ab'.repeat(32) }],
    routes: [{ id: 'tool:notes/a', description: '\n  "digest": "not this one"' }],
  };
  return JSON.stringify(manifest, null, 2) + '\n';
}

function write(name, text) {
  const path = join(workDir, name);
  writeFileSync(path, text);
  return path;
}

test('the digest is read from the head of a canonical manifest, not from its routes', () => {
  // Past the routes the text is no JSON at all: a reader of the whole file would fail.
  const text = canonical('Notes') + '{'.repeat(4 << 20);
  assert.equal(manifestDigest(write('broken-tail.json', text)), digest);
});

test('a digest line split between two reads, after text of several bytes a character, is read', () => {
  // The head is read 16 KiB at a time: descriptions of every length around that boundary put
  // the digest line, and the three-byte characters before it, across it. The tail is broken, so
  // only the head can give the digest.
  for (let length = 16_000; length < 16_400; length += 1) {
    const description = '€'.repeat(Math.floor(length / 3)) + 'x'.repeat(length % 3);
    const text = canonical(description) + '{';
    assert.equal(manifestDigest(write('boundary.json', text)), digest, `${length}`);
  }
});

test('a manifest in another layout is read whole', () => {
  assert.equal(manifestDigest(write('minified.json', JSON.stringify({ routes: [], digest }))), digest);
  assert.equal(manifestDigest(write('indented.json', JSON.stringify({ files: [], digest }, null, 2))), digest);
});

test('no manifest, no JSON or no string digest is no digest', () => {
  assert.equal(manifestDigest(join(workDir, 'missing.json')), undefined);
  assert.equal(manifestDigest(write('not-json.json', 'digest')), undefined);
  assert.equal(manifestDigest(write('number.json', JSON.stringify({ digest: 7 }))), undefined);
});
