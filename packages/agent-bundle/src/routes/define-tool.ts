/**
 * `defineTool`: how an MCP tool route declares itself.
 *
 * The compiler reads the options object statically (it never runs this module at build time), so
 * the options must stay a literal: strings, numbers, booleans, arrays and objects, plus the zod
 * schemas. At run time the render worker imports the module and calls `handler`.
 */

import type { ReactElement, ReactNode } from 'react';
import type * as z from 'zod';

/** A zod schema, classic (`zod`) or mini (`zod/mini`). */
export type Schema = z.core.$ZodType;

/**
 * MCP tool annotations: hints for clients about what the tool does. They are advice to the
 * client, not a guarantee the runtime enforces.
 */
export interface ToolAnnotations {
  readonly title?: string;
  /** The tool does not modify its environment. */
  readonly readOnlyHint?: boolean;
  /** The tool may perform destructive updates (meaningful only when not read-only). */
  readonly destructiveHint?: boolean;
  /** Calling the tool again with the same input has no further effect. */
  readonly idempotentHint?: boolean;
  /** The tool talks to an open world of external entities (the web, other people's systems). */
  readonly openWorldHint?: boolean;
}

/**
 * The metadata and execution options `defineTool` accepts beside its two schemas (seed 002
 * §Inferred tool definitions): everything the compiler reads statically about a tool.
 */
export interface ToolConfig {
  /** What the model reads to decide when to call the tool; write it for the model. */
  readonly description: string;
  /** A human-readable name for client UIs; the wire name is always the file name. */
  readonly title?: string;
  readonly annotations?: ToolAnnotations;
  /**
   * MCP client-name prefixes (as in `initialize`'s `clientInfo.name`) the tool is hidden from,
   * e.g. `['cursor']`.
   */
  readonly excludeClients?: readonly string[];
  /**
   * What the model is handed of a result: `'content'`, the Markdown the handler renders;
   * `'structured'`, the result value as JSON. Left out, each host decides (Claude Code and Codex
   * hand the model only the structured value of a tool with an object `resultSchema`); either way
   * an App's typed `call()` still receives the structured value.
   */
  readonly model?: 'content' | 'structured';
  /** Whether the tool can run as an MCP task (long-running, polled by the client). */
  readonly execution?: { readonly taskSupport: 'forbidden' | 'optional' | 'required' };
  /** Render budget: the invocation is aborted past `maxElapsedMs` (at most 86400000). */
  readonly render?: { readonly maxElapsedMs: number };
  /** Passed through to the tool's `_meta` (for example `{ ui: { resourceUri } }` for an App). */
  readonly _meta?: Readonly<Record<string, unknown>>;
  /**
   * A literal JSON Schema that replaces the one derived from `inputSchema`: the escape hatch for
   * a schema the compiler cannot read statically.
   */
  readonly inputJsonSchema?: object;
}

/** The options object of `defineTool`, as the compiler reads it: the config and the schemas. */
export interface ToolOptions<InputSchema extends Schema = Schema, ResultSchema extends Schema = Schema> extends ToolConfig {
  /** Validates and parses the caller's arguments; its JSON Schema is what `tools/list` advertises. */
  readonly inputSchema: InputSchema;
  /**
   * Describes `<Agent.Result value>`. The worker validates the value against it before the result
   * is sent, and an object schema is advertised as the tool's `outputSchema`.
   */
  readonly resultSchema: ResultSchema;
}

/**
 * The props a tool route's component receives, whichever form it is written in: the input parsed
 * by `inputSchema` and the request's abort signal. A route written as `export default function`
 * with `export const inputSchema` is rendered with exactly these.
 */
export interface ToolRouteProps<InputSchema extends Schema = Schema> {
  readonly input: z.output<InputSchema>;
  readonly signal: AbortSignal;
}

/**
 * `<Result>` bound to one route's `resultSchema`: its `value` is typed as the schema's output, so
 * a value the schema refuses is a type error where it is written (JSX erases the prop types of
 * `Agent.Result`, whose `value` is `unknown`). It renders exactly what `<Agent.Result>` renders,
 * and the value is still checked at run time.
 */
export type TypedResult<Value> = (props: {
  value: Value;
  metadata?: Readonly<Record<string, unknown>>;
  children?: ReactNode;
}) => ReactElement | Promise<ReactElement>;

/** The route context a tool handler receives beside its parsed input. */
export interface ToolContext<ResultSchema extends Schema = Schema> {
  /**
   * `<Agent.Result>` typed by the route's `resultSchema`:
   * `async (input, { Result }) => <Result value={{ status: 'ready' }}>…</Result>`.
   */
  readonly Result: TypedResult<z.output<ResultSchema>>;
  readonly route: { readonly id: string; readonly kind: 'tool' };
  /** Aborted when the client cancels the call or the render budget runs out. */
  readonly signal: AbortSignal;
  /** Reports progress to a client that asked for it (a no-op otherwise). */
  readonly progress: {
    report(report: { completed: number; total?: number; message?: string }): void;
  };
  /**
   * The route's log, one method per MCP level: `log.info('indexed', { files: 12 })`. An MCP
   * client that set a level (`logging/setLevel`) receives records at or above it as
   * `notifications/message`; hooks and the command line print them on stderr.
   */
  readonly log: Readonly<
    Record<'debug' | 'info' | 'notice' | 'warning' | 'error', (message: string, data?: unknown) => void>
  >;
  /** Resolves the provider `src/providers/<key>.ts`, once per request. */
  provider<Value = unknown>(key: string): Promise<Value>;
}

/**
 * Renders the tool's result as an Agent Document. `input` is already parsed by `inputSchema`
 * (defaults applied), so it has the schema's output type.
 */
export type ToolHandler<InputSchema extends Schema = Schema, ResultSchema extends Schema = Schema> = (
  input: z.output<InputSchema>,
  context: ToolContext<ResultSchema>,
) => ReactNode | Promise<ReactNode>;

/** What `defineTool` returns: the contract object the render worker reads. */
export type ToolDefinition<InputSchema extends Schema = Schema, ResultSchema extends Schema = Schema> = Readonly<{
  kind: 'tool';
  options: ToolOptions<InputSchema, ResultSchema>;
  handler: ToolHandler<InputSchema, ResultSchema>;
}>;

/**
 * Declares an MCP tool route: `export default defineTool({ description, inputSchema,
 * resultSchema }, handler)` in `src/mcp/<server>/tools/<name>.tsx`.
 *
 * It only records its arguments in a frozen object: no validation and no side effects happen at
 * definition time, because the compiler has already checked the options statically and the
 * worker validates input and results per call.
 *
 * @example
 * ```tsx
 * export default defineTool(
 *   { description: 'Greets someone.', inputSchema: z.object({ name: z.string() }), resultSchema: z.undefined() },
 *   ({ name }) => <Agent.Text>{`Hello, ${name}`}</Agent.Text>,
 * );
 * ```
 */
export function defineTool<InputSchema extends Schema, ResultSchema extends Schema>(
  options: ToolOptions<InputSchema, ResultSchema>,
  handler: ToolHandler<InputSchema, ResultSchema>,
): ToolDefinition<InputSchema, ResultSchema> {
  return Object.freeze({ kind: 'tool', options, handler });
}
