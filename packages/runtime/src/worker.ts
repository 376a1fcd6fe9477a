/**
 * The render worker entry (`@agent-bundle/runtime/worker`): `startWorker` speaks the worker
 * protocol of schemas/worker-protocol.schema.json on file descriptors 3 (host → worker) and
 * 4 (worker → host) and renders routes with React's own Flight server.
 *
 * It also answers `schemas` requests: the JSON Schemas of a route whose zod schemas the compiler
 * could not read statically, printed by zod's own `toJSONSchema` once per route for the worker's
 * life (the host projects them per client and validates calls against them).
 *
 * Run as `node --conditions=react-server worker.mjs` with NODE_ENV=production, so React emits
 * production Flight (digest-only errors). Invariant: only this module writes to fd 4, and only
 * whole frames; author output on stdout/stderr never reaches the protocol.
 *
 * The worker never outlives its host: it exits when fd 3 closes, and where the host cannot have
 * the kernel kill it on its death (Linux's parent-death signal), `ABGEN_WORKER_PARENT_PID` names
 * the host and a thread of its own watches that parent (see `watchParent`).
 */
import { createReadStream, fstatSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Socket } from 'node:net';
import { createElement, version as reactVersion, type ReactNode } from 'react';
import { renderToReadableStream } from 'react-server-dom-webpack/server';
import { safeParseAsync, toJSONSchema } from 'zod/mini';
import type * as z from 'zod';

import {
  HandoffRequiredError,
  outsideAgentContext,
  runWithAgentContext,
  type AgentContext,
  type AgentLog,
  type AgentProviderContext,
  type AgentTerminal,
  type Axis,
  type ObservedAxisName,
  type LogLevel,
  type ProgressReport,
  type RouteKind,
} from './context.ts';
import { flightDigest } from './digest.ts';
import { routeIdentity, type AgentLayoutProps } from './layout.ts';
import { AgentResult, describeIssues } from './result.ts';
import { encodeFrame, FrameReader, type Frame } from './framing.ts';
import { resolvePluginRoot, type PluginAxisValue } from './plugin-root.ts';

/** The protocol version this worker speaks. */
export const WORKER_PROTOCOL = 7;

/** What the generated worker entry passes to `startWorker`. */
export interface WorkerOptions {
  protocol: typeof WORKER_PROTOCOL;
  /** The artifact digest (the epoch); the host refuses a worker with another one. */
  artifact: string;
  /** Route id → lazy import of its module, so a cold start does not grow with the plugin. */
  routes: Record<string, () => Promise<unknown>>;
  /** Provider key → lazy import of `src/providers/<key>.ts` (its default export is the factory). */
  providers?: Record<string, () => Promise<unknown>>;
  /** Layout id (`layout:root`, `layout:mcp:<server>`) → lazy import of its module. */
  layouts?: Record<string, () => Promise<unknown>>;
  /** Where frames are read and written; fd 3 and fd 4 unless a test says otherwise. */
  fds?: { input: number; output: number };
  /**
   * The artifact root (the parent of `runtime/`): the plugin axis's code root unless the host
   * sets an expanded `AGENT_BUNDLE_PLUGIN_ROOT`. Default: the working directory.
   */
  pluginRoot?: string;
}

/** A render request, as the host sends it. */
interface RenderMessage {
  type: 'render';
  id: number;
  route: string;
  kind: RouteKind;
  /** How the render was invoked, when that is not `kind` (a tool run as a CLI command). */
  invocation?: RouteKind;
  input: unknown;
  context?: Record<string, unknown>;
  /** Provider values a test injects, by key: `provider(key)` resolves to the value as given. */
  providers?: Record<string, unknown>;
  limits?: { maxFlightBytes?: number; maxElapsedMs?: number };
}

/** A request for a route's run-time JSON Schemas, as the host sends it. */
interface SchemasMessage {
  type: 'schemas';
  id: number;
  route: string;
  kind: RouteKind;
}

/** A route's JSON Schemas as zod prints them; `null` for a side the route does not declare. */
interface ComputedSchemas {
  input: unknown;
  result: unknown;
}

/** An error as it travels in `error` frames and in Flight digests. */
interface WireError {
  code: string;
  message: string;
}

/** A route module reduced to what rendering needs, whichever form it was written in. */
interface RouteDefinition {
  inputSchema?: z.core.$ZodType;
  resultSchema?: z.core.$ZodType;
  render(input: unknown, context: AgentContext): ReactNode | Promise<ReactNode>;
}

/** The environment variable in which a host asks the worker to watch for its death. */
const PARENT_PID_ENV = 'ABGEN_WORKER_PARENT_PID';

/** How often the parent watch looks. */
const PARENT_WATCH_INTERVAL_MS = 250;

/** The parent watch, run on its own thread (CommonJS, as `eval` workers are). */
const PARENT_WATCH = `
const { workerData } = require('node:worker_threads');
const check = () => {
  if (process.ppid !== workerData.parent) process.kill(process.pid, 'SIGKILL');
};
check();
setInterval(check, workerData.intervalMs);
`;

/**
 * When the host names its pid in `ABGEN_WORKER_PARENT_PID`, kills this process as soon as its
 * parent is another one (the host died and the worker was adopted). A route that busy-loops
 * keeps the main thread from ever reading fd 3's end, so the watch runs on a thread of its own,
 * which has its own event loop; it does not keep the process alive.
 */
function watchParent(): void {
  const parent = Number(process.env[PARENT_PID_ENV]);
  // Author code has no business with it.
  delete process.env[PARENT_PID_ENV];
  if (!Number.isInteger(parent) || parent <= 0) return;
  // Required here, not imported: only a host without a death signal (macOS) asks for the watch,
  // and loading the module (and the performance hooks it brings) would cost every start.
  const { Worker } = createRequire(import.meta.url)('node:worker_threads') as typeof import('node:worker_threads');
  const watch = new Worker(PARENT_WATCH, {
    eval: true,
    workerData: { parent, intervalMs: PARENT_WATCH_INTERVAL_MS },
  });
  watch.on('error', (error) => console.error(`abgen worker: the parent watch failed: ${messageOf(error)}`));
  watch.unref();
}

/** Starts the worker: sends `hello`, then serves render and abort frames until fd 3 closes. */
export function startWorker(options: WorkerOptions): void {
  watchParent();
  if (options.protocol !== WORKER_PROTOCOL) {
    throw new Error(`worker entry speaks protocol ${options.protocol}, this runtime speaks ${WORKER_PROTOCOL}`);
  }
  const fds = options.fds ?? { input: 3, output: 4 };
  const send = (header: Frame['header'], payload?: Uint8Array) => writeAll(fds.output, encodeFrame(header, payload));
  const renders = new Map<number, AbortController>();
  // Route id → its computed schemas: zod prints each route's schemas once for this worker's life.
  const schemas = new Map<string, Promise<ComputedSchemas>>();

  process.on('unhandledRejection', (reason) => {
    console.error('abgen worker: unhandled rejection:', reason);
  });

  send({ type: 'hello', protocol: WORKER_PROTOCOL, react: reactVersion, artifact: options.artifact });
  // Resolved once: every render of this worker sees the same roots.
  const plugin = resolvePluginRoot({ digest: options.artifact, fallbackRoot: options.pluginRoot ?? process.cwd() });

  const reader = new FrameReader();
  const input = frameInput(fds.input);
  input.on('data', (chunk) => {
    let frames: Frame[];
    try {
      frames = reader.push(typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk);
    } catch (error) {
      console.error(`abgen worker: malformed frame from the host: ${messageOf(error)}`);
      process.exit(2);
    }
    for (const frame of frames) {
      const header = frame.header;
      if (header.type === 'render') {
        const message = header as unknown as RenderMessage;
        const controller = new AbortController();
        renders.set(message.id, controller);
        void serveRender(options, plugin, message, controller, send).finally(() => {
          renders.delete(message.id);
          announceFirstRender();
        });
      } else if (header.type === 'schemas') {
        void serveSchemas(options, header as unknown as SchemasMessage, schemas, send);
      } else if (header.type === 'abort') {
        const reason = typeof header.reason === 'string' ? header.reason : 'aborted by the host';
        renders.get(Number(header.id))?.abort(wireError('aborted', reason));
      } else {
        console.error(`abgen worker: ignoring a frame of unknown type \`${header.type}\``);
      }
    }
  });
  input.on('end', () => process.exit(0));
  input.on('error', (error) => {
    console.error(`abgen worker: reading fd ${fds.input} failed: ${error.message}`);
    process.exit(2);
  });
}

/**
 * The stream the host's frames arrive on. A pipe or socket (what abgen-host gives) is read by
 * the event loop itself; any other file through the thread pool, which costs every frame a
 * hop to a pool thread and back.
 */
function frameInput(fd: number): NodeJS.ReadableStream {
  let pipe = false;
  try {
    const stat = fstatSync(fd);
    pipe = stat.isFIFO() || stat.isSocket();
  } catch {
    // An unusable fd: the stream below reports it through its error event.
  }
  if (pipe) return new Socket({ fd, readable: true, writable: false });
  return createReadStream('', { fd, autoClose: false });
}

/** The event the code-cache loader (packages/runtime/scripts/code-cache.mjs) listens for. */
export const RENDERED_EVENT = 'abgen:rendered';
let announced = false;

/**
 * Tells the code-cache loader, once, after the first render has answered, that the render path
 * (React's Flight server, the route, zod) is compiled: the cache it writes then holds that code
 * too. abgen-host ends its workers with SIGKILL, so the write at a clean exit never happens.
 */
function announceFirstRender(): void {
  if (announced) return;
  announced = true;
  setImmediate(() => (process as NodeJS.EventEmitter).emit(RENDERED_EVENT));
}

async function serveRender(
  options: WorkerOptions,
  plugin: Axis<PluginAxisValue>,
  message: RenderMessage,
  controller: AbortController,
  send: (header: Frame['header'], payload?: Uint8Array) => void,
): Promise<void> {
  const { id } = message;
  const fail = (error: WireError) => send({ type: 'error', id, error: { code: error.code, message: error.message } });
  const load = options.routes[message.route];
  if (load === undefined) {
    return fail(wireError('unknown-route', `no route \`${message.route}\` in this worker`));
  }
  let definition: RouteDefinition;
  try {
    definition = routeDefinition(await load(), message.route, message.kind);
  } catch (error) {
    return fail(wireError('route-load-failed', `route \`${message.route}\` failed to load: ${messageOf(error)}`));
  }

  let layouts: LayoutComponent[];
  try {
    layouts = message.kind === 'event' ? [] : await layoutChain(options, message.route);
  } catch (error) {
    return fail(wireError('route-load-failed', messageOf(error)));
  }

  let input = message.input;
  if (message.kind !== 'event' && definition.inputSchema !== undefined) {
    const parsed = await safeParseAsync(definition.inputSchema, input);
    if (!parsed.success) return fail(wireError('invalid-input', describeIssues(parsed.error.issues)));
    input = parsed.data;
  }

  let ended = false;
  const providers = new Map<string, Promise<unknown>>();
  const injectedProviders = message.providers;
  const context: AgentContext = {
    route: { id: message.route, kind: message.kind },
    ...identityAxes(message, plugin),
    input,
    event: message.kind === 'event' ? input : undefined,
    signal: controller.signal,
    Result: AgentResult,
    progress: {
      report(report: ProgressReport) {
        if (ended) throw new HandoffRequiredError('a progress report');
        if (typeof report?.completed !== 'number') throw new TypeError('progress.report needs a numeric `completed`');
        send({ type: 'progress', id, completed: report.completed, total: report.total, message: report.message });
      },
    },
    log: logTo((level, text, data) => {
      if (ended) throw new HandoffRequiredError('a log record');
      if (typeof text !== 'string') throw new TypeError(`log.${level} needs a string message`);
      send({ type: 'log', id, level, message: text, ...(data === undefined ? {} : { data: jsonData(data) }) });
    }),
    provider<T>(key: string): Promise<T> {
      if (ended) return Promise.reject(new HandoffRequiredError(`provider \`${key}\` requested`));
      let value = providers.get(key);
      if (value === undefined && injectedProviders !== undefined && Object.hasOwn(injectedProviders, key)) {
        value = Promise.resolve(injectedProviders[key]);
        providers.set(key, value);
      }
      if (value === undefined) {
        const { invocation, host, session, workspace, plugin, lineage } = context;
        value = loadProvider(options, key, { invocation, signal: controller.signal, host, session, workspace, plugin, lineage });
        providers.set(key, value);
      }
      return value as Promise<T>;
    },
  };

  // `<Agent.Result>` checks its own value against `definition.resultSchema` (installed with the
  // context below), wherever in the tree and however late it renders.
  function Route(): ReactNode | Promise<ReactNode> {
    if (layouts.length === 0) return definition.render(input, context);
    return composeLayouts(layouts, definition.render(input, context), {
      route: routeIdentity(message.route),
      signal: controller.signal,
    });
  }

  const limits = message.limits ?? {};
  const timer =
    typeof limits.maxElapsedMs === 'number'
      ? setTimeout(
          () => controller.abort(wireError('limit-exceeded', `render took longer than ${limits.maxElapsedMs} ms`)),
          limits.maxElapsedMs,
        )
      : undefined;
  try {
    const stream = runWithAgentContext(
      context,
      () => renderToReadableStream(createElement(Route), {}, { onError: flightDigest, signal: controller.signal }),
      definition.resultSchema,
    );
    const reader = stream.getReader();
    let sent = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      sent += value.byteLength;
      send({ type: 'flight', id }, value);
      if (typeof limits.maxFlightBytes === 'number' && sent > limits.maxFlightBytes && !controller.signal.aborted) {
        controller.abort(wireError('limit-exceeded', `render produced more than ${limits.maxFlightBytes} bytes`));
      }
    }
    send({ type: 'end', id });
  } catch (error) {
    fail(wireError('render-failed', messageOf(error)));
  } finally {
    ended = true;
    clearTimeout(timer);
  }
}

/**
 * Answers a `schemas` request from the worker's cache, computing the route's schemas on its first
 * request. A computation that failed is forgotten, so a later request tries again.
 */
async function serveSchemas(
  options: WorkerOptions,
  message: SchemasMessage,
  cache: Map<string, Promise<ComputedSchemas>>,
  send: (header: Frame['header'], payload?: Uint8Array) => void,
): Promise<void> {
  const { id, route } = message;
  let computed = cache.get(route);
  if (computed === undefined) {
    computed = computeSchemas(options, message);
    cache.set(route, computed);
  }
  try {
    const { input, result } = await computed;
    send({ type: 'schemas', id, input, result });
  } catch (error) {
    if (cache.get(route) === computed) cache.delete(route);
    const code = typeof (error as { code?: unknown }).code === 'string' ? (error as WireError).code : 'schema-unrepresentable';
    send({ type: 'error', id, error: { code, message: messageOf(error) } });
  }
}

/** Prints a route's zod schemas with zod's own `toJSONSchema`: the input as it is accepted, the result as it is returned. */
async function computeSchemas(options: WorkerOptions, message: SchemasMessage): Promise<ComputedSchemas> {
  const load = options.routes[message.route];
  if (load === undefined) throw wireError('unknown-route', `no route \`${message.route}\` in this worker`);
  let definition: RouteDefinition;
  try {
    definition = routeDefinition(await load(), message.route, message.kind);
  } catch (error) {
    throw wireError('route-load-failed', `route \`${message.route}\` failed to load: ${messageOf(error)}`);
  }
  const print = (schema: z.core.$ZodType | undefined, io: 'input' | 'output'): unknown => {
    if (schema === undefined) return null;
    try {
      return toJSONSchema(schema, { io });
    } catch (error) {
      const side = io === 'input' ? 'input' : 'result';
      throw wireError(
        'schema-unrepresentable',
        `the ${side} schema of \`${message.route}\` has no JSON Schema form: ${messageOf(error)}`,
      );
    }
  };
  return { input: print(definition.inputSchema, 'input'), result: print(definition.resultSchema, 'output') };
}

/** Reads either route form: `defineTool`/`events.*` objects, or `config` + default component. */
function routeDefinition(module: unknown, route: string, kind: RouteKind): RouteDefinition {
  const exports = (module ?? {}) as Record<string, unknown>;
  const main = exports.default as Record<string, unknown> | ((props: unknown) => ReactNode) | undefined;
  if (typeof main === 'object' && main !== null && typeof main.handler === 'function') {
    if (main.kind !== kind) throw new Error(`route \`${route}\` is a ${String(main.kind)} route, not a ${kind} route`);
    const handler = main.handler as (...args: unknown[]) => ReactNode | Promise<ReactNode>;
    const routeOptions = (main.options ?? {}) as Record<string, unknown>;
    return {
      inputSchema: routeOptions.inputSchema as z.core.$ZodType | undefined,
      resultSchema: routeOptions.resultSchema as z.core.$ZodType | undefined,
      render: (input, context) =>
        kind === 'event' ? handler(eventProps(input, context.signal)) : handler(input, context),
    };
  }
  if (typeof main === 'function') {
    const Component = main;
    return {
      inputSchema: exports.inputSchema as z.core.$ZodType | undefined,
      resultSchema: exports.resultSchema as z.core.$ZodType | undefined,
      render: (input, context) =>
        createElement(
          Component,
          (kind === 'event' ? eventProps(input, context.signal) : { input, signal: context.signal }) as never,
        ),
    };
  }
  throw new Error(`route \`${route}\` has no default export made by defineTool, events.*, or a component`);
}

/** A layout's default export. */
type LayoutComponent = (props: AgentLayoutProps) => ReactNode | Promise<ReactNode>;

/** The layouts around an MCP route, outermost first: the root layout, then its server's. */
async function layoutChain(options: WorkerOptions, route: string): Promise<LayoutComponent[]> {
  const { serverId } = routeIdentity(route);
  const ids = ['layout:root', ...(serverId === undefined ? [] : [`layout:mcp:${serverId}`])];
  const chain: LayoutComponent[] = [];
  for (const id of ids) {
    const load = options.layouts?.[id];
    if (load === undefined) continue;
    const module = (await load()) as { default?: unknown };
    if (typeof module.default !== 'function') throw new Error(`layout \`${id}\` has no default-exported component`);
    chain.push(module.default as LayoutComponent);
  }
  return chain;
}

/**
 * Wraps the route's element in its layouts. Seed 002: the route's element resolves before the
 * layout chain renders, so a throwing route fails the whole render instead of becoming an error
 * beneath a layout's shell.
 */
async function composeLayouts(
  layouts: readonly LayoutComponent[],
  rendered: ReactNode | Promise<ReactNode>,
  props: Omit<AgentLayoutProps, 'children'>,
): Promise<ReactNode> {
  let element = await rendered;
  for (const Layout of [...layouts].reverse()) {
    element = createElement(Layout, { ...props, children: element });
  }
  return element;
}

/**
 * The identity axes of a render, each as observed (schemas/worker-protocol.schema.json `axis`):
 * what the surface sent in the render's `context`, else, for an event, the canonical event's own
 * axis (whose `unavailable` form names no code: the host's payload did not carry it), else
 * `not-provided`. An axis is never guessed.
 */
function identityAxes(message: RenderMessage, plugin: Axis<PluginAxisValue>): Pick<
  AgentContext,
  'invocation' | 'host' | 'session' | 'workspace' | 'plugin' | 'actor' | 'lineage' | 'terminal'
> {
  const canonical = message.kind === 'event' ? ((message.input as { canonical?: Record<string, unknown> })?.canonical ?? {}) : {};
  const reported = message.context ?? {};
  const invoked = message.invocation ?? message.kind;
  const from = {
    tool: 'tool call',
    resource: 'resource read',
    prompt: 'prompt get',
    event: 'event',
    cli: 'command',
    script: 'script',
  }[invoked];
  const axis = (key: ObservedAxisName): Axis => {
    const sent = reported[key];
    if (isAxis(sent)) return sent;
    const own = key === 'host' && typeof canonical.host === 'string'
      ? { state: 'available' as const, value: canonical.host, source: 'native' as const }
      : canonical[key];
    if (isAvailable(own)) return own;
    if (isUnavailable(own)) return { state: 'unavailable', code: 'not-reported', reason: own.reason };
    if (key === 'lineage') {
      return { state: 'unavailable', code: 'not-provided', reason: 'no lineage registry exists yet' };
    }
    return { state: 'unavailable', code: 'not-provided', reason: `the ${from} carries no ${key}` };
  };
  return {
    invocation: { kind: invoked },
    host: axis('host'),
    session: axis('session'),
    workspace: axis('workspace'),
    // A test may inject the plugin axis; otherwise it is the worker's own, never `not-provided`.
    plugin: isAxis(reported.plugin) ? (reported.plugin as AgentContext['plugin']) : plugin,
    actor: axis('actor'),
    // The surface sends these values whole; their shapes are the protocol's, not re-checked here.
    lineage: axis('lineage') as AgentContext['lineage'],
    terminal: axis('terminal') as AgentContext['terminal'],
  };
}

function isAvailable(value: unknown): value is Extract<Axis, { state: 'available' }> {
  const candidate = value as { state?: unknown; source?: unknown } | null;
  return candidate?.state === 'available' && typeof candidate.source === 'string' && 'value' in (candidate as object);
}

function isUnavailable(value: unknown): value is { state: 'unavailable'; reason: string } {
  const candidate = value as { state?: unknown; reason?: unknown } | null;
  return candidate?.state === 'unavailable' && typeof candidate.reason === 'string';
}

/** An axis as the worker protocol carries it: available, or unavailable with its code. */
function isAxis(value: unknown): value is Axis {
  return isAvailable(value) || (isUnavailable(value) && typeof (value as { code?: unknown }).code === 'string');
}

function eventProps(input: unknown, signal: AbortSignal): Record<string, unknown> {
  const event = (input ?? {}) as Record<string, unknown>;
  return { canonical: event.canonical, native: event.native ?? {}, provenance: event.provenance, signal };
}

/**
 * Resolves provider `key` for one render: its module is imported once per worker (the import
 * cache keeps it for the worker's life), its factory is called with `request` outside the
 * render's async context.
 */
function loadProvider(options: WorkerOptions, key: string, request: AgentProviderContext): Promise<unknown> {
  return outsideAgentContext(async () => {
    const load = options.providers?.[key];
    if (load === undefined) throw new Error(`no provider \`${key}\` in this worker`);
    const module = (await load()) as { default?: unknown };
    return typeof module.default === 'function'
      ? await (module.default as (request: AgentProviderContext) => unknown)(request)
      : module.default;
  });
}

const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'notice', 'warning', 'error'];

/** `agent().log`: one method per level, each handing its record to `record`. */
function logTo(record: (level: LogLevel, message: string, data: unknown) => void): AgentLog {
  return Object.freeze(
    Object.fromEntries(LOG_LEVELS.map((level) => [level, (message: string, data?: unknown) => record(level, message, data)])),
  ) as AgentLog;
}

/** A log record's data as the JSON the frame carries; a value JSON cannot hold is the route's error, at the call. */
function jsonData(data: unknown): unknown {
  let text: string | undefined;
  try {
    text = JSON.stringify(data);
  } catch (error) {
    throw new TypeError(`log data must be JSON: ${messageOf(error)}`);
  }
  return text === undefined ? null : JSON.parse(text);
}

function wireError(code: string, message: string): WireError & Error {
  return Object.assign(new Error(message), { code });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function writeAll(fd: number, bytes: Uint8Array): void {
  let offset = 0;
  while (offset < bytes.length) {
    offset += writeSync(fd, bytes, offset, bytes.length - offset);
  }
}
