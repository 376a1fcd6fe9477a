// The size of an MCP App that only connects to its host, built with the framework's client
// (`agent-bundle/app`) and with ext-apps' own `App`, both as abgen builds App documents
// (templates/esbuild-app.mjs: an ES module browser bundle, minified, es2022, production React
// defines). Prints the bytes and gzip bytes of each bundle and the ratio.
//
// Usage: node bench/apps/size.mjs [--json]
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const esbuild = createRequire(join(root, 'package.json'))('esbuild');

const entries = {
  'agent-bundle/app': `import { createAppClient } from 'agent-bundle/app';
await createAppClient({ appInfo: { name: 'size', version: '1' } }).connect();
`,
  '@modelcontextprotocol/ext-apps': `import { App } from '@modelcontextprotocol/ext-apps';
await new App({ name: 'size', version: '1' }).connect();
`,
};

const sizes = {};
for (const [name, contents] of Object.entries(entries)) {
  const result = await esbuild.build({
    stdin: { contents, resolveDir: root, sourcefile: 'size-app.js', loader: 'js' },
    absWorkingDir: root,
    bundle: true,
    write: false,
    platform: 'browser',
    format: 'esm',
    target: ['es2022'],
    minify: true,
    legalComments: 'none',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  });
  const bytes = result.outputFiles[0].contents;
  sizes[name] = { bytes: bytes.length, gzipBytes: gzipSync(bytes).length };
}
const ours = sizes['agent-bundle/app'];
const theirs = sizes['@modelcontextprotocol/ext-apps'];
const ratio = { bytes: ours.bytes / theirs.bytes, gzipBytes: ours.gzipBytes / theirs.gzipBytes };
if (process.argv.includes('--json')) {
  process.stdout.write(`${JSON.stringify({ sizes, ratio })}\n`);
} else {
  for (const [name, size] of Object.entries(sizes)) {
    console.log(`${name.padEnd(32)} ${String(size.bytes).padStart(8)} B ${String(size.gzipBytes).padStart(8)} B gzip`);
  }
  console.log(`${'ratio (ours / theirs)'.padEnd(32)} ${ratio.bytes.toFixed(3).padStart(8)}   ${ratio.gzipBytes.toFixed(3).padStart(8)}`);
}
