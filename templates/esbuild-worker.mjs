// Bundles abgen's generated render worker entry (or a stdio server's generated entry) with
// esbuild and writes the bundle to stdout. Run by `abgen build` as
// `node esbuild-worker.mjs '<request JSON>'`; the request is
// { entry, absWorkingDir, esbuildFrom, nodePaths, sourcefile, kind?, react }: kind 'stdio-entry'
// bundles a handwritten MCP server, which renders nothing, so it gets no react-server condition
// and no 'use client' check. esbuild comes from `esbuildFrom` (the node_modules folder of the
// abgen package); React and the runtime packages from the project by Node's own node_modules
// lookup, then from nodePaths (only when ABGEN_NODE_MODULES names a fallback).
// On failure it writes one line to stderr, `{"abgenBundleErrors":[…]}`, each error
// { kind, text, file?, line?, column?, package?, version?, copies?, suggestion? }: kind
// 'esbuild' (a message of esbuild's, 1-based positions), 'missing-package', 'react-version'
// (a React package outside the pinned version `react`), 'duplicate-react' (two copies of one
// React package in the bundle), 'use-client' (a module of the graph that starts with a
// 'use client' directive: routes render only on the server, and Agent Documents hold no client
// components), and exits 1.
// Served (`abgen dev`): run with the request `{ "serve": true }`, it reads one JSON request a
// line on stdin, `{ id, request }`, and answers each with one line on stdout, `{ id, stdout,
// stderr, code }`: what the one-shot run would have written and its exit code, from the same
// `bundle` function. It holds an esbuild context per bundle (keyed by the bundle's entry file
// and format; new options replace that bundle's context), so a rebuild reparses only the files
// that changed. It ends when its stdin ends: when `abgen dev` closes it, or dies.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The React packages the worker is pinned to, at exactly `request.react`. */
const REACT_PACKAGES = ['react', 'react-dom', 'react-server-dom-webpack'];

/** esbuild from the `node_modules` folder `esbuildFrom`. */
function requireEsbuild(esbuildFrom) {
  return createRequire(join(esbuildFrom, 'abgen-toolchain.cjs'))('esbuild');
}

/** A failed bundle: the errors of the one stderr line. */
class BundleFailure {
  constructor(errors) {
    this.errors = errors;
  }
}

/**
 * The folder of package `name` as Node finds it from the project: `node_modules/<name>` in the
 * project root or its nearest ancestor that has one, then in each fallback folder.
 */
function packageDir(request, name) {
  for (let dir = request.absWorkingDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(dir) === dir) break;
  }
  for (const fallback of request.nodePaths) {
    const candidate = join(fallback, name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
  }
  return undefined;
}

function fail(errors) {
  throw new BundleFailure(errors);
}

/**
 * Bundles `request` with `esbuild` (the module, or an object whose `build` reuses contexts):
 * `{ stdout, stderr, code }`, what the one-shot run writes and exits with.
 */
async function bundle(request, esbuild) {
  try {
    const { text, inputs } = await bundleText(request, esbuild);
    return { stdout: text, stderr: `abgen-inputs:${JSON.stringify(inputs)}\n`, code: 0 };
  } catch (error) {
    if (!(error instanceof BundleFailure)) throw error;
    return { stdout: '', stderr: `${JSON.stringify({ abgenBundleErrors: error.errors })}\n`, code: 1 };
  }
}

/** One ES module, without the code cache. */
async function plainBuild(esbuildModule, options) {
  const result = await esbuildModule.build({ ...options, write: false, format: 'esm', banner: { js: "import { createRequire as __abgenCreateRequire } from 'node:module'; const require = __abgenCreateRequire(import.meta.url);" } });
  return { result, text: result.outputFiles[0].text };
}

/** The bundle's text and the files esbuild read, or a thrown [`BundleFailure`]. */
async function bundleText(request, esbuild) {
  const needed = request.kind === 'stdio-entry'
    ? ['agent-bundle']
    : ['agent-bundle', '@agent-bundle/runtime', ...REACT_PACKAGES];
  const preflight = [];
  for (const name of needed) {
    const dir = packageDir(request, name);
    if (dir === undefined) {
      preflight.push({ kind: 'missing-package', package: name, text: `${name} is not installed in the project` });
      continue;
    }
    if (REACT_PACKAGES.includes(name)) {
      const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      if (version !== request.react) {
        preflight.push({ kind: 'react-version', package: name, version, file: relative(request.absWorkingDir, dir), text: `${name} ${version} is installed; abgen's worker is pinned to ${request.react}` });
      }
    }
  }
  if (preflight.length > 0) fail(preflight);

  // The bundle is built as CommonJS wrapped for V8's code cache when it can be, else as an ES
  // module (the shared rules live with the runtime package, in scripts/code-cache.mjs, taken from
  // the project's own copy; a stdio entry of a project without the runtime package is a plain ES
  // module).
  const runtimeDir = packageDir(request, '@agent-bundle/runtime');
  const { buildWorker } = runtimeDir === undefined
    ? { buildWorker: plainBuild }
    : await import(pathToFileURL(join(runtimeDir, 'scripts/code-cache.mjs')).href);

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
    const duplicates = request.kind === 'stdio-entry' ? [] : duplicateReacts(result.metafile);
    const errors = [
      ...clientModules.map(({ file, importer }) => ({
        kind: 'use-client',
        text: `'use client' module in the render worker's module graph (imported by ${importer}); routes render on the server only, and Agent Documents hold no client components`,
        file,
        line: 1,
        column: 1,
      })),
      ...duplicates,
    ];
    if (errors.length > 0) fail(errors);
    // The files esbuild read, so a watch loop can tell when this bundle is stale.
    return { text, inputs: Object.keys(result.metafile.inputs) };
  } catch (error) {
    if (error instanceof BundleFailure) throw error;
    fail((error.errors ?? [{ text: String(error) }]).map((message) => ({
      kind: 'esbuild',
      text: message.text,
      // A place in the generated entry is no place of the user's: the text names the module.
      ...(message.location && message.location.file !== request.sourcefile
        ? { file: message.location.file, line: message.location.line, column: message.location.column + 1, suggestion: message.location.suggestion || undefined }
        : {}),
    })));
  }
}

/**
 * One error per React package the bundle holds more than one copy of (inputs under two
 * different `node_modules/<package>/` folders): two Reacts in one worker break hooks and Flight.
 */
function duplicateReacts(metafile) {
  const copies = new Map(REACT_PACKAGES.map((name) => [name, new Set()]));
  for (const file of Object.keys(metafile.inputs)) {
    for (const name of REACT_PACKAGES) {
      const at = file.lastIndexOf(`node_modules/${name}/`);
      if (at >= 0) copies.get(name).add(file.slice(0, at + `node_modules/${name}`.length));
    }
  }
  return [...copies]
    .filter(([, found]) => found.size > 1)
    .map(([name, found]) => ({
      kind: 'duplicate-react',
      package: name,
      copies: [...found].sort(),
      text: `the bundle holds ${found.size} copies of ${name}: ${[...found].sort().join(', ')}`,
    }));
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

/**
 * esbuild whose `build` keeps one context per bundle (its stdin entry's file name and format)
 * and rebuilds it: the same output as a fresh build, reparsing only changed files.
 */
function contextual(esbuild, contexts) {
  return {
    async build(options) {
      const slot = JSON.stringify([options.absWorkingDir, options.stdin?.sourcefile, options.format]);
      const key = JSON.stringify(options);
      let kept = contexts.get(slot);
      if (kept?.key !== key) {
        await kept?.context.dispose();
        kept = { key, context: await esbuild.context(options) };
        contexts.set(slot, kept);
      }
      return kept.context.rebuild();
    },
  };
}

/** The served loop: one request a line in, one answer a line out, until stdin ends. */
async function serve() {
  const { createInterface } = await import('node:readline');
  const toolchains = new Map();
  for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
    if (line.trim() === '') continue;
    const { id, request } = JSON.parse(line);
    let answer;
    try {
      let kept = toolchains.get(request.esbuildFrom);
      if (kept === undefined) {
        kept = { esbuild: requireEsbuild(request.esbuildFrom), contexts: new Map() };
        toolchains.set(request.esbuildFrom, kept);
      }
      answer = await bundle(request, contextual(kept.esbuild, kept.contexts));
    } catch (error) {
      answer = { stdout: '', stderr: `${error?.stack ?? error}\n`, code: 1 };
    }
    process.stdout.write(`${JSON.stringify({ id, ...answer })}\n`);
  }
  for (const { contexts } of toolchains.values()) {
    for (const { context } of contexts.values()) await context.dispose();
  }
  process.exit(0);
}

const request = JSON.parse(process.argv[process.argv.length - 1]);
if (request.serve === true) {
  await serve();
} else {
  const { stdout, stderr, code } = await bundle(request, requireEsbuild(request.esbuildFrom));
  process.stdout.write(stdout);
  process.stderr.write(stderr);
  process.exitCode = code;
}
