/**
 * The public surface of `agent-bundle/launch-env`: the operator environment layer. An operator
 * of an installed plugin puts `.env` (and `.env.local`) in the plugin's root; every shell
 * abgen generates applies them before the author's code runs, and a hand-rolled entry calls
 * `applyOperatorEnv` first thing. Every export here is public API.
 *
 * Precedence, highest first:
 * 1. a variable the host's environment sets, unless it holds exactly the manifest default
 *    (`manifestEnv`) the host passed through from the plugin's MCP document;
 * 2. `.env.local`, then `.env`, from the plugin root (or the files `AGENT_BUNDLE_ENV_FILES`
 *    names, which is how `abgen mcp run` gives a built server the project's own `.env` set);
 * 3. the manifest default.
 * Without `manifestEnv` every variable the host set is kept, manifest defaults included (the
 * render worker, shared by a plugin's generated servers and hooks, applies it that way).
 */

export {
  OPERATOR_ENV_FILES,
  OPERATOR_ENV_FILES_ENV,
  applyOperatorEnv,
  operatorEnvPluginRoot,
  parseEnvFile,
  pluginRootEnvAnchor,
} from './operator-env.js';
export type { ApplyOperatorEnvOptions, AppliedOperatorEnv } from './operator-env.js';
