// Bundles a Flight worker (or any entry that renders with react-server-dom-webpack) into one ESM
// file that runs under `node --conditions=react-server`. The banner gives the bundle a `require`:
// React's server build requires Node built-ins, which esbuild's ESM output cannot do without it.
import { build } from 'esbuild';

export const REQUIRE_BANNER =
  "import { createRequire as __abgenCreateRequire } from 'node:module'; const require = __abgenCreateRequire(import.meta.url);";

/**
 * Bundles `contents` (TSX, resolved from `resolveDir`) into `outfile`.
 * @param {{ contents: string, resolveDir: string, outfile: string }} options
 */
export async function bundleFlightEntry({ contents, resolveDir, outfile }) {
  await build({
    stdin: { contents, resolveDir, loader: 'tsx', sourcefile: 'entry.tsx' },
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['react-server'],
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    banner: { js: REQUIRE_BANNER },
    logLevel: 'warning',
  });
}
