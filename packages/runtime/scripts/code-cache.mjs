// Builds the render worker so that V8 can reuse its compiled code from one process to the next.
//
// A cold render spends most of its time above Node's own start compiling and first running the
// ~1 MB bundle (React, the Flight server, zod). Node 20 has no code cache for ES modules, so the
// bundle is built as CommonJS and wrapped in a small ES module (the `runtime/worker.mjs` Node
// runs) that compiles it with `vm.Script` and V8's cached data. The cache lives under the
// plugin's state directory (one the host names, else the plugin's state root), keyed by artifact
// digest, Node version and architecture, and never inside the artifact, which is hash-listed and
// may be read-only. A bundle that CommonJS cannot
// express (top-level await, `import.meta` beyond `url`) is emitted as a plain ES module instead.
//
// Both bundlers use this: templates/esbuild-worker.mjs (`abgen build`) and scripts/bundle.mjs
// (the runtime's tests and benchmarks). It also keeps a cold start from loading Node's `undici`
// and `crypto` (scripts/react-server-build.mjs, scripts/state-root.mjs).

import { reactServerBuildPlugin } from './react-server-build.mjs';
import { manifestDigest } from './manifest-digest.mjs';
import { defaultStateRoot, sha256Hex } from './state-root.mjs';

/** How the bundle's own `import.meta.url` is passed in: the URL of the wrapping module. */
const IMPORT_META_URL = '__abgenImportMetaUrl';

/** React's CJS server build calls require() for Node built-ins, which ESM output lacks. */
export const REQUIRE_BANNER =
  "import { createRequire as __abgenCreateRequire } from 'node:module'; const require = __abgenCreateRequire(import.meta.url);";

/**
 * Runs `esbuild.build(options)` for the worker and returns the build result with the text of
 * `runtime/worker.mjs`: the CommonJS bundle wrapped for the code cache, or, when the bundle
 * cannot be CommonJS, the ES module bundle as before.
 * @param {typeof import('esbuild')} esbuild
 * @param {import('esbuild').BuildOptions} options bundle options without format, banner, outfile
 */
export async function buildWorker(esbuild, options) {
  options = { ...options, plugins: [...(options.plugins ?? []), reactServerBuildPlugin()] };
  const commonJs = await esbuild
    .build({
      ...options,
      write: false,
      format: 'cjs',
      define: { ...options.define, 'import.meta.url': IMPORT_META_URL },
      // No comments (and so, almost always, no `*/`: the bundle can ride in a comment) and less
      // to scan; names stay, so stack traces still read.
      minifyWhitespace: true,
      legalComments: 'none',
      logLevel: 'silent',
    })
    .catch((error) => {
      if (!needsModuleFormat(error.errors ?? [])) throw error;
      return undefined;
    });
  if (commonJs !== undefined && !needsModuleFormat(commonJs.warnings)) {
    return { result: commonJs, text: wrapWithCodeCache(commonJs.outputFiles[0].text) };
  }
  const module = await esbuild.build({
    ...options,
    write: false,
    format: 'esm',
    banner: { js: REQUIRE_BANNER },
  });
  return { result: module, text: module.outputFiles[0].text };
}

/** Whether esbuild's messages say the bundle needs the ES module format. */
function needsModuleFormat(messages) {
  return messages.some(({ text }) => /top-level await|"import\.meta"|import\.meta is not available/i.test(text));
}

/** Opens the comment that holds the bundle (never written whole in the loader's own text). */
const BUNDLE_START = ['/*', 'abgen-commonjs-bundle\n'];

/**
 * The ES module that compiles `commonJs` with V8's code cache and runs it. The bundle rides in
 * a trailing block comment, which V8 skips at memchr speed, and is read back from the module's
 * own file; a bundle holding `*\/` (which would end the comment) is a JSON string instead,
 * which costs V8 a few milliseconds more to scan. `abgen build` then moves a trailing comment's
 * bundle to a file of its own beside the module, `run(...siblingBundle())`: Node's module loader
 * still compiles and decodes a comment it skips (~110 ms for the 4 MB worker of a 1,000-route
 * plugin).
 * @param {string} commonJs
 */
export function wrapWithCodeCache(commonJs) {
  if (commonJs.includes('*/')) return `${LOADER}\nrun(${JSON.stringify(commonJs)});\n`;
  return `${LOADER}\nrun(ownBundle());\n${BUNDLE_START.join('')}${commonJs}\n*/\n`;
}

// Kept as a function so the loader is ordinary, checked code; its text is what the bundle holds.
function loader() {
  // abgen-host does not ask Node its version before a start (that costs a process): an older
  // Node ends here, before the hello, and abgen-host then asks it and says why
  // (`MIN_NODE_MAJOR`, runtime/src/worker/node.rs).
  if (Number(process.versions.node.split('.')[0]) < 20) {
    process.stderr.write(`abgen: the render worker needs Node.js 20 or newer; this is ${process.version}\n`);
    process.exit(1);
  }
  const filename = fileURLToPath(import.meta.url);

  /**
   * Compiles and runs the CommonJS `source` as this module, with V8's cached data when there is
   * some; `sourceFile` is the file its stack traces name.
   */
  function run(source, sourceFile = filename) {
    const cacheFile = codeCacheFile();
    let cachedData;
    if (cacheFile !== undefined) {
      try {
        cachedData = readFileSync(cacheFile);
      } catch {
        // No cache yet (or unreadable): compile from source and write one.
      }
    }
    const script = new vm.Script(
      `(function (exports, require, module, __filename, __dirname, ${IMPORT_META_URL}) {"use strict";${source}\n})`,
      { filename: sourceFile, cachedData, importModuleDynamically: vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER },
    );
    const module = { exports: {} };
    script.runInThisContext()(module.exports, createRequire(filename), module, filename, dirname(filename), import.meta.url);
    if (cacheFile === undefined) return;
    // `<cache>.rendered` says the cache holds the render path: written after a render.
    const renderedMark = `${cacheFile}.rendered`;
    if (cachedData === undefined || script.cachedDataRejected) {
      // After start-up, so the functions compiled while starting are in the cache, and never
      // in the way of the hello the host is waiting for; and at a clean exit.
      try {
        unlinkSync(renderedMark);
      } catch {}
      setTimeout(() => writeCodeCache(script, cacheFile), 0).unref();
      process.once('exit', () => writeCodeCache(script, cacheFile));
    } else if (existsSync(renderedMark)) {
      return;
    }
    // Once the first render has answered (the worker emits `abgen:rendered`), when the render
    // path's functions (React's Flight server, the route, zod) are compiled: abgen-host ends its
    // workers with SIGKILL, so the write at exit rarely happens, and a worker killed before this
    // write leaves it to the next one.
    process.once('abgen:rendered', () => {
      if (writeCodeCache(script, cacheFile)) {
        try {
          writeFileSync(renderedMark, '', { mode: 0o600 });
        } catch {}
      }
    });
  }

  /** The bundle this module carries in its trailing comment. */
  function ownBundle() {
    const text = readFileSync(filename, 'utf8');
    const marker = BUNDLE_START.join('');
    const start = text.indexOf(marker) + marker.length;
    return text.slice(start, text.lastIndexOf('\n*/'));
  }

  /**
   * The bundle `abgen build` writes beside this module (`worker.bundle.cjs`) and its path: read
   * from there, Node's module loader never compiles or decodes it (see `WORKER_COMMONJS_PATH`,
   * codegen/src/emit/worker_files.rs). esbuild writes ASCII unless asked otherwise, and ASCII
   * read as Latin-1 is a copy where UTF-8 is a decode (0.7 ms of the 1.7 ms a 760 KB bundle took).
   */
  function siblingBundle() {
    const file = filename.replace(/\.mjs$/, '.bundle.cjs');
    const bytes = readFileSync(file);
    return [bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8'), file];
  }

  /**
   * `<state>/abgen/code-cache/<digest>-node<version>-<arch>.bin`, or undefined without a digest
   * or when `<state>` lies inside the artifact.
   */
  function codeCacheFile() {
    const state = stateDirectory();
    const artifactRoot = resolve(dirname(filename), '..');
    const within = relative(artifactRoot, state);
    if (within === '' || (!within.startsWith('..') && !isAbsolute(within))) return undefined;
    const digest = manifestDigest(join(dirname(filename), '..', 'abgen.manifest.json'));
    if (typeof digest !== 'string' || !/^[0-9a-f]{16,128}$/.test(digest)) return undefined;
    return join(state, 'abgen', 'code-cache', `${digest}-node${process.versions.node}-${process.arch}.bin`);
  }

  /**
   * The state directory a host names (`ABGEN_STATE_DIR`, `CLAUDE_PLUGIN_DATA`, `PLUGIN_DATA`),
   * else the plugin's state root as the worker's plugin axis resolves it when it starts
   * (`resolvePluginRoot`, packages/runtime/src/plugin-root.ts; a test keeps the two equal):
   * `AGENT_BUNDLE_STATE_ROOT`, else the default for the code root (`AGENT_BUNDLE_PLUGIN_ROOT`,
   * else the artifact root) that both derive with `defaultStateRoot` (state-root.mjs). A value
   * with a `${…}` token the host did not expand is unset.
   */
  function stateDirectory() {
    const named = ['ABGEN_STATE_DIR', 'CLAUDE_PLUGIN_DATA', 'PLUGIN_DATA'].map((name) => process.env[name]).find((value) => value);
    if (named !== undefined) return resolve(named);
    const expanded = (name) => {
      const value = process.env[name];
      return value && !/\$\{[^}]*\}/.test(value) ? value : undefined;
    };
    const stateRoot = expanded('AGENT_BUNDLE_STATE_ROOT');
    if (stateRoot !== undefined) return resolve(stateRoot);
    return defaultStateRoot(resolve(expanded('AGENT_BUNDLE_PLUGIN_ROOT') ?? join(dirname(filename), '..')), process.env);
  }

  /** Writes the cache whole or not at all (a concurrent reader never sees half a file); returns whether it did. */
  function writeCodeCache(script, cacheFile) {
    const partial = `${cacheFile}.${process.pid}.partial`;
    try {
      mkdirSync(dirname(cacheFile), { recursive: true, mode: 0o700 });
      writeFileSync(partial, script.createCachedData(), { mode: 0o600 });
      renameSync(partial, cacheFile);
      return true;
    } catch {
      // A read-only or full state directory only costs the cache.
      try {
        unlinkSync(partial);
      } catch {}
      return false;
    }
  }
}

const LOADER = [
  "// The render worker of this plugin, generated by `abgen build`; do not edit. The CommonJS bundle",
  "// below is compiled with V8's code cache, kept under the plugin's state directory.",
  "import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, realpathSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';",
  "import { isAscii } from 'node:buffer';",
  "import { createRequire } from 'node:module';",
  "import { homedir } from 'node:os';",
  "import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';",
  "import { fileURLToPath } from 'node:url';",
  // A namespace: `vm.constants` is Node 20.12 and later, and a named import of it would fail
  // to link on an older Node 20.
  "import * as vm from 'node:vm';",
  manifestDigest.toString(),
  defaultStateRoot.toString(),
  sha256Hex.toString(),
  loaderBody(),
].join('\n');

function loaderBody() {
  const text = loader.toString();
  return text
    .slice(text.indexOf('{') + 1, text.lastIndexOf('}'))
    .replaceAll('${IMPORT_META_URL}', IMPORT_META_URL)
    .replace('BUNDLE_START', () => JSON.stringify(BUNDLE_START))
    .replace(/^ {2}/gm, '')
    .trim();
}
