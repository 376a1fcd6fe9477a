// Bundles a worker entry file into one ESM file: `node bundle-worker.mjs <entry.tsx> <out.mjs>`.
// The compiler does the same with esbuild for a plugin; tests use this script.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { bundleFlightEntry } from './bundle.mjs';

const [entry, outfile] = process.argv.slice(2);
if (entry === undefined || outfile === undefined) {
  console.error('usage: node bundle-worker.mjs <entry.tsx> <out.mjs>');
  process.exit(2);
}
const entryPath = resolve(entry);
await bundleFlightEntry({ contents: readFileSync(entryPath, 'utf8'), resolveDir: dirname(entryPath), outfile: resolve(outfile) });
