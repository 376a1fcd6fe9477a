// Bundles abgen's generated render worker entry with esbuild and writes the bundle to stdout.
// Run by `abgen build` as `node esbuild-worker.mjs '<request JSON>'`; the request is
// { entry, absWorkingDir, nodePaths, sourcefile }. esbuild itself and the runtime packages are
// resolved from nodePaths (abgen's own node_modules), so a project without node_modules builds.
// On failure it prints one line per esbuild error to stderr and exits 1.
import { createRequire } from 'node:module';
import { join } from 'node:path';

const request = JSON.parse(process.argv[process.argv.length - 1]);
const requireFromToolchain = createRequire(join(request.nodePaths[0], 'abgen-toolchain.cjs'));
const esbuild = requireFromToolchain('esbuild');

// React's CJS server build calls require() for Node built-ins, which ESM output lacks.
const banner = "import { createRequire as __abgenCreateRequire } from 'node:module'; const require = __abgenCreateRequire(import.meta.url);";

try {
  const result = await esbuild.build({
    stdin: {
      contents: request.entry,
      resolveDir: request.absWorkingDir,
      sourcefile: request.sourcefile,
      loader: 'js',
    },
    absWorkingDir: request.absWorkingDir,
    nodePaths: request.nodePaths,
    bundle: true,
    write: false,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['react-server'],
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    banner: { js: banner },
    legalComments: 'none',
    logLevel: 'silent',
  });
  process.stdout.write(result.outputFiles[0].contents);
} catch (error) {
  for (const message of error.errors ?? [{ text: String(error) }]) {
    const where = message.location ? `${message.location.file}:${message.location.line}: ` : '';
    process.stderr.write(`${where}${message.text}\n`);
  }
  process.exitCode = 1;
}
