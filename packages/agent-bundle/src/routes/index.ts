/**
 * The public surface of `agent-bundle/routes`: what route modules import to declare themselves.
 * Every export here is public API; add one only on purpose. Named exports only, no wildcards.
 *
 * Nothing in this entry runs logic the compiler depends on: the compiler reads route modules
 * statically, and these helpers only hand the author's values to the render worker.
 */

export { defineTool } from './define-tool.js';
export { events } from './events.js';
export { appResourceUri } from './route-config.js';
// The vocabulary the `events` namespace is generated from.
export { EVENT_ALIASES, EVENT_NAMES } from './vocabulary.js';

export type {
  Schema,
  ToolAnnotations,
  ToolConfig,
  ToolContext,
  ToolDefinition,
  ToolHandler,
  ToolOptions,
  ToolRouteProps,
  TypedResult,
} from './define-tool.js';
export type {
  AuthoredEventName,
  EventDefinition,
  EventHandler,
  EventHelper,
  EventOptions,
  Events,
} from './events.js';
export type {
  CanonicalEvent,
  CanonicalPrompt,
  CanonicalTool,
  CanonicalToolSelector,
  EventProps,
  EventProvenance,
  HostName,
  IdentityAxis,
  InexactText,
  ToolSelector,
} from './canonical-event.js';
export type { AppConfig, AppRouteConfig, CliRouteConfig, PromptConfig, ResourceConfig, ToolCliConfig } from './route-config.js';
export type { CanonicalEventOf, EventAlias, EventName } from './vocabulary.js';
