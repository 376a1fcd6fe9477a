/// <reference types="node" />
/**
 * The request context of one render: `agent()` and `useAgent()` read it from an
 * AsyncLocalStorage that the worker installs around the route's handler and its render.
 *
 * Invariant: a context belongs to exactly one render; once that render has ended, progress
 * reports and log records are refused with a `handoff-required` error instead of being sent nowhere.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { $ZodType } from 'zod/v4/core';

import type { PluginAxisValue } from './plugin-root.ts';
import type { AgentResult } from './result.ts';

/** A progress report, as `agent().progress.report()` takes it. */
export interface ProgressReport {
  completed: number;
  total?: number;
  message?: string;
}

/** The levels a route logs at: MCP's, lowest first (critical and above are the server's own). */
export type LogLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error';

/**
 * A route's log, `agent().log`: one method per MCP level, each taking a message a person reads
 * and optional JSON data. On MCP a record becomes `notifications/message` when the client's
 * `logging/setLevel` asked for its level or a lower one (a client that never set a level gets
 * none); hooks and the plugin's command line write it to stderr. Never part of the document.
 */
export type AgentLog = Record<LogLevel, (message: string, data?: unknown) => void>;

/** Why an axis is unavailable (schemas/worker-protocol.schema.json `axis`). */
export type AxisUnavailableCode =
  /** No surface fills this axis (yet). */
  | 'not-provided'
  /** The host's payload did not carry it. */
  | 'not-reported';

/**
 * One request-context axis as observed (schemas/worker-protocol.schema.json `axis`): known (from
 * the host's own payload, or derived), or unknown with a typed code and a reason. Never guessed.
 */
export type Axis<T = string> =
  | { state: 'available'; value: T; source: 'native' | 'derived' }
  | { state: 'unavailable'; code: AxisUnavailableCode; reason: string };

/**
 * What a render is for: an MCP route (a tool call, a resource read, a prompt get), a host event,
 * a rendered `src/cli/**` command or a rendered `src/scripts/*.tsx` script. As
 * `invocation.kind` it says how the render was invoked: a tool run from the plugin's command
 * line is `cli`.
 */
export type RouteKind = 'tool' | 'resource' | 'prompt' | 'event' | 'cli' | 'script';

/** One output stream (schemas/worker-protocol.schema.json `terminalStream`). */
export interface AgentTerminalStream {
  /** A terminal, a pipe or file, or nothing (closed, `/dev/null`). */
  kind: 'tty' | 'pipe' | 'none';
  /** The colour depth the CLI's own rules give this stream (FORCE_COLOR, NO_COLOR, …). */
  color: 'none' | 'basic' | '256' | 'truecolor';
  /** The size the terminal reports, or COLUMNS/LINES when set. */
  columns?: number;
  rows?: number;
}

/**
 * What the process's output streams are (schemas/worker-protocol.schema.json `terminal`),
 * computed once per invocation by the rules that pick the CLI's output mode. Information only:
 * read it instead of probing `process.stdout.isTTY` or FORCE_COLOR.
 */
export interface AgentTerminal {
  hostSurface: 'cli' | 'mcp' | 'hook' | 'script' | 'workbench';
  stdout: AgentTerminalStream;
  stderr: AgentTerminalStream;
  /** fd 1 and fd 2 name one open file (`2>&1`, one shared terminal). */
  sharesTarget: boolean;
}

/**
 * The axes a render's `context` may carry. No host surface sends `plugin`: the worker resolves
 * its own, and only a test injects one.
 */
export type ObservedAxisName = 'host' | 'session' | 'workspace' | 'actor' | 'lineage' | 'terminal' | 'plugin';

/** How a conversation was placed in its lineage: the trust level of `parent`, `root` and `depth`. */
export type LineageResolution = 'native' | 'registry' | 'confirmed' | 'transcript' | 'inferred';

/** One live conversation of a lineage tree: the registry's facts about that node. */
export interface LineagePeer {
  conversation: string;
  depth: number;
  parent?: string;
  /** When the registry saw the conversation start (ISO 8601). */
  startedAt: string;
  subagent?: LineageSubagent;
  resolution: LineageResolution;
}

/** What a subagent is, when the conversation is one. */
export interface LineageSubagent {
  /** The host's name for the subagent's type, when it names one. */
  type?: string;
  /** The tool call that spawned it, when known. */
  toolCallId?: string;
}

/**
 * Who this conversation's parent is, what its root is, and whether it is a subagent (seed 002
 * §Request context). `tree` is present only when the registry placed the request.
 */
export interface AgentLineage {
  conversation: string;
  root: string;
  parent?: string;
  depth: number;
  generation?: number;
  subagent?: LineageSubagent;
  resolution: LineageResolution;
  tree?: {
    /** Every other live conversation under the same root, oldest first. */
    siblings: readonly LineagePeer[];
    /** Live conversations whose parent is this one. */
    children: readonly LineagePeer[];
    /** Other live root conversations. */
    roots: readonly LineagePeer[];
  };
}

/** A read-only view of the project's `src/state.ts` store, as a provider sees it. */
export interface AgentStateView {
  read(): Promise<{ revision: number; value?: unknown }>;
}

/** A read-only view of the notice ledger, as a provider sees it. */
export interface AgentNoticesView {
  inbox(): Promise<readonly unknown[]>;
  published(): Promise<readonly unknown[]>;
}

/** What a route can learn about the render it is part of. */
export interface AgentContext {
  route: { id: string; kind: RouteKind };
  /**
   * How this render was invoked: a tool call, a resource read, a prompt get, a host event, or
   * `cli` / `script` when it runs from the plugin's command line or a rendered script.
   */
  invocation: { kind: RouteKind };
  /** The host (claude, codex, cursor, …), the session, the workspace, as the host told them. */
  host: Axis;
  session: Axis;
  workspace: Axis;
  /**
   * This plugin: the artifact digest, the code root (`native` from an expanded
   * `AGENT_BUNDLE_PLUGIN_ROOT`, else `derived`: the artifact root) and the framework state root.
   */
  plugin: Axis<PluginAxisValue>;
  /** Not observed yet: always unavailable, with the reason. */
  actor: Axis;
  /** Unavailable until a lineage registry exists; a test injects it as `context.lineage`. */
  lineage: Axis<AgentLineage>;
  /** The output streams of the process that invoked the render, when it has any. */
  terminal: Axis<AgentTerminal>;
  input: unknown;
  event?: unknown;
  signal: AbortSignal;
  /**
   * `<Agent.Result>` itself; a `defineTool` handler's context types it by the route's
   * `resultSchema`, so a wrong value is a type error where it is written.
   */
  Result: typeof AgentResult;
  progress: { report(report: ProgressReport): void };
  /** Log records for whoever observes the render (see {@link AgentLog}). */
  log: AgentLog;
  provider<T = unknown>(key: string): Promise<T>;
}

/**
 * What a provider factory (`src/providers/<name>.ts`'s default export) receives: the request it
 * is first asked for in, as the route reads it — how it was invoked, its signal, and the same
 * observed axes with the same provenance. The factory runs outside the request's async context
 * (`agent()` throws there), once per render that asks for the provider; the provider's module is
 * evaluated once per worker and lives as long as the worker, so state it keeps at module level is
 * seen by every later render on that worker.
 */
export interface AgentProviderContext {
  invocation: AgentContext['invocation'];
  signal: AbortSignal;
  host: Axis;
  session: Axis;
  workspace: Axis;
  plugin: Axis<PluginAxisValue>;
  lineage: Axis<AgentLineage>;
  /** The read-only state view, when the project declares `src/state.ts` (none does yet). */
  state?: AgentStateView;
  /** The notice ledger's read-only view, when the scope mounts it (none does yet). */
  notices?: AgentNoticesView;
}

/** The error a producer gets when its render has already completed. */
export class HandoffRequiredError extends Error {
  readonly code = 'handoff-required';
  constructor(what: string) {
    super(`${what} after the render completed; nothing can receive it`);
    this.name = 'HandoffRequiredError';
  }
}

const storage = new AsyncLocalStorage<AgentContext>();

/** Each render's `resultSchema`, kept off the public context so routes cannot swap it. */
const resultSchemas = new WeakMap<AgentContext, $ZodType>();

/**
 * Runs `body` with `context` as the current request context. Used by the worker; `resultSchema`
 * is what every `<Agent.Result value>` rendered in this request is checked against.
 */
export function runWithAgentContext<T>(context: AgentContext, body: () => T, resultSchema?: $ZodType): T {
  if (resultSchema !== undefined) resultSchemas.set(context, resultSchema);
  return storage.run(context, body);
}

/** The result schema of the current render, if it has one (none outside a render). */
export function currentResultSchema(): $ZodType | undefined {
  const context = storage.getStore();
  return context === undefined ? undefined : resultSchemas.get(context);
}

/** Runs `body` outside any request context (a provider factory runs there). */
export function outsideAgentContext<T>(body: () => T): T {
  return storage.exit(body);
}

/** The current request context; throws outside a render. */
export function agent(): AgentContext {
  const context = storage.getStore();
  if (context === undefined) {
    throw new Error('agent() was called outside a route render');
  }
  return context;
}

/** The current request context, for use inside components (same value as `agent()`). */
export function useAgent(): AgentContext {
  return agent();
}
