/**
 * `<Agent.Result>`: a server component that checks its `value` against the route's
 * `resultSchema`, then renders the reserved `agent-result` host element unchanged.
 *
 * Being a component (not a bare tag) is what lets the check run wherever the result renders: at
 * the root, inside a layout, or deep in an async component after an `await`, since the schema is
 * read from the request context React's deferred work still runs in. Invariant: only the value of
 * an `agent-result` is ever validated; any other root (an `<Agent.Error>`, bare Markdown) is
 * rendered as it is, and the Flight tuple React emits is the same as for the bare tag.
 */
import { createElement, type ReactElement } from 'react';
import { safeParse, safeParseAsync } from 'zod/mini';
import type { $ZodType } from 'zod/v4/core';

import { currentResultSchema } from './context.ts';
import type { ResultProps } from './elements.ts';

/** The error a value that breaks the route's `resultSchema` raises (code `invalid-result`). */
export class InvalidResultError extends Error {
  readonly code = 'invalid-result';
  constructor(issues: string) {
    super(`result value: ${issues}`);
    this.name = 'InvalidResultError';
  }
}

/** Renders `<agent-result>` once `props.value` satisfies the route's result schema. */
export function AgentResult(props: ResultProps): ReactElement | Promise<ReactElement> {
  const element = createElement('agent-result', props);
  const schema = currentResultSchema();
  // A result without `value` is a container (a layout's shell): it holds no value to check.
  if (schema === undefined || !('value' in props)) return element;
  let parsed: ReturnType<typeof safeParse>;
  try {
    parsed = safeParse(schema, props.value);
  } catch {
    // A schema with async refinements refuses a synchronous parse (zod's `$ZodAsyncError`, whose
    // class may come from another copy of zod): validate asynchronously; React outlines the
    // result, and an error thrown by the schema itself surfaces from the async parse.
    return safeParseAsync(schema, props.value).then((result) => checked(result, element));
  }
  return checked(parsed, element);
}

function checked(parsed: ReturnType<typeof safeParse>, element: ReactElement): ReactElement {
  if (!parsed.success) throw new InvalidResultError(describeIssues(parsed.error.issues));
  return element;
}

/** Zod issues as one line: `` `path`: message; … ``. */
export function describeIssues(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): string {
  return issues
    .map((issue) => {
      const path = issue.path.map(String).join('.');
      return path === '' ? issue.message : `\`${path}\`: ${issue.message}`;
    })
    .join('; ');
}

export type { $ZodType as ResultSchema };
