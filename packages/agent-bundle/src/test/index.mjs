// `agent-bundle/test`: route-unit, projection, MCP and hook tests of a plugin project, without a
// host. Everything runs through the real kernel: the project is built on demand into a
// temporary artifact (`abgen build`), and one long-lived `abgen-host harness` process per
// harness renders every route the way the MCP server and the hooks render it. MCP sessions are
// the artifact's own `abgen-host mcp` with the official SDK client; hooks are `abgen-host hook`.
//
// Plain JavaScript (typed by index.d.ts) because tests import it straight from Node.

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { locateBinary as findBinary } from '../binaries.mjs';

/**
 * Where `abgen` or `abgen-host` is: `$ABGEN_BIN` / `$ABGEN_HOST`, then `PATH` (`../binaries.mjs`,
 * the one lookup of both).
 * @param {'abgen' | 'abgen-host'} name
 */
export function locateBinary(name) {
  return findBinary(name, 'agent-bundle/test');
}

const CONFIG_NAMES = ['agent-bundle.config.ts', 'agent-bundle.config.mts', 'agent-bundle.config.js', 'agent-bundle.config.mjs'];

/** The project around `start`: the nearest directory at or above it with a config or a `src/`. */
function findProjectRoot(start) {
  let directory = path.resolve(start);
  for (;;) {
    if (CONFIG_NAMES.some((name) => existsSync(path.join(directory, name)))) return directory;
    const parent = path.dirname(directory);
    if (parent === directory) {
      throw new Error(`no agent-bundle project at or above ${start}: pass createHarness({ root })`);
    }
    directory = parent;
  }
}

/** Runs `command` to its end; resolves its exit code and output. */
function run(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], ...options });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ exitCode: code ?? (signal === null ? 1 : 128), stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

/**
 * A harness over one project. Every function of `agent-bundle/test` is a method of one; the
 * module's own exports use the project found from the working directory.
 * @param {import('./index.d.ts').HarnessOptions} [options]
 */
export function createHarness(options = {}) {
  const root = options.root === undefined ? findProjectRoot(process.cwd()) : path.resolve(toPath(options.root));
  const baseContext = options.context ?? {};
  let workspace;
  let artifact;
  let host;
  const sessions = new Set();

  /** The temporary directory everything of this harness lives in, made once. */
  function scratch() {
    if (workspace === undefined) {
      const directory = mkdtempSync(path.join(tmpdir(), 'agent-bundle-test-'));
      workspace = directory;
      // Removed by dispose(); this is for a test run that never calls it.
      process.once('exit', () => rmSync(directory, { recursive: true, force: true }));
    }
    return workspace;
  }

  /**
   * The environment of every process this harness starts: the test's own, with the state the
   * runtime keeps (the warm socket, the framework state root) inside the harness's directory,
   * and the plugin axis as `options.plugin` says.
   */
  function environment(extra = {}) {
    const directory = scratch();
    const env = {
      ...process.env,
      XDG_RUNTIME_DIR: path.join(directory, 'run'),
      XDG_STATE_HOME: path.join(directory, 'state'),
      AGENT_BUNDLE_STATE_ROOT: stateRoot(),
      ...extra,
    };
    if (options.plugin?.root !== undefined) env.AGENT_BUNDLE_PLUGIN_ROOT = options.plugin.root;
    else delete env.AGENT_BUNDLE_PLUGIN_ROOT;
    return env;
  }

  /** The framework state root every process of this harness gets. */
  function stateRoot() {
    return options.plugin?.stateRoot ?? path.join(scratch(), 'state', 'agent-bundle');
  }

  /** The artifact, built once on first use. */
  function build() {
    artifact ??= (async () => {
      const out = path.join(scratch(), 'artifact');
      const result = await run(locateBinary('abgen'), ['build', '--root', root, '--out', out], { env: environment() });
      if (result.exitCode !== 0) {
        throw new Error(`abgen build of ${root} failed (exit ${result.exitCode}):\n${result.stderr}${result.stdout}`);
      }
      return { root: out, manifest: JSON.parse(readFileSync(path.join(out, 'abgen.manifest.json'), 'utf8')) };
    })();
    return artifact;
  }

  /** The long-lived `abgen-host harness` process, started once. */
  function harnessHost() {
    host ??= (async () => {
      const built = await build();
      const child = spawn(locateBinary('abgen-host'), ['harness', '--artifact', built.root], {
        stdio: ['pipe', 'pipe', 'pipe'],
        env: environment(),
      });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
      const pending = new Map();
      let next = 0;
      let ended;
      const fail = (error) => {
        ended = error;
        for (const { reject } of pending.values()) reject(error);
        pending.clear();
      };
      child.on('error', fail);
      child.on('close', (code) => fail(new Error(`abgen-host harness exited (${code}): ${stderr.trim()}`)));
      createInterface({ input: child.stdout }).on('line', (line) => {
        const answer = JSON.parse(line);
        const waiting = pending.get(answer.id);
        pending.delete(answer.id);
        if (waiting === undefined) return;
        if (typeof answer.error === 'string' && answer.events === undefined && answer.progress === undefined) {
          waiting.reject(new Error(answer.error));
        } else {
          waiting.resolve(answer);
        }
      });
      const hold = holdWhileBusy(child);
      const request = (body) =>
        hold(
          () =>
            new Promise((resolve, reject) => {
              if (ended !== undefined) return reject(ended);
              const id = (next += 1);
              pending.set(id, { resolve, reject });
              child.stdin.write(`${JSON.stringify({ id, ...body })}\n`);
            }),
        );
      return { request, child, manifest: built.manifest, artifact: built.root };
    })();
    return host;
  }

  /**
   * The worker protocol's `context` and `providers` for one render: the harness's, then the
   * call's (an axis or provider the call names wins), each axis an observed value.
   */
  function renderSeams(harness, context = {}) {
    const axes = {};
    for (const [name, value] of Object.entries({ ...baseContext, ...context })) {
      if (!INJECTED_CONTEXT_KEYS.includes(name)) {
        throw new TypeError(`\`context.${name}\` is no request-context axis; a test injects ${INJECTED_CONTEXT_KEYS.map((key) => `\`${key}\``).join(', ')}`);
      }
      if (value === undefined || name === 'providers') continue;
      axes[name] = name === 'plugin' ? pluginAxis(harness, value) : observed(name, value);
    }
    const providers = {};
    for (const [key, value] of Object.entries({ ...baseContext.providers, ...context.providers })) {
      assertJsonValue(value, `context.providers.${key}`);
      providers[key] = value;
    }
    return { context: axes, providers };
  }

  /**
   * An injected plugin axis: what the test names, the rest of an available value as the
   * harness's own processes see it (the artifact's digest, its code root, the state root).
   */
  function pluginAxis(harness, value) {
    const axis = observed('plugin', value);
    if (axis.state === 'unavailable') return axis;
    const own = {
      digest: harness.manifest.digest,
      root: options.plugin?.root ?? harness.artifact,
      stateRoot: stateRoot(),
    };
    return { ...axis, value: { ...own, ...axis.value } };
  }

  async function renderRouteEvents(id, { input = {}, context } = {}) {
    const harness = await harnessHost();
    const answer = await harness.request({ render: { route: id, input, ...renderSeams(harness, context) } });
    return answer.events;
  }

  async function renderRoute(id, request = {}) {
    const events = await renderRouteEvents(id, request);
    const complete = events.findLast((event) => event.type === 'complete');
    if (complete === undefined) throw new Error(`the render of ${id} never completed`);
    return complete.document;
  }

  async function projectTargetCapabilities(events, fixture) {
    const harness = await harnessHost();
    const answer = await harness.request({ project: { events, fixture } });
    delete answer.id;
    return answer;
  }

  /** The generated MCP server `server` names, or the artifact's only one. */
  function serverOf(manifest, server) {
    const servers = (manifest.servers ?? []).filter((entry) => entry.mode === 'generated').map((entry) => entry.id);
    if (server !== undefined) {
      if (!servers.includes(server)) throw new Error(`no generated MCP server \`${server}\`; the project has: ${servers.join(', ') || 'none'}`);
      return server;
    }
    if (servers.length !== 1) {
      throw new Error(`the project has ${servers.length} generated MCP servers (${servers.join(', ')}); name one with { server }`);
    }
    return servers[0];
  }

  async function openInMemoryMcpServer(sessionOptions = {}) {
    const built = await build();
    const server = serverOf(built.manifest, sessionOptions.server);
    const [{ Client }, { StdioClientTransport }] = await Promise.all([
      import('@modelcontextprotocol/client'),
      import('@modelcontextprotocol/client/stdio'),
    ]);
    const transport = new StdioClientTransport({
      command: locateBinary('abgen-host'),
      args: ['mcp', '--server', server, '--artifact', built.root, ...(sessionOptions.workers ? ['--workers', String(sessionOptions.workers)] : [])],
      env: environment(),
      stderr: 'pipe',
    });
    const client = new Client(sessionOptions.clientInfo ?? { name: 'agent-bundle-test', version: '1.0.0' }, { capabilities: {} });
    await client.connect(transport);
    let closed = false;
    const close = async () => {
      if (closed) return;
      closed = true;
      sessions.delete(session);
      await client.close();
    };
    const session = { client, server, close, [Symbol.asyncDispose]: close };
    sessions.add(session);
    return session;
  }

  let shared;
  async function invokeMcpTool(name, args = {}, callOptions = {}) {
    shared ??= openInMemoryMcpServer(callOptions.server === undefined ? {} : { server: callOptions.server }).then((session) => {
      // The SDK's transport owns the process; this session is the harness's, not the test's, so
      // it keeps the test process alive only while a call is in flight.
      const child = session.client.transport?._process;
      return { session, hold: child === undefined ? (body) => body() : holdWhileBusy(child) };
    });
    const { session, hold } = await shared;
    if (!callOptions.progress) return hold(() => session.client.callTool({ name, arguments: args }));
    // The SDK sends its own `_meta.progressToken` (the request id) when it is given `onprogress`.
    const progress = [];
    const result = await hold(() =>
      session.client.callTool({ name, arguments: args }, { onprogress: (notification) => progress.push(notification) }),
    );
    return { ...result, progress };
  }

  async function invokeHook(hostName, event, payload, hookOptions = {}) {
    const built = await build();
    const args = ['hook', '--host', hostName, '--event', event];
    // With no warm runtime in a test, a delivery renders as a standalone one unless told otherwise.
    args.push('--fallback', hookOptions.fallback ?? 'standalone');
    const result = await run(locateBinary('abgen-host'), args, {
      env: environment({ ABGEN_ARTIFACT: built.root }),
      input: typeof payload === 'string' ? payload : JSON.stringify(payload),
      cwd: hookOptions.cwd ?? root,
    });
    let json;
    try {
      json = result.stdout.trim() === '' ? undefined : JSON.parse(result.stdout);
    } catch {
      json = undefined;
    }
    return { ...result, json };
  }

  async function dispose() {
    for (const session of [...sessions]) await session.close();
    if (shared !== undefined) {
      const opened = await shared.catch(() => undefined);
      if (opened !== undefined) await opened.hold(() => opened.session.close());
    }
    if (host !== undefined) {
      const started = await host.catch(() => undefined);
      if (started !== undefined && started.child.exitCode === null) {
        // Held again while it ends, so the wait for its exit keeps this process running.
        for (const target of [started.child, started.child.stdout, started.child.stderr]) target.ref?.();
        started.child.stdin.end();
        await new Promise((resolve) => started.child.once('close', resolve));
      }
    }
    if (workspace !== undefined) rmSync(workspace, { recursive: true, force: true });
    workspace = undefined;
    artifact = undefined;
    host = undefined;
    shared = undefined;
  }

  /**
   * `bin/<plugin> <args>` as `abgen-host cli` runs it (the same code), rendering on the harness's
   * kernel, with the terminal the `tty` knob shapes (or `terminal`, any other value).
   */
  async function invokeCli(args, cliOptions = {}) {
    if (!Array.isArray(args) || !args.every((arg) => typeof arg === 'string')) {
      throw new TypeError('invokeCli(args): args is a list of strings, the words and flags after the executable');
    }
    const harness = await harnessHost();
    const answer = await harness.request({
      cli: {
        args,
        terminal: cliOptions.terminal ?? syntheticTerminal(cliOptions.tty),
        ...(cliOptions.confirm === undefined ? {} : { confirm: cliOptions.confirm }),
      },
    });
    return { exitCode: answer.exitCode, stdout: answer.stdout, stderr: answer.stderr };
  }

  /** `bin/<plugin> run <name> <args>`: a rendered script. */
  async function runScript(name, args = [], cliOptions = {}) {
    return invokeCli(['run', name, ...args], cliOptions);
  }

  return {
    root,
    build: async () => (await build()).root,
    renderRoute,
    renderRouteEvents,
    projectTargetCapabilities,
    openInMemoryMcpServer,
    invokeMcpTool,
    invokeHook,
    invokeCli,
    runScript,
    dispose,
    [Symbol.asyncDispose]: dispose,
  };
}

/**
 * Keeps `child` (and its pipes) from holding the test process open, except while a call made
 * through the returned function is in flight: a harness left open by a test that is done does not
 * keep its process running, and a pending call is never abandoned by an exiting event loop.
 */
function holdWhileBusy(child) {
  let busy = 0;
  const streams = [child.stdin, child.stdout, child.stderr].filter((stream) => stream != null);
  const set = (held) => {
    for (const target of [child, ...streams]) (held ? target.ref : target.unref)?.call(target);
  };
  set(false);
  return async (body) => {
    busy += 1;
    if (busy === 1) set(true);
    try {
      return await body();
    } finally {
      busy -= 1;
      if (busy === 0) set(false);
    }
  };
}

/**
 * The deterministic terminal of the `tty` knob (seed 002, §The terminal capability): `true` is
 * one shared 80×24 terminal without colour, an object sets its `columns`, `rows` and `color`;
 * absent or `false`, stdout and stderr are pipes, so the output is piped Markdown.
 */
function syntheticTerminal(tty) {
  if (tty === undefined || tty === false) {
    const pipe = { kind: 'pipe', color: 'none' };
    return { hostSurface: 'cli', stdout: pipe, stderr: pipe, sharesTarget: false };
  }
  const shape = tty === true ? {} : tty;
  const stream = { kind: 'tty', color: shape.color ?? 'none', columns: shape.columns ?? 80, rows: shape.rows ?? 24 };
  return { hostSurface: 'cli', stdout: stream, stderr: stream, sharesTarget: true };
}

function toPath(value) {
  return value instanceof URL ? fileURLToPath(value) : String(value);
}

/** What a test's `context` may hold: the request-context axes, and provider values. */
const INJECTED_CONTEXT_KEYS = ['host', 'session', 'workspace', 'actor', 'plugin', 'lineage', 'terminal', 'providers'];

/**
 * Throws unless `value` crosses to the render worker unchanged as JSON: an injected provider
 * value is sent to the worker, so a function or a `Date` would silently arrive as something else.
 */
function assertJsonValue(value, at) {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (Number.isFinite(value)) return;
    throw new TypeError(`\`${at}\` is ${value}, which JSON cannot carry to the render worker`);
  }
  if (Array.isArray(value)) {
    value.forEach((item, index) => assertJsonValue(item, `${at}[${index}]`));
    return;
  }
  if (typeof value === 'object' && [Object.prototype, null].includes(Object.getPrototypeOf(value))) {
    for (const [key, item] of Object.entries(value)) assertJsonValue(item, `${at}.${key}`);
    return;
  }
  const what = typeof value === 'object' ? `a ${value.constructor?.name ?? 'non-plain object'}` : `a ${typeof value}`;
  throw new TypeError(
    `\`${at}\` is ${what}; an injected provider value reaches the route as JSON, so give plain data (objects, arrays, strings, finite numbers, booleans, null)`,
  );
}

/**
 * An axis as the worker protocol carries it. A test may write just the value (`host: 'claude'`)
 * for an available one (source `native`), or the whole observed form.
 */
function observed(name, value) {
  if (value !== null && typeof value === 'object' && (value.state === 'available' || value.state === 'unavailable')) {
    if (value.state === 'unavailable') {
      return { state: 'unavailable', code: value.code ?? 'not-provided', reason: value.reason ?? `the test provides no ${name}` };
    }
    return { state: 'available', value: value.value, source: value.source ?? 'native' };
  }
  return { state: 'available', value, source: 'native' };
}

// The module's own functions: one harness over the project found from the working directory,
// made on first use.
let defaultHarness;
const harness = () => (defaultHarness ??= createHarness());

/** @type {import('./index.d.ts').renderRoute} */
export const renderRoute = (id, request) => harness().renderRoute(id, request);
/** @type {import('./index.d.ts').renderRouteEvents} */
export const renderRouteEvents = (id, request) => harness().renderRouteEvents(id, request);
/** @type {import('./index.d.ts').projectTargetCapabilities} */
export const projectTargetCapabilities = (events, fixture) => harness().projectTargetCapabilities(events, fixture);
/** @type {import('./index.d.ts').openInMemoryMcpServer} */
export const openInMemoryMcpServer = (options) => harness().openInMemoryMcpServer(options);
/** @type {import('./index.d.ts').invokeMcpTool} */
export const invokeMcpTool = (name, args, options) => harness().invokeMcpTool(name, args, options);
/** @type {import('./index.d.ts').invokeHook} */
export const invokeHook = (host, event, payload, options) => harness().invokeHook(host, event, payload, options);
/** @type {import('./index.d.ts').invokeCli} */
export const invokeCli = (args, options) => harness().invokeCli(args, options);
/** @type {import('./index.d.ts').runScript} */
export const runScript = (name, args, options) => harness().runScript(name, args, options);
