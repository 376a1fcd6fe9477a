// Bundles abgen's generated render worker entry (or a stdio server's generated entry) with
// esbuild and writes the bundle to stdout. Run by `abgen build` as
// `node esbuild-worker.mjs '<request JSON>'`; the request is
// { entry, absWorkingDir, nodePaths, sourcefile, kind? }: kind 'stdio-entry' bundles a
// handwritten MCP server, which renders nothing, so it gets no react-server condition and no
// 'use client' check. esbuild itself and the runtime packages are
// resolved from nodePaths (abgen's own node_modules), so a project without node_modules builds.
// On failure it prints one line per esbuild error to stderr and exits 1. A module of the graph
// (read from esbuild's metafile) that starts with a 'use client' directive is such an error too:
// routes render only on the server, and Agent Documents hold no client components.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const request = JSON.parse(process.argv[process.argv.length - 1]);
const requireFromToolchain = createRequire(join(request.nodePaths[0], 'abgen-toolchain.cjs'));
const esbuild = requireFromToolchain('esbuild');

// The worker is built as CommonJS wrapped for V8's code cache when it can be, else as an ES
// module (the shared rules live with the runtime package, in scripts/code-cache.mjs).
const { buildWorker } = await import(pathToFileURL(requireFromToolchain.resolve('@agent-bundle/runtime/code-cache')).href);

try {
  const { result, text } = await buildWorker(esbuild, {
    stdin: {
      contents: request.entry,
      resolveDir: request.absWorkingDir,
      sourcefile: request.sourcefile,
      loader: 'js',
    },
    absWorkingDir: request.absWorkingDir,
    nodePaths: request.nodePaths,
    bundle: true,
    platform: 'node',
    target: 'node20',
    conditions: request.kind === 'stdio-entry' ? [] : ['react-server'],
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    legalComments: 'none',
    logLevel: 'silent',
    metafile: true,
  });
  const clientModules = request.kind === 'stdio-entry' ? [] : useClientModules(result.metafile, request.absWorkingDir);
  if (clientModules.length > 0) {
    throw { errors: clientModules.map(({ file, importer }) => ({
      text: `'use client' module in the render worker's module graph (imported by ${importer}); routes render on the server only, and Agent Documents hold no client components`,
      location: { file, line: 1 },
    })) };
  }
  process.stdout.write(text);
} catch (error) {
  for (const message of error.errors ?? [{ text: String(error) }]) {
    const where = message.location ? `${message.location.file}:${message.location.line}: ` : '';
    process.stderr.write(`${where}${message.text}\n`);
  }
  process.exitCode = 1;
}

/** The inputs of `metafile` whose source starts with a 'use client' directive, with an importer. */
function useClientModules(metafile, root) {
  const found = [];
  for (const file of Object.keys(metafile.inputs)) {
    let source;
    try {
      source = readFileSync(join(root, file), 'utf8');
    } catch {
      continue; // <stdin> and other virtual inputs
    }
    if (!startsWithUseClient(source)) continue;
    const importer = Object.entries(metafile.inputs).find(([, input]) => input.imports.some((entry) => entry.path === file));
    found.push({ file, importer: importer ? importer[0] : 'the worker entry' });
  }
  return found.sort((a, b) => a.file.localeCompare(b.file));
}

/** Whether the directive prologue of `source` holds 'use client' (comments and a hashbang skipped). */
function startsWithUseClient(source) {
  const prologue = /^(?:#![^\n]*\n)?(?:\s+|\/\/[^\n]*|\/\*[\s\S]*?\*\/|(['"])(?:(?!\1)[^\\\n])*\1\s*;?)*/.exec(source)[0];
  return /(['"])use client\1/.test(prologue);
}
