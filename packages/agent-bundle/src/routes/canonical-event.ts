/**
 * The values an event route's handler receives. The runtime builds them from the host's native
 * hook payload before the handler runs; nothing here exists at definition time.
 */

import type { EventName } from './vocabulary.js';

/** The hosts whose hooks abgen answers. */
export type HostName = 'claude' | 'codex' | 'cursor';

/**
 * The canonical class of a tool an event concerns. Hosts name the same tool differently
 * (`Bash`, `shell`, `Shell`); routes match on this class instead, or on a native name written as
 * `<host>:<native tool name>`.
 */
export type CanonicalToolSelector = 'shell' | 'file.read' | 'file.write' | 'mcp' | 'agent' | 'other';

/**
 * What an event route's `tools` option accepts: a canonical class, or one host's native tool
 * name (`'claude:Edit'`, `'codex:apply_patch'`). `other` is not selectable, since it only says that
 * a tool fits none of the classes.
 */
export type ToolSelector = Exclude<CanonicalToolSelector, 'other'> | `${HostName}:${string}`;

/**
 * One identity axis of a canonical event (the session, the workspace). Hosts do not all report
 * every axis, so a missing one is stated with a reason rather than guessed.
 */
export type IdentityAxis<Value> =
  | {
      readonly state: 'available';
      readonly value: Value;
      /** `native` when the host sent it, `derived` when the runtime computed it. */
      readonly source: 'native' | 'derived';
    }
  | { readonly state: 'unavailable'; readonly reason: string };

/**
 * Present (`true`) when a value is not exactly what the host sent. A guard that judges the value
 * checks these first, or declares `failure: 'closed'` so the runtime denies such a delivery
 * before the handler runs.
 */
export interface InexactText {
  /** Part of the value nested deeper than the host's depth limit was cut (kept as `null`). */
  readonly truncated?: true;
  /** A string held a lone UTF-16 surrogate escape, read as U+FFFD (as `JSON.parse` does). */
  readonly lossy?: true;
}

/** The tool an event concerns (`tool/before`, `tool/after`, `tool/failure`, …). */
export interface CanonicalTool extends InexactText {
  readonly selector: CanonicalToolSelector;
  /** The host's own name for the tool (`Write`, `apply_patch`, `mcp__library__search_books`). */
  readonly name: string;
  /**
   * The tool's input as the host reported it, whole (the payload budget bounds it) down to the
   * host's depth limit; `truncated` says when something below it was cut.
   */
  readonly input: unknown;
}

/** The submitted prompt, whole. */
export interface CanonicalPrompt extends InexactText {
  readonly text: string;
}

/**
 * The host-independent form of a hook event, the same shape on every host so that one route
 * serves them all.
 */
export interface CanonicalEvent<Event extends EventName = EventName> {
  readonly event: Event;
  readonly host: HostName;
  /** The revision of the host contract the payload was decoded against. */
  readonly contractRevision: string;
  /** Stable across retries of one native delivery, so a handler can skip repeated work. */
  readonly idempotencyKey: string;
  readonly session: IdentityAxis<string>;
  /** The workspace root the agent works in. */
  readonly workspace: IdentityAxis<string>;
  /** Present when the event concerns a tool. */
  readonly tool?: CanonicalTool;
  /** The user's prompt, on `prompt/submit`. */
  readonly prompt?: CanonicalPrompt;
  /** The host's documented payload fields, bounded; identifying fields only when listed in `native`. */
  readonly native: Readonly<Record<string, unknown>>;
}

/** Where an event came from, for handlers that must tell hosts apart. */
export interface EventProvenance {
  readonly host: HostName;
  /** The host's own event name (`PostToolUse`, `afterFileEdit`). */
  readonly nativeEvent: string;
}

/** The props an event handler (or an event route's default component) receives. */
export interface EventProps<Event extends EventName = EventName> {
  readonly canonical: CanonicalEvent<Event>;
  readonly native: Record<string, unknown>;
  readonly provenance: EventProvenance;
  /** Aborted when the host's deadline for the hook is about to pass. */
  readonly signal: AbortSignal;
}
