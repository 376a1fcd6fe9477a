/**
 * The semantic event vocabulary: the one list `events.*` is generated from. The compiler keeps the
 * same list (ARCHITECTURE.md §3); a test compares the two, so adding an event means adding it in
 * both places.
 */

/**
 * Every canonical event a route can handle. A `<family>/<event>` name lives at
 * `src/events/<family>/<event>.tsx` and is authored as `events.<family>.<event>(…)` with camelCase
 * segments; a single-segment name (`stop`) lives at `src/events/<name>.tsx` and is authored as
 * `events.<name>(…)`.
 */
export const EVENT_NAMES = [
  'session/start',
  'session/end',
  'prompt/submit',
  'agent/start',
  'agent/stop',
  'agent/idle',
  'tool/before',
  'tool/after',
  'tool/failure',
  'permission/request',
  'permission/denied',
  'compact/before',
  'compact/after',
  'stop',
  'stop/failure',
  'config/change',
  'task/create',
  'task/complete',
  'model-switch/before',
  'model-switch/after',
  'workspace/open',
  'file/saved',
  'notification',
  'turn/interrupt',
] as const;

/** A canonical event name (`tool/after`, `model-switch/before`, `stop`). */
export type EventName = (typeof EVENT_NAMES)[number];

/**
 * Names accepted for compatibility, mapped to the canonical event they stand for. Routes written
 * for agent-bundle's `file/change` keep working; the compiler reports the rename as information.
 */
export const EVENT_ALIASES = {
  'file/change': 'file/saved',
} as const satisfies Readonly<Record<string, EventName>>;

/** A name accepted only as an alias of a canonical event. */
export type EventAlias = keyof typeof EVENT_ALIASES;

/** The canonical event an authored name stands for (itself unless it is an alias). */
export type CanonicalEventOf<Name extends EventName | EventAlias> = Name extends EventAlias
  ? (typeof EVENT_ALIASES)[Name]
  : Name;
