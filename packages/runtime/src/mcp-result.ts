/**
 * The MCP value a tool call lowers to (seed 002 §Generated route servers): `McpCallToolResult`
 * with `McpContentBlock`s, spelled so that it is assignable to the `CallToolResult` of both
 * `@modelcontextprotocol/server` 2.x and `@modelcontextprotocol/sdk` 1.x, and
 * `attachMcpStructuredContent` for a handwritten server that returns structured content.
 *
 * The generated servers lower documents in Rust (`runtime/src/project/mcp.rs`); these are the
 * same shapes for TypeScript code that handles them (tests, handwritten servers).
 */

/** A JSON object whose every value is finite JSON (no `undefined`, no NaN, no functions). */
export type McpJsonObject = { [key: string]: unknown };

/** Who a block is for and how much it matters (MCP `Annotations`). */
export type McpAnnotations = {
  audience?: ('user' | 'assistant')[];
  priority?: number;
  lastModified?: string;
};

type BlockBase = {
  annotations?: McpAnnotations;
  _meta?: McpJsonObject;
};

/** The text, or the base64 bytes, of a resource embedded in a result. */
export type McpEmbeddedResource =
  | { uri: string; mimeType?: string; text: string; _meta?: McpJsonObject }
  | { uri: string; mimeType?: string; blob: string; _meta?: McpJsonObject };

/** One content block of a tool result, as the MCP SDKs type it. */
export type McpContentBlock =
  | (BlockBase & { type: 'text'; text: string })
  | (BlockBase & { type: 'image'; data: string; mimeType: string })
  | (BlockBase & { type: 'audio'; data: string; mimeType: string })
  | (BlockBase & {
      type: 'resource_link';
      uri: string;
      name: string;
      title?: string;
      description?: string;
      mimeType?: string;
      size?: number;
    })
  | (BlockBase & { type: 'resource'; resource: McpEmbeddedResource });

/**
 * A lowered Agent Document: what `tools/call` answers. A type literal, not an interface, so that
 * it is assignable to the SDKs' result types, which carry an index signature.
 */
export type McpCallToolResult = {
  content: McpContentBlock[];
  /** The document's value, when it is an object (MCP's `structuredContent` is one). */
  structuredContent?: McpJsonObject;
  /** True when the document holds an `<Agent.Error>`. */
  isError?: boolean;
  /** The document's root `metadata`. */
  _meta?: McpJsonObject;
};

/** The least a result must have for structured content to be attached to it. */
interface ResultWithContent {
  content: readonly unknown[];
  structuredContent?: unknown;
}

/**
 * Returns `result` with `value` as its `structuredContent`, and, when its content carries no text
 * block, the value's JSON as one, since MCP asks a tool with structured content to also return it
 * serialized for clients that read only `content`. The result's own type is kept. Throws a
 * TypeError for a value that is not a finite JSON object, which no client could read.
 */
export function attachMcpStructuredContent<Result extends ResultWithContent>(result: Result, value: McpJsonObject): Result {
  if (!isFiniteJsonObject(value)) {
    throw new TypeError('structured content must be a finite JSON object (no undefined, NaN, functions or cycles)');
  }
  const hasText = result.content.some((block) => (block as { type?: unknown } | null)?.type === 'text');
  const content = hasText ? result.content : [...result.content, { type: 'text', text: JSON.stringify(value) }];
  return { ...result, content, structuredContent: value };
}

function isFiniteJsonObject(value: unknown): value is McpJsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) return false;
  return isFiniteJson(value, new Set());
}

function isFiniteJson(value: unknown, seen: Set<object>): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object': {
      if (value === null) return true;
      if (seen.has(value)) return false;
      seen.add(value);
      const ok = Array.isArray(value)
        ? value.every((item) => isFiniteJson(item, seen))
        : (Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null) &&
          Object.values(value).every((item) => isFiniteJson(item, seen));
      seen.delete(value);
      return ok;
    }
    default:
      return false;
  }
}
