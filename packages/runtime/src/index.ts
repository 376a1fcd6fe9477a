/**
 * The public surface of `@agent-bundle/runtime`: the Agent elements with their prop types and the
 * request context. Named exports only; the Node worker entry is the `./worker` subpath.
 */
export { Agent } from './elements.ts';
export { agent, useAgent, HandoffRequiredError } from './context.ts';
export { InvalidResultError } from './result.ts';
export { PLUGIN_ROOT_ENV, STATE_ROOT_ENV, resolvePluginRoot } from './plugin-root.ts';
export type { PluginAxisValue, ResolvePluginRootOptions } from './plugin-root.ts';
export { attachMcpStructuredContent } from './mcp-result.ts';
export type { McpAnnotations, McpCallToolResult, McpContentBlock, McpEmbeddedResource, McpJsonObject } from './mcp-result.ts';
export type { AgentLayoutProps, AgentRouteIdentity } from './layout.ts';
export { MarkdownContent, renderToMarkdown, renderToMarkdownStream } from './markdown.ts';
export type { MarkdownChildren, MarkdownContentProps, MarkdownOptions, MarkdownSerializer } from './markdown.ts';

export type {
  AgentIntrinsicElements,
  AgentTagName,
  DenyProps,
  ErrorProps,
  JsonProps,
  MediaProps,
  ProgressProps,
  ResourceProps,
  ResultProps,
  TextContentProps,
} from './elements.ts';
export type {
  AgentContext,
  AgentLog,
  AgentLineage,
  AgentNoticesView,
  AgentProviderContext,
  AgentStateView,
  AgentTerminal,
  AgentTerminalStream,
  Axis,
  LineagePeer,
  LineageResolution,
  LineageSubagent,
  AxisUnavailableCode,
  LogLevel,
  ObservedAxisName,
  ProgressReport,
} from './context.ts';
