/**
 * `createAppClient`: the App-inside-the-iframe half of the MCP Apps bridge (seed 002, §The typed
 * App client). It owns the `ui/initialize` handshake, request ids, pending requests, timeouts and
 * cancellation, JSON-RPC and result-envelope decoding, and the parent-window transport.
 *
 * Browser code: imports nothing but its siblings. The window is injectable (`options.window`), so
 * tests and non-DOM hosts drive the same client.
 */

import { AppClientError, rpcError } from './errors.js';
import type { AppRouteId, AppRouteInput, AppRouteResult } from './index.js';

/** The MCP Apps protocol version this client speaks. */
export const APP_PROTOCOL_VERSION = '2026-01-26';
/** The default deadline of every request. */
export const DEFAULT_TIMEOUT_MS = 15_000;
const MAX_TIMEOUT_MS = 2 ** 31 - 1;
/** Where `tools/call` carries the canonical route id (framework-private `_meta`). */
export const ROUTE_ID_META = 'agent-bundle/routeId';

/** What the client needs of a window: its `message` events and its parent. */
export interface AppWindow {
  readonly parent: AppMessageTarget | null;
  addEventListener(type: 'message', listener: (event: AppMessageEvent) => void): void;
  removeEventListener(type: 'message', listener: (event: AppMessageEvent) => void): void;
}

/** A window frames are posted to. */
export interface AppMessageTarget {
  postMessage(message: unknown, targetOrigin: string): void;
}

/** The fields of a `MessageEvent` the client reads. */
export interface AppMessageEvent {
  readonly data: unknown;
  readonly origin: string;
  readonly source: unknown;
}

/** `{ name, version, ... }` of the App, sent in `ui/initialize`. */
export type AppInfo = Readonly<{ name: string; version: string; [key: string]: unknown }>;

export interface AppClientOptions {
  appInfo: AppInfo;
  appCapabilities?: Readonly<Record<string, unknown>>;
  /** Every request's default deadline, 1 to 2³¹ − 1 ms (default 15 s). */
  timeoutMs?: number;
  /** An exact http(s) origin: every frame goes to it, and every frame must come from it. */
  targetOrigin?: string;
  /** The window to listen on (default: the global `window`); its `parent` is the host. */
  window?: AppWindow;
}

export interface RequestOptions {
  signal?: AbortSignalLike;
  timeoutMs?: number;
}

/** What the client reads of an `AbortSignal`. */
export interface AbortSignalLike {
  readonly aborted: boolean;
  readonly reason?: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** The host's answer to `ui/initialize`. */
export interface AppInitializeResult {
  readonly protocolVersion: string;
  readonly hostInfo: Readonly<{ name: string; version: string }>;
  readonly hostCapabilities: Readonly<Record<string, unknown>>;
  readonly hostContext: Readonly<Record<string, unknown>>;
  readonly [key: string]: unknown;
}

/** How the App asks its host to show it. */
export type AppDisplayMode = 'inline' | 'fullscreen' | 'pip';

/** One MCP content block (`{ type: 'text', text }` and the others). */
export type AppContentBlock = Readonly<{ type: string; [key: string]: unknown }>;

export interface AppClient {
  /** Performs the handshake once; later calls return the same result. */
  connect(options?: RequestOptions): Promise<AppInitializeResult>;
  /** Calls a tool of the App's server and resolves to its structured result. */
  call<Id extends AppRouteId>(id: Id, input: AppRouteInput<Id>, options?: RequestOptions): Promise<AppRouteResult<Id>>;
  /** Any MCP or `ui/*` request the host supports, resolving to the JSON-RPC result as is. */
  request(method: string, params?: Readonly<Record<string, unknown>>, options?: RequestOptions): Promise<unknown>;
  onToolInput<Id extends AppRouteId>(id: Id, listener: (input: AppRouteInput<Id>) => void): () => void;
  onToolResult<Id extends AppRouteId>(id: Id, listener: (result: AppRouteResult<Id>) => void): () => void;
  onToolError<Id extends AppRouteId>(id: Id, listener: (error: AppClientError) => void): () => void;
  onToolCancelled(listener: (cancelled: { reason?: string }) => void): () => void;
  /** Adopts a new parent (or window, or origin) and performs the handshake again. */
  rebind(options?: { parent?: AppMessageTarget; targetOrigin?: string; window?: AppWindow }): Promise<AppInitializeResult>;
  /** Removes the listener, rejects what is pending with `disposed`, drops every registration. */
  dispose(): void;
  /** The host's capabilities and context from the handshake (undefined before it). */
  readonly hostCapabilities: Readonly<Record<string, unknown>> | undefined;
  readonly hostContext: Readonly<Record<string, unknown>> | undefined;

  /** `ui/notifications/size-changed`: the App's content size. */
  sendSizeChanged(size: { width?: number; height?: number }): void;
  /** Reports the document's size now and whenever it changes; returns the function that stops. */
  autoResize(element?: { readonly scrollWidth: number; readonly scrollHeight: number }): () => void;
  /** `ui/open-link` (capability `openLinks`). */
  openLink(url: string, options?: RequestOptions): Promise<unknown>;
  /** `ui/message`: a user message to the conversation (capability `message`). */
  sendMessage(content: string | readonly AppContentBlock[], options?: RequestOptions): Promise<unknown>;
  /** `ui/update-model-context` (capability `updateModelContext`). */
  updateModelContext(
    context: { content?: readonly AppContentBlock[]; structuredContent?: Readonly<Record<string, unknown>> },
    options?: RequestOptions,
  ): Promise<unknown>;
  /** `ui/request-display-mode`: resolves to the mode the host chose. */
  requestDisplayMode(mode: AppDisplayMode, options?: RequestOptions): Promise<AppDisplayMode>;
}

interface Pending {
  generation: number;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  settle(): void;
}

type Listener = (value: never) => void;
interface Registration {
  kind: 'input' | 'result' | 'error' | 'cancelled';
  tool: string | null;
  listener: Listener;
}

/** Creates the client; misuse (a bad origin, app info or timeout, no window) throws at once. */
export function createAppClient(options: AppClientOptions): AppClient {
  if (typeof options !== 'object' || options === null) throw new TypeError('createAppClient() needs an options object');
  assertJsonObject(options.appInfo, 'appInfo');
  if (typeof options.appInfo.name !== 'string' || typeof options.appInfo.version !== 'string') {
    throw new TypeError('appInfo needs a string `name` and `version`');
  }
  const appCapabilities = options.appCapabilities ?? {};
  assertJsonObject(appCapabilities, 'appCapabilities');
  const clientTimeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  assertTimeout(clientTimeout, 'timeoutMs');
  let targetOrigin = options.targetOrigin;
  if (targetOrigin !== undefined) assertOrigin(targetOrigin);
  let view: AppWindow | undefined = options.window ?? (globalThis as { window?: AppWindow }).window;
  if (view === undefined || view === null) {
    throw new TypeError('createAppClient() found no window: pass `window` outside a browser');
  }
  let parent: AppMessageTarget | null = view.parent;

  let generation = 0;
  let nextId = 1;
  let disposed = false;
  let connected: AppInitializeResult | undefined;
  let connecting: Promise<AppInitializeResult> | undefined;
  let openingTool: string | null = null;
  let hostContext: Record<string, unknown> | undefined;
  const pending = new Map<number, Pending>();
  const registrations = new Set<Registration>();

  const post = (message: Record<string, unknown>) => {
    if (parent === null) throw new AppClientError('invalid-message', 'the App has no parent window to talk to');
    parent.postMessage({ jsonrpc: '2.0', ...message }, targetOrigin ?? '*');
  };

  const onMessage = (event: AppMessageEvent) => {
    if (disposed || parent === null || event.source !== parent) return;
    if (targetOrigin !== undefined && event.origin !== targetOrigin) return;
    const message = event.data;
    if (!isRecord(message) || message.jsonrpc !== '2.0') return;
    const hasId = typeof message.id === 'number' || typeof message.id === 'string';
    if (typeof message.method === 'string') {
      if (hasId) answerHostRequest(message.id as number | string, message.method);
      else if (!('id' in message)) notification(message.method, message.params);
      return;
    }
    if (!hasId || typeof message.id !== 'number') return;
    const request = pending.get(message.id);
    if (request === undefined || request.generation !== generation) return;
    const hasResult = 'result' in message;
    const hasError = 'error' in message;
    if (hasResult === hasError) {
      request.settle();
      request.reject(new AppClientError('invalid-message', 'a response carries neither or both of `result` and `error`'));
      return;
    }
    request.settle();
    if (hasError) {
      const error = message.error;
      if (!isRecord(error) || !Number.isInteger(error.code) || typeof error.message !== 'string') {
        request.reject(new AppClientError('invalid-message', 'a JSON-RPC error without an integer `code` and a `message`'));
        return;
      }
      request.reject(rpcError(error as { code: number; message: string; data?: unknown }));
      return;
    }
    request.resolve(message.result);
  };

  /** The host's requests: only `ui/resource-teardown` is the App's to answer. */
  const answerHostRequest = (id: number | string, method: string) => {
    if (method === 'ui/resource-teardown') {
      post({ id, result: {} });
      dispose();
      return;
    }
    post({ id, error: { code: -32601, message: `the App does not handle ${method}` } });
  };

  const notification = (method: string, params: unknown) => {
    if (connected === undefined) return;
    switch (method) {
      case 'ui/notifications/tool-input': {
        const args = isRecord(params) && isRecord(params.arguments) ? params.arguments : {};
        emit('input', openingTool, args);
        return;
      }
      case 'ui/notifications/tool-result': {
        const decoded = decodeToolResult(params);
        if (decoded instanceof AppClientError) emit('error', openingTool, decoded);
        else emit('result', openingTool, decoded);
        return;
      }
      case 'ui/notifications/tool-cancelled': {
        const reason = isRecord(params) && typeof params.reason === 'string' ? params.reason : undefined;
        emit('cancelled', null, reason === undefined ? {} : { reason });
        return;
      }
      case 'ui/notifications/host-context-changed':
        if (isRecord(params)) hostContext = { ...hostContext, ...params };
        return;
      default:
        return;
    }
  };

  /** Listeners run asynchronously; what one throws is dropped. */
  const emit = (kind: Registration['kind'], tool: string | null, value: unknown) => {
    if (kind !== 'cancelled' && tool === null) return;
    for (const registration of registrations) {
      if (registration.kind !== kind || (kind !== 'cancelled' && registration.tool !== tool)) continue;
      queueMicrotask(() => {
        if (!registrations.has(registration)) return;
        try {
          (registration.listener as (value: unknown) => void)(value);
        } catch {
          // A listener's own failure is not the client's.
        }
      });
    }
  };

  const send = (method: string, params: unknown, requestOptions: RequestOptions | undefined, handshake: boolean) => {
    const timeoutMs = requestOptions?.timeoutMs ?? clientTimeout;
    assertTimeout(timeoutMs, 'timeoutMs');
    if (disposed) return Promise.reject(new AppClientError('disposed', 'the App client is disposed'));
    const signal = requestOptions?.signal;
    if (signal?.aborted) return Promise.reject(new AppClientError('aborted', 'the request was aborted before it was sent'));
    const id = nextId++;
    return new Promise<unknown>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const cancel = (code: 'timeout' | 'aborted', reason: string) => {
        entry.settle();
        reject(new AppClientError(code, reason));
        // A request the host may be running is cancelled once the handshake is done.
        if (!handshake && connected !== undefined && !disposed) {
          try {
            post({ method: 'notifications/cancelled', params: { requestId: id, reason } });
          } catch {
            // No parent: nothing runs there.
          }
        }
      };
      const onAbort = () => cancel('aborted', 'the request was aborted');
      const entry: Pending = {
        generation,
        resolve,
        reject,
        settle() {
          pending.delete(id);
          if (timer !== undefined) clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
        },
      };
      pending.set(id, entry);
      timer = setTimeout(() => cancel('timeout', `no answer to ${method} within ${timeoutMs} ms`), timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        post(params === undefined ? { id, method } : { id, method, params });
      } catch (error) {
        entry.settle();
        reject(error);
      }
    });
  };

  const connect = (requestOptions?: RequestOptions): Promise<AppInitializeResult> => {
    if (disposed) return Promise.reject(new AppClientError('disposed', 'the App client is disposed'));
    if (connected !== undefined) return Promise.resolve(connected);
    if (connecting !== undefined) return connecting;
    const started = generation;
    const handshake = send(
      'ui/initialize',
      { appInfo: options.appInfo, appCapabilities, protocolVersion: APP_PROTOCOL_VERSION },
      requestOptions,
      true,
    ).then((result) => {
      if (started !== generation) throw new AppClientError('connection-rebound', 'the connection was rebound during the handshake');
      if (!isInitializeResult(result)) {
        throw new AppClientError('invalid-message', `the host's ui/initialize result is not a ${APP_PROTOCOL_VERSION} initialize result`, { data: result });
      }
      connected = result;
      hostContext = { ...result.hostContext };
      const toolInfo = result.hostContext.toolInfo;
      const tool = isRecord(toolInfo) && isRecord(toolInfo.tool) ? toolInfo.tool.name : undefined;
      openingTool = typeof tool === 'string' ? tool : null;
      post({ method: 'ui/notifications/initialized' });
      return result;
    });
    const settled = handshake.finally(() => {
      if (connecting === settled) connecting = undefined;
    });
    connecting = settled;
    return settled;
  };

  const request = async (method: string, params?: Readonly<Record<string, unknown>>, requestOptions?: RequestOptions) => {
    if (typeof method !== 'string' || method === '') throw new TypeError('request() needs a method name');
    if (requestOptions?.timeoutMs !== undefined) assertTimeout(requestOptions.timeoutMs, 'timeoutMs');
    await connect(requestOptions);
    return send(method, params, requestOptions, false);
  };

  const requireCapability = (capability: string) => {
    const capabilities = connected?.hostCapabilities;
    if (capabilities !== undefined && !isRecord(capabilities[capability])) {
      throw new AppClientError('capability-unavailable', `the host does not offer \`${capability}\``);
    }
  };

  const dispose = () => {
    if (disposed) return;
    disposed = true;
    view?.removeEventListener('message', onMessage);
    for (const entry of [...pending.values()]) {
      entry.settle();
      entry.reject(new AppClientError('disposed', 'the App client was disposed'));
    }
    registrations.clear();
    connected = undefined;
    connecting = undefined;
  };

  const register = (kind: Registration['kind'], id: unknown, listener: unknown) => {
    const tool = kind === 'cancelled' ? null : toolName(id);
    if (typeof listener !== 'function') throw new TypeError('a listener must be a function');
    const registration: Registration = { kind, tool, listener: listener as Listener };
    if (!disposed) registrations.add(registration);
    return () => {
      registrations.delete(registration);
    };
  };

  view.addEventListener('message', onMessage);

  const client: AppClient = {
    connect,
    async call(id, input, requestOptions) {
      const name = toolName(id);
      const result = await request('tools/call', { name, arguments: input as unknown, _meta: { [ROUTE_ID_META]: id } }, requestOptions);
      const decoded = decodeToolResult(result);
      if (decoded instanceof AppClientError) throw decoded;
      return decoded as AppRouteResult<typeof id>;
    },
    request,
    onToolInput: (id, listener) => register('input', id, listener),
    onToolResult: (id, listener) => register('result', id, listener),
    onToolError: (id, listener) => register('error', id, listener),
    onToolCancelled: (listener) => register('cancelled', 'tool:-/-', listener),
    rebind(next = {}) {
      if (disposed) return Promise.reject(new AppClientError('disposed', 'the App client is disposed'));
      if (next.targetOrigin !== undefined) assertOrigin(next.targetOrigin);
      for (const entry of [...pending.values()]) {
        entry.settle();
        entry.reject(new AppClientError('connection-rebound', 'the connection was rebound'));
      }
      generation += 1;
      connected = undefined;
      connecting = undefined;
      if (next.window !== undefined && next.window !== view) {
        view?.removeEventListener('message', onMessage);
        view = next.window;
        view.addEventListener('message', onMessage);
      }
      if (next.targetOrigin !== undefined) targetOrigin = next.targetOrigin;
      parent = next.parent ?? view?.parent ?? null;
      return connect();
    },
    dispose,
    get hostCapabilities() {
      return connected?.hostCapabilities;
    },
    get hostContext() {
      return hostContext;
    },
    sendSizeChanged(size) {
      if (disposed || connected === undefined) return;
      post({ method: 'ui/notifications/size-changed', params: size });
    },
    autoResize(element) {
      const target = element ?? (globalThis as { document?: { documentElement: { scrollWidth: number; scrollHeight: number } } }).document?.documentElement;
      if (target === undefined) return () => {};
      let last = '';
      const report = () => {
        const size = { width: Math.ceil(target.scrollWidth), height: Math.ceil(target.scrollHeight) };
        const key = `${size.width}x${size.height}`;
        if (key === last) return;
        last = key;
        client.sendSizeChanged(size);
      };
      const Observer = (globalThis as { ResizeObserver?: new (callback: () => void) => { observe(target: unknown): void; disconnect(): void } }).ResizeObserver;
      void connect().then(report, () => {});
      if (Observer === undefined) return () => {};
      const observer = new Observer(report);
      observer.observe(target);
      return () => observer.disconnect();
    },
    async openLink(url, requestOptions) {
      if (typeof url !== 'string' || url === '') throw new TypeError('openLink() needs a URL');
      await connect(requestOptions);
      requireCapability('openLinks');
      return send('ui/open-link', { url }, requestOptions, false);
    },
    async sendMessage(content, requestOptions) {
      const blocks = typeof content === 'string' ? [{ type: 'text', text: content }] : content;
      await connect(requestOptions);
      requireCapability('message');
      return send('ui/message', { role: 'user', content: blocks }, requestOptions, false);
    },
    async updateModelContext(context, requestOptions) {
      await connect(requestOptions);
      requireCapability('updateModelContext');
      return send('ui/update-model-context', context, requestOptions, false);
    },
    async requestDisplayMode(mode, requestOptions) {
      await connect(requestOptions);
      const available = hostContext?.availableDisplayModes;
      if (Array.isArray(available) && !available.includes(mode)) {
        throw new AppClientError('capability-unavailable', `the host offers no \`${mode}\` display mode`);
      }
      const result = await send('ui/request-display-mode', { mode }, requestOptions, false);
      if (!isRecord(result) || typeof result.mode !== 'string') {
        throw new AppClientError('invalid-message', 'ui/request-display-mode answered without a `mode`', { data: result });
      }
      return result.mode as AppDisplayMode;
    },
  };
  return client;
}

/** The wire tool name of a route id: the final segment of `tool:<server>/<name>`. */
export function toolName(id: unknown): string {
  const match = typeof id === 'string' ? /^tool:([^/\s]+)\/([^/\s]+)$/.exec(id) : null;
  if (match === null) throw new TypeError(`${JSON.stringify(id)} is not a tool route id (tool:<server>/<name>)`);
  return match[2] as string;
}

/** The structured result of a tool result, or why it has none. */
function decodeToolResult(result: unknown): Record<string, unknown> | AppClientError {
  if (!isRecord(result) || ('content' in result && !Array.isArray(result.content))) {
    return new AppClientError('invalid-message', 'the tool result is not a well-formed CallToolResult', { data: result });
  }
  if (result.isError === true) {
    return new AppClientError('rpc', 'the tool reported an error', { data: result });
  }
  if (isRecord(result.structuredContent)) return result.structuredContent;
  // A tool whose model reads its content (`model: 'content'`) carries its value here on hosts
  // that would otherwise hand the model `structuredContent`.
  const moved = isRecord(result._meta) ? result._meta[STRUCTURED_META_KEY] : undefined;
  if (isRecord(moved)) return moved;
  return new AppClientError('invalid-message', 'the tool result has no object `structuredContent`', { data: result });
}

/** The `_meta` member the generated server moves a result's value into (see `model`). */
const STRUCTURED_META_KEY = 'abgen.dev/structuredContent';

function isInitializeResult(value: unknown): value is AppInitializeResult {
  return (
    isRecord(value) &&
    value.protocolVersion === APP_PROTOCOL_VERSION &&
    isRecord(value.hostInfo) &&
    typeof value.hostInfo.name === 'string' &&
    isRecord(value.hostCapabilities) &&
    isRecord(value.hostContext)
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function assertTimeout(value: unknown, name: string): asserts value is number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_TIMEOUT_MS) {
    throw new RangeError(`${name} must be an integer from 1 to ${MAX_TIMEOUT_MS} milliseconds`);
  }
}

function assertOrigin(origin: unknown): asserts origin is string {
  let exact = false;
  if (typeof origin === 'string') {
    try {
      const url = new URL(origin);
      exact = (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === origin;
    } catch {
      exact = false;
    }
  }
  if (!exact) throw new TypeError(`targetOrigin ${JSON.stringify(origin)} is not an exact http: or https: origin`);
}

/** A plain object of finite JSON values. */
function assertJsonObject(value: unknown, name: string): void {
  const finite = (node: unknown, depth: number): boolean => {
    if (depth > 64) return false;
    if (node === null || typeof node === 'string' || typeof node === 'boolean') return true;
    if (typeof node === 'number') return Number.isFinite(node);
    if (Array.isArray(node)) return node.every((item) => finite(item, depth + 1));
    if (typeof node === 'object') {
      const prototype = Object.getPrototypeOf(node);
      if (prototype !== Object.prototype && prototype !== null) return false;
      return Object.values(node).every((item) => finite(item, depth + 1));
    }
    return false;
  };
  if (!isRecord(value) || !finite(value, 0)) throw new TypeError(`${name} must be a finite JSON object`);
}
