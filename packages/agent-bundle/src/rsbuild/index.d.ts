/**
 * `agent-bundle/rsbuild`: abgen inside an Rsbuild 2 project.
 *
 * ```ts
 * // rsbuild.config.ts
 * import { defineConfig } from '@rsbuild/core';
 * import { pluginAgentBundle } from 'agent-bundle/rsbuild';
 *
 * export default defineConfig({ plugins: [pluginAgentBundle({ targets: ['claude', 'codex'] })] });
 * ```
 *
 * Before the first compile it writes `.agent-bundle/routes.d.ts` (`abgen generate`); after
 * every compile, of `rsbuild build` and of `rsbuild dev`, it builds the artifact with `abgen
 * build --json` and reports abgen's diagnostics as that compilation's errors (code, message
 * and what to do; the route's `file:line:column` as the error's file) and warnings, so a failed
 * abgen build fails `rsbuild build` and shows in dev as a compile error. In dev and watch
 * builds the project's `src/` and config are watched: editing a route rebuilds the artifact. One abgen
 * child runs at a time (a change during a build is built once after it), and closing Rsbuild
 * ends a running one.
 *
 * abgen is `$ABGEN_BIN`, else the `abgen` package the project installs, else `abgen` on PATH.
 */
import type { RsbuildPlugin } from '@rsbuild/core';

/** A host abgen builds for. */
export type AgentBundleTarget = 'claude' | 'codex' | 'cursor' | 'portable';

export interface PluginAgentBundleOptions {
  /**
   * The abgen project (its `agent-bundle.config.ts` and `src/`), relative to Rsbuild's root.
   * Default: Rsbuild's root.
   */
  root?: string;
  /** Where the artifact is written, relative to Rsbuild's root. Default: `<root>/artifact`. */
  out?: string;
  /** The hosts to build for instead of the config's `targets`. */
  targets?: readonly AgentBundleTarget[];
}

/** The plugin's name in Rsbuild (`api.isPluginExists`, `pre`/`post` ordering). */
export declare const PLUGIN_AGENT_BUNDLE_NAME: 'agent-bundle:abgen';

export declare function pluginAgentBundle(options?: PluginAgentBundleOptions): RsbuildPlugin;
