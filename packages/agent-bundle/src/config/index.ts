/**
 * The public surface of `agent-bundle/config`: what `agent-bundle.config.ts` imports.
 * Every export here is public API; add one only on purpose. Named exports only, no wildcards.
 */

export { defineConfig } from './define-config.js';

export type {
  AgentBundleConfig,
  BinEntry,
  HookEvent,
  HookHandler,
  HostExtension,
  McpAppConfig,
  McpServerConfig,
  PayloadEntry,
  PluginAuthor,
  PluginConfig,
  ScriptEntry,
  ServerMode,
  Target,
  Targets,
  WebApp,
  WebCapability,
} from './define-config.js';
