// Bundles a Flight worker (or any entry that renders with react-server-dom-webpack) into one ES
// module file that runs under `node --conditions=react-server`, the way `abgen build` does: as
// CommonJS wrapped for V8's code cache when it can be (see code-cache.mjs), else as an ES module
// whose banner gives the bundle a `require` (React's server build requires Node built-ins).
import { writeFileSync } from 'node:fs';
import * as esbuild from 'esbuild';
import { buildWorker } from './code-cache.mjs';

/**
 * Bundles `contents` (TSX, resolved from `resolveDir`) into `outfile`.
 * @param {{ contents: string, resolveDir: string, outfile: string }} options
 */
export async function bundleFlightEntry({ contents, resolveDir, outfile }) {
  const { result, text } = await buildWorker(esbuild, {
    stdin: { contents, resolveDir, loader: 'tsx', sourcefile: 'entry.tsx' },
    bundle: true,
    platform: 'node',
    target: 'node20',
    conditions: ['react-server'],
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'warning',
  });
  for (const warning of result.warnings) process.stderr.write(`bundle warning: ${warning.text}\n`);
  writeFileSync(outfile, text);
}
