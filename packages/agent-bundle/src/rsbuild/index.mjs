// `agent-bundle/rsbuild`: abgen inside an Rsbuild project. Before the first compile it writes
// `.agent-bundle/routes.d.ts` (`abgen generate`), so the project's own TypeScript sees the route
// types from the start; after every compile, build or dev, it builds the artifact with `abgen
// build --json` and reports abgen's diagnostics as that compilation's errors and warnings, so a
// failed abgen build fails `rsbuild build` and shows in `rsbuild dev` like any compile error.
// Under `rsbuild dev` the artifact's App documents are the readable ones (`abgen build --dev`),
// under `rsbuild build` the production ones. In dev and watch builds the plugin watches the project's `src/` and config, and a change
// recompiles, and with it rebuilds the artifact.
//
// The plugin starts one abgen child at a time and waits for it, inside the compile, so builds
// are as serial as the compiler's compiles: a change during one marks the compiler invalid,
// and however many changes came, the compiler runs one more compile, and so one more build.
// Closing Rsbuild (the dev server or a watch build) ends a running child.
//
// Plain JavaScript (typed by index.d.ts) because tests import it straight from Node; it needs
// nothing of @rsbuild/core at run time, only the compiler Rsbuild hands it.

import { spawn } from 'node:child_process';
import { existsSync, watch } from 'node:fs';
import path from 'node:path';
import { abgenCommand } from '../binaries.mjs';

export const PLUGIN_AGENT_BUNDLE_NAME = 'agent-bundle:abgen';

/** Who this is in messages and the name every hook is tapped under. */
const WHO = 'agent-bundle/rsbuild';

/** The files of the project root abgen reads (`project::config`), watched beside `src/`. */
const PROJECT_FILES = [
  'agent-bundle.config.ts',
  'agent-bundle.config.mts',
  'agent-bundle.config.js',
  'agent-bundle.config.mjs',
  'package.json',
];

/** How long the project's files stay quiet before a change recompiles (one write is often two events). */
const QUIET_MS = 30;

/** How long a child has to exit after SIGTERM before it gets SIGKILL, and after that. */
const TERM_GRACE_MS = 2000;
const KILL_GRACE_MS = 1000;

/**
 * @param {import('./index.d.ts').PluginAgentBundleOptions} [options]
 * @returns {import('@rsbuild/core').RsbuildPlugin}
 */
export function pluginAgentBundle(options = {}) {
  checkOptions(options);
  return {
    name: PLUGIN_AGENT_BUNDLE_NAME,
    setup(api) {
      const base = api.context.rootPath;
      const root = path.resolve(base, options.root ?? '.');
      const out = options.out === undefined ? undefined : path.resolve(base, options.out);
      const abgen = abgenRunner(root);
      let generated = false;
      let watcher;

      const generate = async () => {
        if (generated) return;
        generated = true;
        const result = await abgen.run(['generate', '--root', root]);
        if (result.error !== undefined) throw cannotRun(result.error);
        // Route errors are left to the build after the compile, which reports them with their
        // codes and places; the file is written whenever the routes can be read.
      };
      api.onBeforeBuild(generate);
      api.onBeforeDevCompile(generate);

      api.onAfterCreateCompiler(({ compiler }) => {
        // One artifact per build: on the first compiler of several environments only.
        const first = 'compilers' in compiler ? compiler.compilers[0] : compiler;
        if (first === undefined) return;
        const ErrorClass = first.rspack?.WebpackError ?? first.webpack?.WebpackError ?? Error;
        // In watch mode (dev, or build --watch) a change of the project's inputs recompiles,
        // and with it rebuilds the artifact. The project's own watcher, not the compilation's
        // dependencies: Rspack's watcher can miss a change made while a compile runs, which is
        // exactly when an abgen build is waiting in it.
        first.hooks.watchRun.tap(WHO, () => {
          watcher ??= watchProject(root, () => first.watching?.invalidate());
        });
        first.hooks.afterEmit.tapPromise(WHO, async (compilation) => {
          // Under `rsbuild dev`, readable App documents, as `abgen dev` writes them.
          const dev = api.context.action === 'dev';
          const outcome = await buildArtifact(abgen, { root, out, targets: options.targets, dev });
          for (const problem of outcome.errors) compilation.errors.push(rsbuildError(ErrorClass, problem));
          for (const problem of outcome.warnings) compilation.warnings.push(rsbuildError(ErrorClass, problem));
          if (outcome.built !== undefined) api.logger.info(outcome.built);
        });
      });

      const close = () => {
        watcher?.close();
        return abgen.close();
      };
      api.onCloseBuild(close);
      api.onCloseDevServer(close);
      // The process is leaving without a close (a signal): end the child with it.
      api.onExit(() => abgen.killNow());
    },
  };
}

function checkOptions(options) {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`${WHO}: pluginAgentBundle(options) takes an object`);
  }
  for (const key of ['root', 'out']) {
    if (options[key] !== undefined && typeof options[key] !== 'string') {
      throw new TypeError(`${WHO}: the option \`${key}\` is a path (a string)`);
    }
  }
  const { targets } = options;
  if (targets !== undefined && (!Array.isArray(targets) || targets.some((target) => typeof target !== 'string'))) {
    throw new TypeError(`${WHO}: the option \`targets\` is a list of hosts, such as ['claude', 'codex']`);
  }
  for (const key of Object.keys(options)) {
    if (!['root', 'out', 'targets'].includes(key)) {
      throw new TypeError(`${WHO}: unknown option \`${key}\` (the options are root, out and targets)`);
    }
  }
}

/**
 * Calls `changed` once the project's inputs (`src/`, recursively, and the config files of
 * the root) have been quiet for `QUIET_MS` after a change. `close()` stops it.
 */
function watchProject(root, changed) {
  let timer;
  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(changed, QUIET_MS);
  };
  const watchers = [];
  const source = path.join(root, 'src');
  if (existsSync(source)) watchers.push(watch(source, { recursive: true }, schedule));
  watchers.push(
    watch(root, (_event, name) => {
      if (name === null || PROJECT_FILES.includes(String(name))) schedule();
    }),
  );
  for (const watcher of watchers) watcher.on('error', () => watcher.close());
  return {
    close() {
      clearTimeout(timer);
      for (const watcher of watchers) watcher.close();
    },
  };
}

/**
 * Runs abgen for the project at `root`, one child at a time, and ends the running one on close.
 * `run` resolves `{ code, signal, stdout, stderr }`, `{ error }` when abgen could not be started,
 * or `{ closed: true }` when the runner was closed before or while it ran.
 */
function abgenRunner(root) {
  let queue = Promise.resolve();
  let running;
  let closed = false;

  const start = (args) =>
    new Promise((resolve) => {
      if (closed) return resolve({ closed: true });
      let command;
      try {
        command = abgenCommand(root, WHO);
      } catch (error) {
        return resolve({ error });
      }
      // Its own process group, so ending it also ends what it started (the npm shim runs the
      // native binary as its child).
      const child = spawn(command.command, [...command.args, ...args], {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: process.platform !== 'win32',
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
      const exited = new Promise((settle) => {
        child.once('error', (error) => {
          settle();
          resolve({ error });
        });
        child.once('close', (code, signal) => {
          settle();
          resolve(closed ? { closed: true } : { code, signal, stdout, stderr });
        });
      });
      running = { child, exited };
      exited.then(() => {
        if (running?.child === child) running = undefined;
      });
    });

  const signal = (child, name) => {
    try {
      if (process.platform === 'win32') child.kill(name);
      else process.kill(-child.pid, name);
    } catch {
      // Already gone.
    }
  };

  return {
    run(args) {
      const result = queue.then(() => start(args));
      queue = result;
      return result;
    },
    /** Ends the running child, if any, and waits for it to exit (bounded). */
    async close() {
      closed = true;
      const current = running;
      if (current === undefined || current.child.pid === undefined) return;
      signal(current.child, 'SIGTERM');
      if (await within(current.exited, TERM_GRACE_MS)) return;
      signal(current.child, 'SIGKILL');
      await within(current.exited, KILL_GRACE_MS);
    },
    killNow() {
      closed = true;
      if (running?.child.pid !== undefined) signal(running.child, 'SIGKILL');
    },
  };
}

/** Whether `promise` settled within `ms`. */
function within(promise, ms) {
  let timer;
  const timeout = new Promise((resolve) => (timer = setTimeout(resolve, ms, false)));
  return Promise.race([promise.then(() => true), timeout]).finally(() => clearTimeout(timer));
}

/**
 * One `abgen build --json`, as the compilation's problems: `{ errors, warnings, built? }`,
 * each problem `{ message, file? }` (`placeOf`).
 */
async function buildArtifact(abgen, { root, out, targets, dev }) {
  const args = ['build', '--json', '--root', root];
  if (dev) args.push('--dev');
  if (out !== undefined) args.push('--out', out);
  if (targets !== undefined) args.push('--target', targets.join(','));
  const started = performance.now();
  const result = await abgen.run(args);
  const outcome = { errors: [], warnings: [] };
  if (result.closed) return outcome;
  if (result.error !== undefined) {
    outcome.errors.push({ message: cannotRun(result.error).message });
    return outcome;
  }
  let report;
  try {
    report = JSON.parse(result.stdout);
  } catch {
    const how = result.signal ? `was ended by ${result.signal}` : `exited ${result.code}`;
    outcome.errors.push({ message: `abgen build ${how} without a build report:\n${result.stderr.trim()}` });
    return outcome;
  }
  for (const diagnostic of report.diagnostics) {
    const problem = { message: describe(diagnostic), ...placeOf(root, diagnostic) };
    if (diagnostic.severity === 'error') outcome.errors.push(problem);
    else if (diagnostic.severity === 'warning') outcome.warnings.push(problem);
  }
  if (report.status === 'built') {
    const where = path.relative(process.cwd(), report.out) || '.';
    const ms = Math.round(performance.now() - started);
    outcome.built = `abgen built ${where} for ${report.targets.join(', ')} (${report.files} files) in ${ms} ms`;
  } else if (outcome.errors.length === 0) {
    // Not built for a reason that is no diagnostic (an I/O failure): abgen said it on stderr.
    outcome.errors.push({ message: `abgen build failed (exit ${result.code}):\n${result.stderr.trim()}` });
  }
  return outcome;
}

/** A diagnostic's code, message and what to do, as one Rsbuild error's message. */
function describe({ code, message, recovery, note }) {
  let text = `${code}: ${message}`;
  if (recovery) text += `\n  help: ${recovery}`;
  if (note) text += `\n  note: ${note}`;
  return text;
}

/**
 * Where a diagnostic is, as the error's `file`: absolute, with `:line:column` when known, the
 * form Rsbuild prints as the error's `File:` line (relative to its root) and editors open.
 */
function placeOf(root, { file, line, column }) {
  if (file === null) return {};
  let place = path.resolve(root, file);
  if (line !== null) place += `:${line}:${column ?? 1}`;
  return { file: place };
}

/** abgen not found (its message says where it was looked for), or found and not startable. */
function cannotRun(error) {
  return error.code === undefined ? error : new Error(`${WHO} could not run abgen: ${error.message}`);
}

function rsbuildError(ErrorClass, { message, file }) {
  const error = new ErrorClass(message);
  error.name = 'AgentBundleError';
  // A diagnostic is the whole story; the plugin's own stack would only hide it.
  error.hideStack = true;
  if (file !== undefined) error.file = file;
  return error;
}
