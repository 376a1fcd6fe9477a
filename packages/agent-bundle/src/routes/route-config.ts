/**
 * Config shapes of the routes written in the `export const config = {...} satisfies XConfig`
 * form (resources, prompts, Apps, rendered commands and scripts), and `appResourceUri` for linking a tool to an App.
 *
 * These are types for the author's editor only: the compiler reads the literal statically.
 */

/** `export const config` of a resource route (`src/mcp/<server>/resources/<name>.tsx`). */
export interface ResourceConfig {
  /** The URI clients read the resource by (`curator://shelf`). */
  readonly uri: string;
  readonly mimeType?: string;
  readonly title?: string;
  readonly description?: string;
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/** `export const config` of a prompt route (`src/mcp/<server>/prompts/<name>.tsx`). */
export interface PromptConfig {
  readonly title?: string;
  readonly description?: string;
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/**
 * `export const config` of a rendered command (`src/cli/<word>/…/<word>.tsx`, the command
 * `<plugin> <word> …`) or a rendered script (`src/scripts/<name>.tsx`, `<plugin> run <name>`).
 * Its flags come from the module's `inputSchema` export.
 */
export interface CliRouteConfig {
  /** One line for `--help`. */
  readonly description?: string;
  /** The render budget (seed 002 §Render budget): at most 86 400 000 ms. */
  readonly render?: { readonly maxElapsedMs: number };
}

/**
 * `export const config` of a tool's command-line projection (`src/mcp/<server>/tools/<tool>.cli.ts`,
 * beside the tool): the words of the command that runs the tool, with its flags from the tool's
 * input schema. The module is no route; it renders the tool, observing `kind: 'cli'`.
 */
export interface ToolCliConfig {
  /** The command's words: `'find'`, `'shelf find'` or `['shelf', 'find']`. */
  readonly command: string | readonly string[];
  /** One line for `--help`; default: the tool's description. */
  readonly description?: string;
  /** Ask before running (or need `--yes`); default: unless the tool is `readOnlyHint: true`. */
  readonly confirm?: boolean;
}

/** `export const config` of an MCP App route (`src/mcp/<server>/apps/<name>.tsx`). */
export interface AppConfig {
  /** The `ui://` URI the App's HTML is served under; tools link to it in `_meta.ui.resourceUri`. */
  readonly resourceUri: `ui://${string}`;
  readonly title?: string;
  readonly description?: string;
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/**
 * `export const config` of an App entry (seed 002 §The compiled document): its resource URI,
 * and optionally the targets it is built for and an HTML template (relative to the entry).
 */
export interface AppRouteConfig {
  readonly resourceUri: `ui://${string}`;
  readonly targets?: readonly string[];
  readonly template?: string;
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/**
 * Refers to an App route's `config.resourceUri` by name (`'shelf_viewer'`, `'library/shelf_viewer'`
 * or `'app:library/shelf_viewer'`), so a tool's `_meta.ui.resourceUri` cannot drift from the App.
 *
 * The compiler substitutes the App's declared URI when it reads the tool's options; that
 * substituted value is what clients see. Evaluated at run time (where nothing reads it), the call
 * returns an unresolved `ui://app-ref/<name>` placeholder instead of guessing the URI.
 */
export function appResourceUri(app: string): `ui://${string}` {
  return `ui://app-ref/${app}`;
}
