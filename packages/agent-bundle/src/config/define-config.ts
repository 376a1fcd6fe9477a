/**
 * `defineConfig` and the shape of `agent-bundle.config.ts`.
 *
 * The compiler reads the config as a literal without executing it, so `defineConfig` takes the
 * object itself (a factory function or a computed value is a diagnostic, never called). The
 * helper exists for the editor: it types the object and returns it unchanged.
 */

/** The hosts and layouts a build can target (`amp` is read, and refused as not built yet). */
export type Target = 'claude' | 'codex' | 'cursor' | 'portable' | 'amp';

/** A non-empty list of targets. */
export type Targets = readonly [Target, ...Target[]];

/** The plugin's identity, written into every host's plugin manifest. */
export interface PluginConfig {
  /**
   * A slug: lowercase letters, digits, `.`, `_` and `-` (`curator`). Defaults to the `name` of
   * the project's `package.json`.
   */
  readonly name?: string;
  /** @deprecated The `version` of the project's `package.json` is the plugin's version. */
  readonly version?: string;
  readonly description?: string;
  /** A project-relative image file. */
  readonly logo?: string;
  /** A name, or the author's record. */
  readonly author?: string | PluginAuthor;
  readonly homepage?: string;
  /** The source repository URL. */
  readonly repository?: string;
  /** An SPDX license expression (`MIT`). */
  readonly license?: string;
  readonly keywords?: readonly string[];
}

/** The author as hosts' plugin manifests record it. */
export interface PluginAuthor {
  readonly name: string;
  readonly email?: string;
  readonly url?: string;
}

/**
 * A declared MCP server. Beside a route-generated server (`src/mcp/<id>/…`) it only augments it
 * (`env`, `args`, `targets`, `apps`); alone it describes a server the plugin ships or reaches.
 */
export interface McpServerConfig {
  /**
   * A handwritten server module, relative to the project root, which abgen bundles under the
   * lifecycle shell; or `{ prebuilt }`, a file the project's own build produced, shipped as is.
   */
  readonly entry?: string | { readonly prebuilt: string };
  /** A command to run instead of a module. */
  readonly command?: string;
  readonly args?: readonly string[];
  readonly cwd?: string;
  readonly env?: Readonly<Record<string, string>>;
  /** HTTP headers of a remote server. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The URL of a remote server. */
  readonly url?: string;
  readonly transport?: 'stdio' | 'streamable-http';
  /** Hosts the server is emitted for (default: every target). */
  readonly targets?: Targets;
  readonly apps?: Readonly<Record<string, McpAppConfig>>;
}

/** An MCP App declared in config rather than by an `apps/<name>.tsx` route. */
export interface McpAppConfig {
  readonly entry: string;
  readonly resourceUri: `ui://${string}`;
  readonly targets?: Targets;
  /** An HTML template, relative to the entry. */
  readonly template?: string;
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/**
 * Who serves a server's routes: `generated` (abgen's runtime serves `src/mcp/<id>/**`), or a
 * `custom` module, a `command` or a `remote` URL, in which case the route files are not compiled.
 */
export type ServerMode = 'generated' | 'custom' | 'command' | 'remote';

/** The config events a handwritten hook handler can bind. */
export type HookEvent =
  | 'sessionStart'
  | 'beforeTool'
  | 'afterTool'
  | 'stop'
  | 'agentStart'
  | 'agentStop'
  | 'workspaceOpen';

/** A handwritten hook handler: a module path, or the path with its options. */
export type HookHandler =
  | string
  | {
      readonly handler: string;
      readonly targets?: Targets;
      /** Canonical tool names the handler is for (a `beforeTool` / `afterTool` matcher). */
      readonly tools?: readonly string[];
      /** Seconds, at least 1. */
      readonly timeout?: number;
      readonly args?: readonly string[];
    };

/** A module path, or the path with the targets it ships for. */
export type ScriptEntry = string | { readonly entry: string; readonly targets?: Targets };

/** A package executable: a module path, or `{ entry }`. */
export type BinEntry = string | { readonly entry: string };

/** A prebuilt folder shipped at its destination: its source, or the source with its targets. */
export type PayloadEntry = string | { readonly source: string; readonly targets?: Targets };

/** A consent capability an App may be granted in the browser host without asking. */
export type WebCapability = 'call-tool' | 'download-file' | 'open-external-link' | 'request-display-mode';

/** One App opened in a browser by `<plugin> web`: `<server>/<app>`, or that with its opening call. */
export type WebApp =
  | `${string}/${string}`
  | {
      readonly app: `${string}/${string}`;
      /** The opening tool; default: the only tool that links the App. */
      readonly tool?: string;
      /** The opening call's arguments; default `{}`. */
      readonly input?: Readonly<Record<string, unknown>>;
      readonly allow?: readonly WebCapability[];
    };

/** Host-scoped extension fields: strict, finite JSON. */
export type HostExtension = Readonly<Record<string, unknown>>;

/** The whole `agent-bundle.config.ts` object. */
export interface AgentBundleConfig {
  readonly plugin: PluginConfig;
  /** Hosts to build for; `abgen build --target` replaces this list. Default `['portable']`. */
  readonly targets?: readonly Target[];
  /** Skill folders (paths or globs); default: every `src/skills/<name>/`. */
  readonly skills?: readonly string[];
  /** Handwritten hook handlers by config event, beside the `src/events/**` routes. */
  readonly hooks?: { readonly [Event in HookEvent]?: HookHandler | readonly HookHandler[] };
  readonly mcp?: { readonly servers?: Readonly<Record<string, McpServerConfig>> };
  /** Scripts by name. */
  readonly scripts?: Readonly<Record<string, ScriptEntry>>;
  /** Files or globs copied into the artifact as they are. */
  readonly assets?: readonly string[];
  /** Package executables by name; `false` turns off the `src/cli.ts` convention. */
  readonly bin?: false | Readonly<Record<string, BinEntry>>;
  /** The library entry; `false` turns off the `src/index.ts` convention. */
  readonly lib?: false | string | { readonly entry: string; readonly dts?: boolean };
  readonly routes?: {
    readonly servers?: Readonly<Record<string, ServerMode>>;
    /** Where the plugin's commands come from: `src/cli/**` routes (`conventional`) or generated. */
    readonly cli?: 'generated' | 'conventional';
    /**
     * Project generated MCP tools as commands of `bin/<plugin>` (`<server> <tool>`): every tool, or
     * the tools matching `include` minus those matching `exclude` (`<server>:<tool>` globs).
     */
    readonly mcpCommands?: true | { readonly include?: readonly string[]; readonly exclude?: readonly string[] };
  };
  readonly output?: { readonly distPath?: string };
  /** The Node.js version the artifact's runtime needs (`22.4`, `22.4.1`). */
  readonly runtime?: { readonly node?: `${number}.${number}` | `${number}.${number}.${number}` };
  /** Prebuilt folders shipped in the artifact, by destination. */
  readonly payload?: Readonly<Record<string, PayloadEntry>>;
  /** `false` turns off the `src/state.ts` convention. */
  readonly state?: false;
  readonly notices?: {
    readonly retention?: {
      readonly terminalTtl?: string;
      readonly maxTerminal?: number;
      readonly maxJournalBytes?: number;
    };
  };
  /** Whether the artifact carries its own marketplace documents. */
  readonly marketplace?: boolean;
  /** The MCP Apps `<plugin> web` opens in a browser. */
  readonly web?: { readonly apps: readonly WebApp[]; readonly open?: 'browser' | 'never' };
  readonly dev?: {
    readonly agentApi?: unknown;
    readonly contracts?: { readonly fixtures: unknown; readonly server?: unknown };
    readonly runtime?: { readonly provider: unknown };
  };
  readonly evals?: {
    readonly include?: readonly string[];
    readonly runsDir?: string;
    readonly semanticGrader?: unknown;
  };
  /** The bundler escape hatch. */
  readonly tools?: { readonly rsbuild?: Readonly<Record<string, unknown>>; readonly rspack?: unknown };
  readonly claude?: HostExtension;
  readonly codex?: HostExtension;
  readonly cursor?: HostExtension;
  readonly portable?: HostExtension;
}

/**
 * Types the plugin's config: `export default defineConfig({ plugin: { name: 'curator' }, targets:
 * ['claude'] })`. Returns its argument unchanged.
 */
export function defineConfig<const Config extends AgentBundleConfig>(config: Config): Config {
  return config;
}
