// Type tests of `agent-bundle/rsbuild`'s options against @rsbuild/core 2's own plugin type:
// checked by `npm run typecheck` (tsc) through the package's exports map, never run.
import type { RsbuildConfig, RsbuildPlugin } from '@rsbuild/core';
import { pluginAgentBundle } from 'agent-bundle/rsbuild';
import type { AgentBundleTarget, PluginAgentBundleOptions } from 'agent-bundle/rsbuild';

export const plugins: RsbuildConfig['plugins'] = [
  pluginAgentBundle(),
  pluginAgentBundle({ root: '..', out: 'plugin', targets: ['claude', 'codex', 'cursor', 'portable'] }),
];

const hosts: readonly AgentBundleTarget[] = ['claude'];
export const plugin: RsbuildPlugin = pluginAgentBundle({ targets: hosts });

// @ts-expect-error a host abgen does not build for
pluginAgentBundle({ targets: ['vscode'] });
// @ts-expect-error `targets` is a list
pluginAgentBundle({ targets: 'claude' });
// @ts-expect-error an option the plugin does not take
pluginAgentBundle({ target: ['claude'] });
// @ts-expect-error a path is a string
export const numeric: PluginAgentBundleOptions = { out: 1 };
