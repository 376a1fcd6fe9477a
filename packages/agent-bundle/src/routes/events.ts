/**
 * `events.*`: how an event route declares itself, one helper per name of the vocabulary.
 *
 * The namespace is generated from `EVENT_NAMES` (and the compatibility aliases) so that the list,
 * the runtime helpers and their types never disagree.
 */

import type { ReactNode } from 'react';
import type { EventProps, HostName, ToolSelector } from './canonical-event.js';
import { EVENT_ALIASES, EVENT_NAMES } from './vocabulary.js';
import type { CanonicalEventOf, EventAlias, EventName } from './vocabulary.js';

/** The options object of an `events.*` helper, as the compiler reads it. */
export interface EventOptions {
  /**
   * Which tools a tool event reacts to; the runtime re-checks them against the canonical tool and
   * answers nothing when none matches.
   */
  readonly tools?: readonly ToolSelector[];
  /** How the answer reaches the host; only `immediate` exists today. */
  readonly delivery?: readonly 'immediate'[];
  /** Hosts the route is emitted for (default: every target of the config). */
  readonly targets?: readonly HostName[];
  /** The route's own deadline, kept inside the host's hook deadline. */
  readonly timeoutMs?: number;
  /** `shared` renders in the warm MCP server process; `standalone` always starts a worker. */
  readonly runtime?: 'shared' | 'standalone';
  /** What happens when no warm runtime answers: start a worker once, or answer nothing. */
  readonly fallback?: 'none' | 'standalone';
  /**
   * What the hook answers when it cannot give the handler's answer (a payload it cannot read
   * whole, a render that hangs, throws or crashes, no time left): `open` answers nothing and the
   * host proceeds, as every host does with a failed hook (the default); `closed` answers with the
   * host's native deny and a reason naming the failure. Only on events that can deny on every
   * target (`tool/before`, `prompt/submit`, `stop`, …); anywhere else it is an error (AB5205).
   */
  readonly failure?: 'open' | 'closed';
  /**
   * Native payload fields the handler may read that are left out by default because they can
   * identify a person or are unbounded (Cursor's `user_email`).
   */
  readonly native?: readonly string[];
}

/**
 * Renders the hook's answer: `<Agent.Context>`, `<Agent.Deny>`, `<Agent.Notice>`, or nothing
 * (`null`) for no output.
 */
export type EventHandler<Event extends EventName = EventName> = (
  event: EventProps<Event>,
) => ReactNode | Promise<ReactNode>;

/** A name an `events.*` helper is written with: a canonical event or an alias of one. */
export type AuthoredEventName = EventName | EventAlias;

/** What an `events.*` helper returns: the contract object the render worker reads. */
export type EventDefinition<Name extends AuthoredEventName = AuthoredEventName> = Readonly<{
  kind: 'event';
  /** The event as authored (`tool/after`, `stop`); an alias stays as written. */
  event: Name;
  options: EventOptions;
  handler: EventHandler<CanonicalEventOf<Name>>;
}>;

/** One `events.*` helper. */
export type EventHelper<Name extends AuthoredEventName> = (
  options: EventOptions,
  handler: EventHandler<CanonicalEventOf<Name>>,
) => EventDefinition<Name>;

type CamelCase<Text extends string> = Text extends `${infer Head}-${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : Text;

type FamilyOf<Name> = Name extends `${infer Family}/${string}` ? Family : never;
type Families = FamilyOf<AuthoredEventName>;
type SingleSegment = Exclude<AuthoredEventName, `${string}/${string}`>;

/** The helpers of one family: `events.tool` is `{ before, after, failure }`. */
type FamilyHelpers<Family extends string> = {
  readonly [Name in Extract<AuthoredEventName, `${Family}/${string}`> as Name extends `${Family}/${infer Event}`
    ? CamelCase<Event>
    : never]: EventHelper<Name>;
};

type GeneratedEvents = {
  readonly [Key in Families | SingleSegment as CamelCase<Key>]: Key extends SingleSegment
    ? Key extends Families
      ? EventHelper<Key> & FamilyHelpers<Key>
      : EventHelper<Key>
    : FamilyHelpers<Key>;
};

/** The `events` namespace, with `events.file.change` marked as the alias it is. */
export type Events = Omit<GeneratedEvents, 'file'> & {
  readonly file: {
    readonly saved: EventHelper<'file/saved'>;
    /** @deprecated agent-bundle's name for `file/saved`; write `events.file.saved`. */
    readonly change: EventHelper<'file/change'>;
  };
};

/**
 * Declares an event route: `export default events.tool.after({ tools: ['file.write'] }, handler)`
 * in `src/events/tool/after.tsx`, or `events.stop({}, handler)` in `src/events/stop.tsx`.
 *
 * Each helper only records its arguments in a frozen object; nothing is validated or registered
 * at definition time. `events.stop` is both the `stop` helper and the `stop/*` family
 * (`events.stop.failure`).
 */
export const events: Events = createEvents();

function createEvents(): Events {
  const authored: readonly string[] = [...EVENT_NAMES, ...Object.keys(EVENT_ALIASES)];
  const namespace: Record<string, object> = {};
  // Single-segment helpers first, so a family of the same name (`stop/failure`) hangs off them.
  for (const name of authored) {
    if (!name.includes('/')) namespace[camelCase(name)] = helperFor(name);
  }
  for (const name of authored) {
    const [family, event] = name.split('/');
    if (family === undefined || event === undefined) continue;
    const key = camelCase(family);
    const helpers = (namespace[key] ??= {}) as Record<string, unknown>;
    helpers[camelCase(event)] = helperFor(name);
  }
  for (const value of Object.values(namespace)) Object.freeze(value);
  return Object.freeze(namespace) as unknown as Events;
}

function helperFor(event: string) {
  return (options: EventOptions, handler: EventHandler) =>
    Object.freeze({ kind: 'event' as const, event, options, handler });
}

function camelCase(segment: string): string {
  return segment.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}
