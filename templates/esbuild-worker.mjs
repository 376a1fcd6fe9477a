// Bundles abgen's generated render worker entry (or a stdio server's generated entry) with
// esbuild and writes the bundle to stdout. Run by `abgen build` as
// `node esbuild-worker.mjs '<request JSON>'`; the request is
// { entry, absWorkingDir, esbuildFrom, nodePaths, sourcefile, kind?, react, mode? }: kind 'stdio-entry'
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
// line on stdin, `{ id, request }`, and answers each with one line on stdout, `{ id, stderr,
// code, stdoutBytes }`, followed by that many bytes, the stdout: what the one-shot run would have
// written and its exit code, from the same `bundle` function (the bundle is sent raw: escaping
// megabytes of code into a JSON string and back cost more than a one-module rebuild). It holds an esbuild context per bundle (keyed by the bundle's entry file
// and format; new options replace that bundle's context), so a rebuild reparses only the files
// that changed. It ends when its stdin ends: when `abgen dev` closes it, or dies.
// A worker request with `mode: 'modules'` (`abgen dev`) is no bundle: see "The modules mode"
// below; served, it keeps each module's compiled output by its file stamp.
import { appendFileSync, existsSync, lstatSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, extname, isAbsolute, join, relative, resolve as resolvePath } from 'node:path';
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
 * `{ stdout, stderr, code }`, what the one-shot run writes and exits with. A request in the
 * `modules` mode compiles module by module with `compiler` (`esbuild` itself, with the kept
 * modules of earlier requests when served).
 */
async function bundle(request, esbuild, compiler = { esbuild, kept: undefined }) {
  try {
    const { text, inputs } = request.mode === 'modules' && request.kind === 'worker'
      ? await modulesText(request, compiler.esbuild, compiler.kept)
      : await bundleText(request, esbuild);
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

/** Fails with the missing and mis-versioned packages the bundle of `request` needs, if any. */
function preflight(request) {
  const needed = request.kind === 'stdio-entry'
    ? ['agent-bundle']
    : ['agent-bundle', '@agent-bundle/runtime', ...REACT_PACKAGES];
  const found = [];
  for (const name of needed) {
    const dir = packageDir(request, name);
    if (dir === undefined) {
      found.push({ kind: 'missing-package', package: name, text: `${name} is not installed in the project` });
      continue;
    }
    if (REACT_PACKAGES.includes(name)) {
      const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      if (version !== request.react) {
        found.push({ kind: 'react-version', package: name, version, file: relative(request.absWorkingDir, dir), text: `${name} ${version} is installed; abgen's worker is pinned to ${request.react}` });
      }
    }
  }
  if (found.length > 0) fail(found);
}

/** The bundle's text and the files esbuild read, or a thrown [`BundleFailure`]. */
async function bundleText(request, esbuild) {
  preflight(request);

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
    fail(esbuildErrors(error, request));
  }
}

/** The errors of a failed esbuild run, each at the user's file:line:column when it has one. */
function esbuildErrors(error, request) {
  return (error.errors ?? [{ text: String(error) }]).map((message) => ({
    kind: 'esbuild',
    text: message.text,
    // A place in the generated entry is no place of the user's: the text names the module.
    ...(message.location && message.location.file !== request.sourcefile
      ? { file: message.location.file, line: message.location.line, column: message.location.column + 1, suggestion: message.location.suggestion || undefined }
      : {}),
  }));
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

// The modules mode (`abgen dev`'s render worker): no bundle. Each module of the project is
// compiled on its own (TypeScript and JSX stripped, every import kept as written and resolved
// by esbuild as the bundle would resolve it), and `runtime/worker.mjs` is a small loader that
// carries the compiled modules as data and serves them to Node through module hooks, so a
// one-file change recompiles one module instead of relinking and reprinting the whole graph.
// Packages are not compiled: Node loads them from where esbuild found them, with the worker's
// own `--conditions=react-server`. A package whose entry is not JavaScript Node can run (the
// workspace's TypeScript packages) is compiled like a project module.

/** Files Node runs as they are; any other module is compiled. */
const RUNNABLE = /\.(?:m?js|cjs|json|node)$/;

/** The files at the project root that decide how imports resolve (as `ScriptCache` keys them). */
const RESOLUTION_FILES = ['tsconfig.json', 'jsconfig.json', 'package.json', 'package-lock.json'];

/** Marks abgen's own `build.resolve` calls, so the plugin that makes them does not answer them. */
const RESOLVING = Symbol('abgen-resolving');

/** The stamp of `file` (inode, length, mtime, change time), or undefined when it is gone. */
function stampOf(file) {
  try {
    const { ino, size, mtimeMs, ctimeMs } = statSync(file);
    return `${ino}:${size}:${mtimeMs}:${ctimeMs}`;
  } catch {
    return undefined;
  }
}

/** The package a bare specifier names (`@scope/name/sub` → `@scope/name`), else undefined. */
function packageName(specifier) {
  if (/^(?:[./#]|[a-z]+:)/i.test(specifier) || isAbsolute(specifier)) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/**
 * The file Node resolves package import `specifier` from so that it finds the copy esbuild
 * found: the importing module's own file when Node's `node_modules` lookup from there reaches
 * the package, else a file beside the fallback folder (`nodePaths`) that holds it, which Node
 * searches only that way.
 */
function packageParent(request, file, specifier, found) {
  const name = packageName(specifier);
  if (name === undefined) return file;
  const key = `${dirname(file)}\0${name}`;
  if (found.has(key)) return found.get(key);
  let parent = file;
  let reached = false;
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'node_modules', name, 'package.json'))) {
      reached = true;
      break;
    }
    if (dirname(dir) === dir) break;
  }
  if (!reached) {
    const fallback = request.nodePaths.find((folder) => basename(folder) === 'node_modules' && existsSync(join(folder, name, 'package.json')));
    if (fallback !== undefined) parent = join(dirname(fallback), 'abgen-worker-entry.mjs');
  }
  found.set(key, parent);
  return parent;
}

/** The output name of the `index`th module of a batch, under the batch's output folder. */
const OUT_DIR = '.abgen-modules';

/** What esbuild's own source options are for `modules`: the generated entry alone, or files. */
function sourceOptions(request, modules) {
  return modules[0].entry
    ? { stdin: { contents: request.entry, resolveDir: request.absWorkingDir, sourcefile: request.sourcefile, loader: 'js' } }
    : { entryPoints: modules.map((module, index) => ({ in: module.file, out: `m${index}` })), outdir: join(request.absWorkingDir, OUT_DIR) };
}

/** The output text of the `index`th of `modules` in `result`. */
function outputOf(request, result, modules, index) {
  if (modules[0].entry) return result.outputFiles[0].text;
  const path = join(request.absWorkingDir, OUT_DIR, `m${index}.js`);
  return result.outputFiles.find((file) => file.path === path).text;
}

/**
 * What `specifier` (imported as `kind` from `importer`, in `resolveDir`) resolves to, as
 * esbuild's `build.resolve` answers: a relative specifier naming a file that exists, extension
 * and all, is that file (esbuild tries the exact path first; the generated entry's thousand
 * route imports); any other is asked of `resolver`, once per folder and kind (most imports of a
 * large project repeat, and each is a round trip to esbuild).
 */
function resolveImport(resolver, memo, specifier, kind, importer, resolveDir) {
  if (/^\.\.?\//.test(specifier) && extname(specifier) !== '') {
    const file = resolvePath(resolveDir, specifier);
    if (lstatSync(file, { throwIfNoEntry: false })?.isFile()) return { path: realpathSync(file), external: false, namespace: 'file', errors: [] };
  }
  const key = `${kind}\0${resolveDir}\0${specifier}`;
  if (!memo.has(key)) memo.set(key, resolver.resolve(specifier, { kind, importer, resolveDir, pluginData: RESOLVING }));
  return memo.get(key);
}

/**
 * Compiles `modules` (files, or the generated entry alone) with `options`, each into one ES
 * module whose imports keep their specifiers, in one esbuild run, and resolves those imports
 * with `resolver` (a kept esbuild build's `resolve`): by module id, `{ code, resolved }`,
 * `resolved` by specifier as `build.resolve` answered it. A failed resolution or parse throws
 * esbuild's failure, at the import's place: an import that does not resolve sends the batch
 * through [`locatedFailure`].
 */
async function compileModules(esbuild, resolver, options, request, modules, memo) {
  const result = await esbuild.build({ ...options, ...sourceOptions(request, modules), external: ['*'], metafile: true });
  const entries = new Map(Object.values(result.metafile.outputs).filter((output) => output.entryPoint !== undefined).map((output) => [output.entryPoint, output]));
  const compiled = new Map();
  let unresolved = false;
  await Promise.all(modules.map(async (module, index) => {
    const input = modules[0].entry
      ? Object.values(result.metafile.inputs)[0]
      : result.metafile.inputs[[...entries.keys()].find((key) => join(request.absWorkingDir, key) === module.file) ?? relative(request.absWorkingDir, module.file)];
    const resolveDir = module.entry ? request.absWorkingDir : dirname(module.file);
    const resolved = new Map();
    await Promise.all((input?.imports ?? []).map(async ({ path: specifier, kind }) => {
      if (resolved.has(specifier)) return;
      resolved.set(specifier, undefined);
      const answer = await resolveImport(resolver, memo, specifier, kind, module.file, resolveDir);
      if (answer.errors.length > 0) unresolved = true;
      resolved.set(specifier, answer);
    }));
    compiled.set(module.id, { code: outputOf(request, result, modules, index), resolved });
  }));
  if (unresolved) await locatedFailure(esbuild, options, request, modules);
  return compiled;
}

/**
 * Throws esbuild's failure for `modules`, some import of which does not resolve, with each
 * error at its import's place: the batch built again with every import resolved inside the
 * build, where esbuild knows where each import is.
 */
async function locatedFailure(esbuild, options, request, modules) {
  const recorder = {
    name: 'abgen-modules',
    setup(build) {
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.kind === 'entry-point' || args.pluginData === RESOLVING) return undefined;
        const result = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: RESOLVING });
        return result.errors.length > 0 ? { errors: result.errors } : { path: args.path, external: true };
      });
    },
  };
  await esbuild.build({ ...options, ...sourceOptions(request, modules), plugins: [recorder] });
  throw new Error('an import that does not resolve in one build resolved in the next');
}

/** A kept esbuild build (a context of an empty module) whose `resolve` answers for `options`. */
async function startResolver(esbuild, options, request) {
  let resolver;
  const context = await esbuild.context({
    ...options,
    stdin: { contents: '', resolveDir: request.absWorkingDir, sourcefile: 'abgen-resolver.mjs', loader: 'js' },
    plugins: [{ name: 'abgen-resolver', setup(build) { resolver = build; } }],
  });
  await context.rebuild();
  return { context, resolve: (...args) => resolver.resolve(...args) };
}

/**
 * What the worker keeps of one compiled module: its stamp, its fragment of the module table
 * (`"<id>":{"code":…,"imports":{…}}`), the project modules it imports, the package files it
 * resolved and whether its source is a 'use client' module.
 */
function keptModule(request, module, stamp, { code, resolved }, found) {
  const imports = {};
  const targets = [];
  const packages = [];
  for (const specifier of [...resolved.keys()].sort()) {
    const result = resolved.get(specifier);
    const inPackages = /(?:^|[\\/])node_modules[\\/]/.test(result.path);
    if (!result.external && result.namespace === 'file' && !(inPackages && RUNNABLE.test(result.path))) {
      const id = relative(request.absWorkingDir, result.path);
      imports[specifier] = id;
      targets.push({ id, file: result.path });
      continue;
    }
    imports[specifier] = { parent: packageParent(request, module.file, specifier, found) };
    if (!result.external && result.namespace === 'file') packages.push(relative(request.absWorkingDir, result.path));
  }
  let useClient = false;
  if (!module.entry) {
    try {
      useClient = startsWithUseClient(readFileSync(module.file, 'utf8'));
    } catch {
      // esbuild read it a moment ago; a file gone since fails the next build.
    }
  }
  // U+2028 and U+2029 end a line comment, which carries the table; escaped they are still JSON.
  const fragment = `${JSON.stringify(module.id)}:${JSON.stringify({ code, imports })}`.replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
  // Kept as bytes: the worker is assembled from them with one copy, not as a string re-encoded.
  return { stamp, fragment: Buffer.from(fragment, 'utf8'), targets, packages, useClient };
}

/**
 * The modules-mode worker of `request` and its inputs, or a thrown [`BundleFailure`]. `kept`
 * (served) holds the compiled modules of earlier requests by project and options; a module is
 * compiled again only when its stamp changed or a project module it imports is gone.
 */
async function modulesText(request, esbuild, kept) {
  const started = performance.now();
  preflight(request);
  const options = {
    absWorkingDir: request.absWorkingDir,
    nodePaths: request.nodePaths,
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    conditions: ['react-server'],
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    // As the production bundle: less for the worker to carry and Node to scan; names stay.
    minifyWhitespace: true,
    legalComments: 'none',
    logLevel: 'silent',
  };
  const resolution = RESOLUTION_FILES.map((name) => stampOf(join(request.absWorkingDir, name))).join('|');
  const slot = JSON.stringify([options, resolution]);
  let modules = kept?.get(request.absWorkingDir);
  if (modules?.slot !== slot) {
    await modules?.resolver?.context.dispose();
    modules = { slot, byId: new Map() };
    kept?.set(request.absWorkingDir, modules);
  }
  try {
    return await modulesOf(request, esbuild, options, modules, started);
  } finally {
    // One-shot, nothing is kept: the resolver's context would keep the process alive.
    if (kept === undefined) await modules.resolver?.context.dispose();
  }
}

/** [`modulesText`] with its kept `modules` (fresh for a one-shot run). */
async function modulesOf(request, esbuild, options, modules, started) {
  const found = new Map();
  // A package resolves as it did while nothing that decides resolution changed (an install
  // changes the lockfile, which starts the kept modules afresh) and the file it found is there.
  const memo = new Map();
  for (const [key, answer] of modules.packages ??= new Map()) {
    if (answer.errors.length === 0 && (answer.external || stampOf(answer.path) !== undefined)) memo.set(key, answer);
    else modules.packages.delete(key);
  }
  const reached = new Map();
  const importers = new Map();
  const errors = [];
  let compiled = 0;
  const stamps = new Map();
  const stamp = (file) => {
    if (!stamps.has(file)) stamps.set(file, stampOf(file));
    return stamps.get(file);
  };
  let frontier = [{ id: request.sourcefile, file: join(request.absWorkingDir, request.sourcefile), entry: true }];
  while (frontier.length > 0 && errors.length === 0) {
    const stale = [];
    for (const module of frontier) {
      const now = module.entry ? request.entry : stamp(module.file);
      const record = modules.byId.get(module.id);
      if (record !== undefined && record.stamp === now && record.targets.every(({ file }) => stamp(file) !== undefined)) {
        reached.set(module.id, record);
      } else {
        modules.byId.delete(module.id);
        stale.push({ module, now });
      }
    }
    if (stale.length > 0) {
      try {
        const outputs = await compileModules(esbuild, modules.resolver ??= await startResolver(esbuild, options, request), options, request, stale.map(({ module }) => module), memo);
        for (const { module, now } of stale) {
          const record = keptModule(request, module, now, outputs.get(module.id), found);
          modules.byId.set(module.id, record);
          reached.set(module.id, record);
        }
        compiled += stale.length;
      } catch (error) {
        errors.push(...esbuildErrors(error, request));
      }
    }
    const next = [];
    for (const module of frontier) {
      const record = reached.get(module.id);
      for (const target of record?.targets ?? []) {
        if (reached.has(target.id) || importers.has(target.id)) continue;
        importers.set(target.id, module.id);
        next.push(target);
      }
    }
    frontier = next;
  }
  if (errors.length > 0) fail(errors.sort((a, b) => `${a.file}:${a.line}:${a.column}`.localeCompare(`${b.file}:${b.line}:${b.column}`)));

  for (const [key, answer] of memo) {
    if (packageName(key.split('\0')[2]) !== undefined) modules.packages.set(key, await answer);
  }
  const ids = [...reached.keys()].sort();
  const clientModules = ids
    .filter((id) => reached.get(id).useClient)
    .map((id) => ({
      kind: 'use-client',
      text: `'use client' module in the render worker's module graph (imported by ${importers.get(id) === request.sourcefile ? 'the worker entry' : importers.get(id)}); routes render on the server only, and Agent Documents hold no client components`,
      file: id,
      line: 1,
      column: 1,
    }));
  // The packages' own module graph, which Node loads and esbuild did not follow: bundled once
  // (again only when the packages the modules resolve change) for the checks the production
  // bundle makes of it and for the files a package change must invalidate.
  const packageFiles = [...new Set(ids.flatMap((id) => reached.get(id).packages))].filter((file) => !file.endsWith('.node')).sort();
  const probeKey = JSON.stringify(packageFiles.map((file) => [file, stampOf(join(request.absWorkingDir, file))]));
  if (modules.probe?.key !== probeKey) {
    const metafile = await packageGraph(esbuild, options, request, packageFiles);
    modules.probe = { key: probeKey, metafile, clients: useClientModules(metafile, request.absWorkingDir) };
  }
  const { metafile, clients } = modules.probe;
  const packageImporters = new Map();
  for (const id of ids) {
    for (const file of reached.get(id).packages) if (!packageImporters.has(file)) packageImporters.set(file, id);
  }
  const packageClients = clients.map(({ file, importer }) => ({
    kind: 'use-client',
    text: `'use client' module in the render worker's module graph (imported by ${importer === PACKAGES_SOURCEFILE ? packageImporters.get(file) : importer}); routes render on the server only, and Agent Documents hold no client components`,
    file,
    line: 1,
    column: 1,
  }));
  const packageInputs = Object.keys(metafile.inputs).filter((input) => input !== PACKAGES_SOURCEFILE);
  const inputs = [...new Set(ids.filter((id) => id !== request.sourcefile).concat(packageInputs))].sort();
  const checks = [...clientModules, ...packageClients, ...duplicateReacts(metafile)];
  if (checks.length > 0) fail(checks);

  const comma = Buffer.from(',');
  const parts = [Buffer.from(`${modulesLoaderText(request.sourcefile)}\n${MODULES_MARKER}{"root":${JSON.stringify(request.absWorkingDir)},"entry":${JSON.stringify(request.sourcefile)},"modules":{`, 'utf8')];
  ids.forEach((id, index) => {
    if (index > 0) parts.push(comma);
    parts.push(reached.get(id).fragment);
  });
  parts.push(Buffer.from('}}\n'));
  if (process.env.ABGEN_DEV_WORKER_TIMING) {
    appendFileSync(process.env.ABGEN_DEV_WORKER_TIMING, `${JSON.stringify({ modules: ids.length, compiled, ms: Math.round((performance.now() - started) * 100) / 100 })}\n`);
  }
  return { text: Buffer.concat(parts), inputs };
}

/** The name of the probe entry that imports every package file the modules resolved. */
const PACKAGES_SOURCEFILE = 'abgen-worker-packages.mjs';

/** esbuild's metafile of the bundle of `files` (package files, project-relative) alone. */
async function packageGraph(esbuild, options, request, files) {
  try {
    const { metafile } = await esbuild.build({
      ...options,
      stdin: {
        contents: files.map((file) => `import ${JSON.stringify(join(request.absWorkingDir, file))};\n`).join(''),
        resolveDir: request.absWorkingDir,
        sourcefile: PACKAGES_SOURCEFILE,
        loader: 'js',
      },
      metafile: true,
    });
    return metafile;
  } catch (error) {
    fail(esbuildErrors(error, request));
  }
}

/** Opens the line that carries the module table (never written whole in the loader's own text). */
const MODULES_MARKER = ['//', ' abgen-modules '].join('');

// Kept as functions so the loader and its hooks are ordinary, checked code; their text is what
// the worker holds. The hooks run on Node's hooks thread and read the table from the worker file.
async function modulesLoader() {
  // abgen-host does not ask Node its version before a start: an older Node ends here, before
  // the hello, and abgen-host then asks it and says why.
  const [major, minor] = process.versions.node.split('.').map(Number);
  if (major < 20 || (major === 20 && minor < 6)) {
    process.stderr.write(`abgen: the development render worker needs Node.js 20.6 or newer; this is ${process.version}\n`);
    process.exit(1);
  }
  // What the bundle's `define` makes of it, for the packages Node loads as they are.
  process.env.NODE_ENV = 'production';
  const worker = import.meta.url.split('?')[0];
  nodeModule.register(`data:text/javascript,${encodeURIComponent(__ABGEN_HOOKS__)}`, { data: { worker } });
  await import(`${worker}?module=${encodeURIComponent(__ABGEN_ENTRY__)}`);
}

function modulesHooks() {
  let table;
  let prefix;
  async function initialize({ worker }) {
    prefix = `${worker}?module=`;
    const text = readFileSync(fileURLToPath(worker), 'utf8');
    const marker = MODULES_MARKER;
    table = JSON.parse(text.slice(text.lastIndexOf(marker) + marker.length));
  }
  async function resolve(specifier, context, nextResolve) {
    if (specifier.startsWith(prefix)) return { url: specifier, format: 'module', shortCircuit: true };
    const importer = context.parentURL?.startsWith(prefix) ? decodeURIComponent(context.parentURL.slice(prefix.length)) : undefined;
    const module = importer === undefined ? undefined : table.modules[importer];
    if (module === undefined) return nextResolve(specifier, context);
    const target = module.imports[specifier];
    if (typeof target === 'string') return { url: `${prefix}${encodeURIComponent(target)}`, format: 'module', shortCircuit: true };
    // A package, or a specifier computed at run time: Node resolves it from the module's source.
    const parent = target?.parent ?? join(table.root, importer);
    return nextResolve(specifier, { ...context, parentURL: pathToFileURL(parent).href });
  }
  async function load(url, context, nextLoad) {
    if (!url.startsWith(prefix)) return nextLoad(url, context);
    const module = table.modules[decodeURIComponent(url.slice(prefix.length))];
    if (module === undefined) throw new Error(`abgen: the development render worker holds no module ${url}`);
    return { format: 'module', source: module.code, shortCircuit: true };
  }
}

/** The body of function `f`, unindented. */
function bodyOf(f) {
  const text = f.toString();
  return text.slice(text.indexOf('{') + 1, text.lastIndexOf('}')).replace(/^ {2}/gm, '').trim();
}

const MODULES_HOOKS = [
  "import { readFileSync } from 'node:fs';",
  "import { join } from 'node:path';",
  "import { fileURLToPath, pathToFileURL } from 'node:url';",
  bodyOf(modulesHooks).replace('MODULES_MARKER', () => JSON.stringify(MODULES_MARKER)),
  'export { initialize, resolve, load };',
].join('\n');

/** The loader of a modules-mode worker whose entry module is `entry`. */
function modulesLoaderText(entry) {
  return [
    '// The development render worker of this plugin, generated by `abgen dev`; do not edit. Its',
    '// modules, compiled one by one, are the table on its last line, which its module hooks serve.',
    "import * as nodeModule from 'node:module';",
    bodyOf(modulesLoader)
      .replace('__ABGEN_HOOKS__', () => JSON.stringify(MODULES_HOOKS))
      .replace('__ABGEN_ENTRY__', () => JSON.stringify(entry)),
  ].join('\n');
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
        kept = { esbuild: requireEsbuild(request.esbuildFrom), contexts: new Map(), modules: new Map() };
        toolchains.set(request.esbuildFrom, kept);
      }
      answer = await bundle(request, contextual(kept.esbuild, kept.contexts), { esbuild: kept.esbuild, kept: kept.modules });
    } catch (error) {
      answer = { stdout: '', stderr: `${error?.stack ?? error}\n`, code: 1 };
    }
    const stdout = Buffer.isBuffer(answer.stdout) ? answer.stdout : Buffer.from(answer.stdout, 'utf8');
    process.stdout.write(`${JSON.stringify({ id, stderr: answer.stderr, code: answer.code, stdoutBytes: stdout.length })}\n`);
    process.stdout.write(stdout);
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
