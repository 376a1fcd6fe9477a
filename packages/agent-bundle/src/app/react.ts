/**
 * `agent-bundle/app/react`: a thin React layer over one {@link AppClient}. `useTool` holds the
 * latest structured result of one tool route (the App's opening result first, then each call's),
 * the error of the last call, and whether a call is running.
 */

import { useCallback, useEffect, useRef, useState } from 'react';

import type { AppClient, RequestOptions } from './client.js';
import type { AppClientError } from './errors.js';
import type { AppRouteId, AppRouteInput, AppRouteResult } from './index.js';

export interface ToolState<Id extends AppRouteId> {
  /** The latest structured result: the opening tool's, then each successful call's. */
  readonly result: AppRouteResult<Id> | undefined;
  /** Why the last call (or the opening call) failed. */
  readonly error: AppClientError | Error | undefined;
  readonly pending: boolean;
  /** Calls the tool; resolves to its result and updates the state. */
  call(input: AppRouteInput<Id>, options?: RequestOptions): Promise<AppRouteResult<Id>>;
}

export function useTool<Id extends AppRouteId>(client: AppClient, id: Id): ToolState<Id> {
  const [result, setResult] = useState<AppRouteResult<Id> | undefined>(undefined);
  const [error, setError] = useState<AppClientError | Error | undefined>(undefined);
  const [pending, setPending] = useState(false);
  const latest = useRef(0);

  useEffect(() => {
    const stops = [
      client.onToolResult(id, (opening) => {
        setResult(() => opening);
        setError(undefined);
      }),
      client.onToolError(id, (failure) => setError(failure)),
    ];
    client.connect().catch((failure: unknown) => setError(failure instanceof Error ? failure : new Error(String(failure))));
    return () => {
      for (const stop of stops) stop();
    };
  }, [client, id]);

  const call = useCallback(
    async (input: AppRouteInput<Id>, options?: RequestOptions) => {
      const ticket = ++latest.current;
      setPending(true);
      try {
        const value = await client.call(id, input, options);
        if (ticket === latest.current) {
          setResult(() => value);
          setError(undefined);
        }
        return value;
      } catch (failure) {
        if (ticket === latest.current) setError(failure instanceof Error ? failure : new Error(String(failure)));
        throw failure;
      } finally {
        if (ticket === latest.current) setPending(false);
      }
    },
    [client, id],
  );

  return { result, error, pending, call };
}
