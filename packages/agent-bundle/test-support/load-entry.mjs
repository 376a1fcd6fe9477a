// Loads a TypeScript entry of this package the way plugins consume it: bundled by esbuild.
// Each entry is bundled once into a temporary ES module and imported from there.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const packageRoot = fileURLToPath(new URL('..', import.meta.url));
const outDir = mkdtempSync(join(tmpdir(), 'agent-bundle-test-'));
after(() => rmSync(outDir, { recursive: true, force: true }));

/**
 * Bundles `src/<entry>/index.ts` and imports the result.
 * @param {'routes' | 'config' | 'mcp-entry' | 'launch-env'} entry
 */
export async function loadEntry(entry) {
  return import(pathToFileURL(await bundleEntry(entry)).href);
}

/**
 * Bundles `src/<entry>/index.ts` into a temporary ES module and returns its path.
 * @param {'routes' | 'config' | 'mcp-entry' | 'launch-env'} entry
 */
export async function bundleEntry(entry) {
  const outfile = join(outDir, `${entry}.mjs`);
  await build({
    entryPoints: [join(packageRoot, 'src', entry, 'index.ts')],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    packages: 'external',
    logLevel: 'silent',
  });
  return outfile;
}

/**
 * Bundles one TypeScript module (of this package or a sibling) into a temporary ES module and
 * returns its file URL, for tests of modules that are not an entry of their own.
 */
export async function bundleFile(file, name) {
  const outfile = join(outDir, `${name}.mjs`);
  await build({
    entryPoints: [file],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    packages: 'external',
    logLevel: 'silent',
  });
  return pathToFileURL(outfile).href;
}
