// What esbuild alone needs to rebuild the render worker of a large project after a one-file
// change: the floor of any `abgen dev` that ships one worker bundle.
//
// The entry has the shape of the one `abgen build` generates (the runtime's `startWorker` with
// every module under `src/` imported lazily), and is built with the options
// `templates/esbuild-worker.mjs` passes (CommonJS, whitespace-minified, `react-server`
// conditions, a metafile) in one `esbuild.context()`, as `abgen dev`'s served bundler keeps it.
// After a first build, each round rewrites one route's description and times `rebuild()`.
// Variants: `base` (those options), `no-metafile`, `no-minify`, `no-tree-shaking`, and
// `splitting` (ES modules, a chunk per lazy import).
//
// Usage: node bench/dev/esbuild-floor.mjs <project> [rounds] [variant...]
// (the project of `gen-projects --routes 1000`; esbuild and the packages from the repository's
// node_modules). Prints one JSON line per variant; restores the route it rewrote.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generatedEntry } from './generated-entry.mjs';

const [project, roundsArg, ...variantArgs] = process.argv.slice(2);
if (!project) throw new Error('usage: node bench/dev/esbuild-floor.mjs <project> [rounds] [variant...]');
const rounds = Number(roundsArg ?? 5);
const variants = variantArgs.length > 0 ? variantArgs : ['base', 'no-metafile', 'no-minify', 'no-tree-shaking', 'splitting'];
const repository = new URL('../..', import.meta.url).pathname;
const esbuild = createRequire(join(repository, 'node_modules/')).resolve('esbuild');
const { context } = await import(esbuild);

const { entry, route } = generatedEntry(project);

function options(variant) {
  const outdir = mkdtempSync(join(tmpdir(), 'abgen-esbuild-floor-'));
  return {
    outdir,
    options: {
      stdin: { contents: entry, resolveDir: project, sourcefile: 'abgen-worker-entry.mjs', loader: 'js' },
      absWorkingDir: project,
      nodePaths: [join(repository, 'node_modules')],
      bundle: true,
      platform: 'node',
      target: 'node20',
      conditions: ['react-server'],
      jsx: 'automatic',
      define: { 'process.env.NODE_ENV': '"production"' },
      legalComments: 'none',
      logLevel: 'silent',
      write: false,
      metafile: variant !== 'no-metafile',
      format: variant === 'splitting' ? 'esm' : 'cjs',
      minifyWhitespace: variant !== 'no-minify',
      ...(variant === 'no-tree-shaking' ? { treeShaking: false } : {}),
      ...(variant === 'splitting' ? { splitting: true, outdir } : {}),
    },
  };
}

const original = readFileSync(route, 'utf8');
try {
  for (const variant of variants) {
    const { outdir, options: built } = options(variant);
    const kept = await context(built);
    let started = performance.now();
    let result = await kept.rebuild();
    const first = performance.now() - started;
    const rebuilds = [];
    for (let round = 0; round < rounds; round += 1) {
      writeFileSync(route, original.replace(/(description:\s*)'([^']*)'/, `$1'esbuild floor ${variant} ${round}'`));
      started = performance.now();
      result = await kept.rebuild();
      rebuilds.push(Math.round(performance.now() - started));
    }
    await kept.dispose();
    rmSync(outdir, { recursive: true, force: true });
    const bytes = result.outputFiles.reduce((sum, file) => sum + file.contents.length, 0);
    console.log(JSON.stringify({ variant, firstMs: Math.round(first), rebuildMs: rebuilds, files: result.outputFiles.length, bytes }));
  }
} finally {
  writeFileSync(route, original);
}
