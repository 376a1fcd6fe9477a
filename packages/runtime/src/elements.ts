/**
 * The Agent elements: host elements with reserved `agent-*` tag names.
 *
 * `Agent.Markdown` is the string `'agent-markdown'`, so `<Agent.Markdown>` compiles to a plain
 * host element that React Flight serializes as an element tuple without executing anything
 * (`Agent.Result` checks its value first, then renders the same `agent-result` tuple); the
 * runtime's Flight decoder turns those tuples into Agent Document nodes. Their props are typed
 * through `JSX.IntrinsicElements` below, which is also what lets `tsc` accept `<agent-markdown>`.
 */
import type { ReactNode } from 'react';

import { AgentResult } from './result.ts';

/**
 * Props of `<Agent.Result>`: the document root; `value` becomes the document's value. A result
 * without `value` is a container (a layout's shell): the runtime merges it with the route's own
 * result. `metadata` objects merge key by key, the outermost winning, into the MCP `_meta`.
 */
export interface ResultProps {
  value?: unknown;
  metadata?: Readonly<Record<string, unknown>>;
  children?: ReactNode;
}

/** Props of the text-carrying elements: Markdown, Text, Context, Notice. */
export interface TextContentProps {
  children: string | number | ReadonlyArray<string | number>;
}

/** Props of `<Agent.Json>`: any value; Map, Set, Date and BigInt are converted for JSON. */
export interface JsonProps {
  value: unknown;
}

/**
 * Props of `<Agent.Progress>`: usually a Suspense fallback. Either how far the work is
 * (`completed`, with `total` when known) or only what is happening (`message`), or both.
 */
export type ProgressProps =
  | { completed: number; total?: number; message?: string }
  | { completed?: undefined; total?: undefined; message: string };

/** Props of `<Agent.Image>` and `<Agent.Audio>`: raw bytes or a base64 string. */
export interface MediaProps {
  data: Uint8Array | string;
  mimeType: string;
}

/** Props of `<Agent.Resource>`: a link to, or the embedded text of, a resource. */
export interface ResourceProps {
  uri: string;
  /** What a client shows for the resource; a link without one is named by its URI. */
  name?: string;
  mimeType?: string;
  text?: string;
}

/**
 * Props of `<Agent.Error>`: a represented error (the invocation still completes). The message
 * is the `message` prop or the element's text: `<Agent.Error code="E_NOT_FOUND">{text}</Agent.Error>`.
 */
export type ErrorProps =
  | { code: string; message: string; children?: undefined }
  | { code: string; message?: undefined; children: string | number | ReadonlyArray<string | number> };

/** Props of `<Agent.Deny>`: refuse the action a hook event is about. */
export interface DenyProps {
  reason: string;
}

/**
 * The Agent elements. Every one but `Result` is its reserved tag name; `Result` is a component
 * that validates its value against the route's `resultSchema` and renders `agent-result`.
 */
export const Agent = {
  Result: AgentResult,
  Markdown: 'agent-markdown',
  Text: 'agent-text',
  Json: 'agent-json',
  Progress: 'agent-progress',
  Image: 'agent-image',
  Audio: 'agent-audio',
  Resource: 'agent-resource',
  Error: 'agent-error',
  Context: 'agent-context',
  Deny: 'agent-deny',
  Notice: 'agent-notice',
} as const;

/** One of the reserved tag names. */
export type AgentTagName = keyof AgentIntrinsicElements;

/** Props of each reserved tag name. */
export interface AgentIntrinsicElements {
  'agent-result': ResultProps;
  'agent-markdown': TextContentProps;
  'agent-text': TextContentProps;
  'agent-json': JsonProps;
  'agent-progress': ProgressProps;
  'agent-image': MediaProps;
  'agent-audio': MediaProps;
  'agent-resource': ResourceProps;
  'agent-error': ErrorProps;
  'agent-context': TextContentProps;
  'agent-deny': DenyProps;
  'agent-notice': TextContentProps;
}

declare module 'react' {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace JSX {
    interface IntrinsicElements extends AgentIntrinsicElements {}
  }
}
