/// <reference types="node" />
/**
 * The plugin axis of every render: the code root and the framework state root, resolved once
 * when a shell starts (seed 002 §The plugin-root environment anchor).
 *
 * - `root`: an expanded `AGENT_BUNDLE_PLUGIN_ROOT` the host set (source `native`), else the
 *   artifact root the shell was started from (source `derived`). A value still carrying an
 *   unexpanded `${…}` token is treated as unset, reported once on stderr and never joined into
 *   a path.
 * - `stateRoot`: `AGENT_BUNDLE_STATE_ROOT`, else `$XDG_STATE_HOME/agent-bundle/<name>-<digest16>`,
 *   else `~/.agent-bundle/state/<name>-<digest16>`, where `<name>` is the code root's safe
 *   basename and `<digest16>` the first 16 hexadecimal characters of the SHA-256 of its real path.
 */
import path from 'node:path';

import { defaultStateRoot } from '../scripts/state-root.mjs';
import type { Axis } from './context.ts';

/** The environment variable holding the plugin install root in every generated stdio entry. */
export const PLUGIN_ROOT_ENV = 'AGENT_BUNDLE_PLUGIN_ROOT';
/** Overrides the framework state root. */
export const STATE_ROOT_ENV = 'AGENT_BUNDLE_STATE_ROOT';

/** The value of the plugin axis. */
export interface PluginAxisValue {
  /** The digest of the artifact rendering the route. */
  digest: string;
  /** The code root. */
  root: string;
  /** The framework state root. */
  stateRoot: string;
}

export interface ResolvePluginRootOptions {
  /** The artifact digest. */
  digest: string;
  /** The root a shell falls back to: the artifact root (the parent of `runtime/`, `mcp/`…). */
  fallbackRoot: string;
  env?: Record<string, string | undefined>;
  /** Where the one report of an unexpanded anchor goes (default stderr). */
  report?: (line: string) => void;
}

const UNEXPANDED = /\$\{[^}]*\}/;

/** The plugin axis, resolved from the environment and the shell's own location. */
export function resolvePluginRoot(options: ResolvePluginRootOptions): Axis<PluginAxisValue> {
  const env = options.env ?? process.env;
  const report = options.report ?? ((line: string) => process.stderr.write(`${line}\n`));
  const anchored = usable(env[PLUGIN_ROOT_ENV], PLUGIN_ROOT_ENV, report);
  const root = path.resolve(anchored ?? options.fallbackRoot);
  const stateRoot = usable(env[STATE_ROOT_ENV], STATE_ROOT_ENV, report) ?? defaultStateRoot(root, env);
  return {
    state: 'available',
    value: { digest: options.digest, root, stateRoot: path.resolve(stateRoot) },
    source: anchored === undefined ? 'derived' : 'native',
  };
}

/** `value` when it is set, non-empty and fully expanded; else undefined (reported once if unexpanded). */
function usable(value: string | undefined, name: string, report: (line: string) => void): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (UNEXPANDED.test(value)) {
    report(`abgen: ${name} is ${JSON.stringify(value)}, a token the host did not expand; it is treated as unset`);
    return undefined;
  }
  return value;
}
