/**
 * `defineConfig` and the shape of `agent-bundle.config.ts`.
 *
 * The compiler reads the config as a literal without executing it, so `defineConfig` takes the
 * object itself (a factory function or a computed value is a diagnostic, never called). The
 * helper exists for the editor: it types the object and returns it unchanged.
 */

/** The hosts and layouts a build can target. */
export type Target = 'claude' | 'codex' | 'cursor' | 'portable';

/** The plugin's identity, written into every host's plugin manifest. */
export interface PluginConfig {
  /** A slug: lowercase letters, digits and hyphens (`curator`). */
  readonly name: string;
  /** Defaults to the `version` of the project's `package.json`. */
  readonly version?: string;
  readonly description?: string;
  readonly author?: PluginAuthor;
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
  /** A handwritten server module, relative to the project root. */
  readonly entry?: string;
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
  readonly targets?: readonly Target[];
  readonly apps?: Readonly<Record<string, McpAppConfig>>;
}

/** An MCP App declared in config rather than by an `apps/<name>.tsx` route. */
export interface McpAppConfig {
  readonly entry: string;
  readonly resourceUri: `ui://${string}`;
  readonly targets?: readonly Target[];
  /** An HTML template, relative to the entry. */
  readonly template?: string;
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/**
 * Who serves a server's routes: `generated` (abgen's runtime serves `src/mcp/<id>/**`), or a
 * `custom` module, a `command` or a `remote` URL, in which case the route files are not compiled.
 */
export type ServerMode = 'generated' | 'custom' | 'command' | 'remote';

/** The whole `agent-bundle.config.ts` object. */
export interface AgentBundleConfig {
  readonly plugin: PluginConfig;
  /** Hosts to build for; `abgen build --target` replaces this list. Default `['portable']`. */
  readonly targets?: readonly Target[];
  readonly mcp?: { readonly servers?: Readonly<Record<string, McpServerConfig>> };
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
  /** Skill folders (paths or globs); default: every `src/skills/<name>/`. */
  readonly skills?: readonly string[];
}

/**
 * Types the plugin's config: `export default defineConfig({ plugin: { name: 'curator' }, targets:
 * ['claude'] })`. Returns its argument unchanged.
 */
export function defineConfig<const Config extends AgentBundleConfig>(config: Config): Config {
  return config;
}
