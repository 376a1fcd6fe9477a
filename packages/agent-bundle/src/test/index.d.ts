/**
 * `agent-bundle/test`: test a plugin project without a host (seed 002's test levels). The project
 * is built on demand into a temporary artifact, and every call runs through the real kernel:
 * route-unit renders and projections on one long-lived `abgen-host harness` process, MCP
 * sessions on the artifact's own `abgen-host mcp` with the official SDK client, hooks through
 * `abgen-host hook`. `abgen` and `abgen-host` are found through `ABGEN_BIN` and `ABGEN_HOST`,
 * then `PATH`.
 */
import type { Client } from '@modelcontextprotocol/client';
import type { AgentLineage, AgentTerminal, Axis, LogLevel, McpCallToolResult, PluginAxisValue } from '@agent-bundle/runtime';

/** An axis a test injects: the value alone (available, source `native`), or the observed form. */
export type InjectedAxis<Value = string> =
  | Value
  | { state: 'available'; value: Value; source?: 'native' | 'derived' }
  | { state: 'unavailable'; code?: 'not-provided' | 'not-reported'; reason?: string };

/**
 * The request-context axes a test injects, through the worker protocol's `context`: the seam
 * every surface uses. An axis left out is unavailable (`not-provided`), as in production; the
 * plugin axis left out is the harness's own. Any other key is a `TypeError`.
 */
export interface InjectedContext {
  host?: InjectedAxis;
  session?: InjectedAxis;
  workspace?: InjectedAxis;
  actor?: InjectedAxis;
  /**
   * The plugin axis. Fields an available value leaves out are the harness's own: the artifact's
   * digest, its code root (`HarnessOptions.plugin.root`, else the built artifact) and the state
   * root.
   */
  plugin?: InjectedAxis<Partial<PluginAxisValue>>;
  lineage?: InjectedAxis<AgentLineage>;
  terminal?: InjectedAxis<AgentTerminal>;
  /**
   * Provider values by the key routes pass to `provider(key)`: such a call resolves to the value
   * and `src/providers/<name>.ts` is not evaluated; other keys resolve by discovery. The value
   * reaches the route as JSON, so it is plain data (a function or a `Date` is a `TypeError`).
   * A call's providers are merged over the harness's, key by key.
   */
  providers?: Record<string, unknown>;
}

/** One route render's request. */
export interface RouteRequest {
  /** A tool's arguments (before parsing), or an event's `{ canonical, native, provenance }`. */
  input?: unknown;
  context?: InjectedContext;
}

/** One Agent Document node (schemas/agent-document.schema.json). */
export type AgentNode = { kind: string; children?: AgentNode[]; [key: string]: unknown };

/** The final Agent Document of a render. */
export interface AgentDocument {
  version: 1;
  status: 'success' | 'represented-error' | 'failed';
  root: AgentNode;
  value?: unknown;
  metadata?: Record<string, unknown>;
}

/** One render event: `shell`, `progress`, `log`, `replace`, `error` or the last, `complete`. */
export type RenderEvent =
  | { type: 'shell' | 'replace' | 'complete'; sequence: number; document: AgentDocument; boundaryId?: string }
  | { type: 'progress'; sequence: number; completed: number; total?: number; message?: string }
  | { type: 'log'; sequence: number; level: LogLevel; message: string; data?: unknown }
  | { type: 'error'; sequence: number; [key: string]: unknown };

/** The capabilities of the surface a projection is for. */
export type TargetFixture =
  | { surface: 'mcp'; progressToken?: string | number; acceptsImage?: boolean; acceptsAudio?: boolean; richFallback?: boolean; valueAsText?: boolean; valueInMeta?: boolean }
  | { surface: 'cli'; format?: 'markdown' | 'json' | 'ndjson' };

/** What the surface receives: MCP progress notifications' params and the result, or CLI output. */
export type TargetProjection =
  | { progress: Record<string, unknown>[]; result: McpCallToolResult }
  | { progress: Record<string, unknown>[]; error: string }
  | { stdout: string; exitCode: number };

/** A session with the project's real generated MCP server. */
export interface McpSession extends AsyncDisposable {
  /** The official SDK client, connected over stdio to `abgen-host mcp`. */
  readonly client: Client;
  readonly server: string;
  close(): Promise<void>;
}

export interface McpSessionOptions {
  /** The generated server; required when the project has more than one. */
  server?: string;
  /** How the client names itself in `initialize` (the host axis and `excludeClients` read it). */
  clientInfo?: { name: string; version: string };
  workers?: number;
}

export interface McpToolOptions {
  server?: string;
  /**
   * Ask for progress (the client sends a `_meta.progressToken`): the result then carries the
   * `notifications/progress` params received, in order.
   */
  progress?: boolean;
}

/** What `abgen-host hook` printed for one delivery: the host's exact native output. */
export interface HookOutput {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** `stdout` parsed, when it is JSON. */
  json: unknown;
}

export interface HookOptions {
  /** With no warm runtime in a test, `standalone` (the default) renders the delivery itself. */
  fallback?: 'none' | 'standalone';
  cwd?: string;
}

/**
 * The terminal a command sees: `true` is one shared 80×24 terminal without colour (the live
 * progress line, then the document for the terminal), an object shapes it; absent or `false`,
 * stdout and stderr are pipes (piped Markdown).
 */
export type TtyKnob = boolean | { columns?: number; rows?: number; color?: 'none' | 'basic' | '256' | 'truecolor' };

export interface CliOptions {
  tty?: TtyKnob;
  /** Any other terminal axis value, instead of the knob's. */
  terminal?: AgentTerminal;
  /**
   * The answer at the prompt of a command that changes things; absent, stdin is no terminal and
   * such a command needs `--yes` (exit 2 without it).
   */
  confirm?: boolean;
}

/** What the plugin's command line printed and how it exited (0, 1 failure, 2 usage). */
export interface CliOutput {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface HarnessOptions {
  /** The project root; default: the nearest directory at or above the working directory with a config. */
  root?: string | URL;
  /** Axes every render of this harness gets, under each call's own. */
  context?: InjectedContext;
  /**
   * The plugin axis, through the same variables the generated shells read
   * (`AGENT_BUNDLE_PLUGIN_ROOT`, `AGENT_BUNDLE_STATE_ROOT`); default: the artifact root and a
   * state root inside the harness's temporary directory.
   */
  plugin?: { root?: string; stateRoot?: string };
}

export declare function renderRoute(id: string, request?: RouteRequest): Promise<AgentDocument>;
export declare function renderRouteEvents(id: string, request?: RouteRequest): Promise<RenderEvent[]>;
export declare function projectTargetCapabilities(events: readonly RenderEvent[], fixture: TargetFixture): Promise<TargetProjection>;
export declare function openInMemoryMcpServer(options?: McpSessionOptions): Promise<McpSession>;
export declare function invokeMcpTool(
  name: string,
  args?: Record<string, unknown>,
  options?: McpToolOptions,
): Promise<McpCallToolResult & { progress?: Record<string, unknown>[] }>;
export declare function invokeHook(host: string, event: string, payload: unknown, options?: HookOptions): Promise<HookOutput>;
/** `bin/<plugin> <args>`: a projected tool, a `src/cli/**` command, `--help`, … */
export declare function invokeCli(args: readonly string[], options?: CliOptions): Promise<CliOutput>;
/** `bin/<plugin> run <name> <args>`: a rendered `src/scripts/<name>.tsx`. */
export declare function runScript(name: string, args?: readonly string[], options?: CliOptions): Promise<CliOutput>;

/** The harness over one project; the functions above are the default harness's. */
export interface Harness extends AsyncDisposable {
  readonly root: string;
  /** Builds the artifact (once) and returns its root. */
  build(): Promise<string>;
  renderRoute: typeof renderRoute;
  renderRouteEvents: typeof renderRouteEvents;
  projectTargetCapabilities: typeof projectTargetCapabilities;
  openInMemoryMcpServer: typeof openInMemoryMcpServer;
  invokeMcpTool: typeof invokeMcpTool;
  invokeHook: typeof invokeHook;
  invokeCli: typeof invokeCli;
  runScript: typeof runScript;
  /** Ends every process of this harness and removes its temporary directory. */
  dispose(): Promise<void>;
}

export declare function createHarness(options?: HarnessOptions): Harness;

/** Where `abgen` or `abgen-host` is: `$ABGEN_BIN` / `$ABGEN_HOST`, then `PATH`. */
export declare function locateBinary(name: 'abgen' | 'abgen-host'): string;

export type { Axis };
