// The worker bundle's first render loads neither Node's `undici` (the lazy `FormData` global) nor
// `crypto` (React's unused bare `require`), and a `FormData` still serializes as React serializes it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { bundleFlightEntry } from '../scripts/bundle.mjs';
import { REQUIRE_BANNER } from '../scripts/code-cache.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const workDir = mkdtempSync(join(tmpdir(), 'abgen-react-server-build-test-'));
after(() => rmSync(workDir, { recursive: true, force: true }));

/**
 * Renders a tree of plain objects, says whether `undici` and `crypto` are loaded, then renders a
 * `FormData` model and prints one JSON line: `{ undiciAfterRender, cryptoAfterRender, formData }`.
 */
const ENTRY = `
import { createElement } from 'react';
import { renderToReadableStream } from 'react-server-dom-webpack/server';

async function text(model) {
  const reader = renderToReadableStream(model, {}).getReader();
  let out = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return out;
    out += new TextDecoder().decode(value);
  }
}

const undici = () => process.moduleLoadList.some((name) => name.includes('undici'));
await text(createElement('div', { style: { color: 'red' } }, createElement('span', null, 'x')));
await text({ nested: { list: [{ a: 1 }], map: new Map([['k', { v: 2 }]]) } });
const undiciAfterRender = undici();
const cryptoAfterRender = process.moduleLoadList.includes('NativeModule crypto');
const form = new FormData();
form.append('name', 'value');
const formData = await text({ form });
console.log(JSON.stringify({ undiciAfterRender, cryptoAfterRender, formData }));
`;

function run(bundle) {
  const output = execFileSync(process.execPath, ['--conditions=react-server', bundle], { encoding: 'utf8', env: { ...process.env, NODE_ENV: 'production' } });
  return JSON.parse(output.trim().split('\n').pop());
}

test("the worker bundle loads no crypto, and its render reads the FormData global only for a FormData", async () => {
  const bundle = join(workDir, 'worker.mjs');
  await bundleFlightEntry({ contents: ENTRY, resolveDir: here, outfile: bundle });
  const { undiciAfterRender, cryptoAfterRender, formData } = run(bundle);
  assert.equal(undiciAfterRender, false, 'rendering plain objects loaded undici');
  assert.equal(cryptoAfterRender, false, 'loading and rendering loaded crypto');
  assert.match(formData, /"\$K[0-9a-f]+"/, 'the FormData is outlined as React outlines one');
  assert.match(formData, /\["name","value"\]/);
});

test("without the rewrites, React's build loads crypto and its check undici on the first object (what they are for)", async () => {
  const bundle = join(workDir, 'plain.mjs');
  await esbuild.build({
    stdin: { contents: ENTRY, resolveDir: here, loader: 'js', sourcefile: 'entry.mjs' },
    outfile: bundle,
    bundle: true,
    platform: 'node',
    format: 'esm',
    conditions: ['react-server'],
    define: { 'process.env.NODE_ENV': '"production"' },
    banner: { js: REQUIRE_BANNER },
    logLevel: 'warning',
  });
  const plain = run(bundle);
  assert.equal(plain.undiciAfterRender, true);
  assert.equal(plain.cryptoAfterRender, true);
  assert.match(plain.formData, /"\$K[0-9a-f]+"/);
});
