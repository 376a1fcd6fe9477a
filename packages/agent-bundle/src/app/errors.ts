/** What went wrong on the wire or in the lifecycle (seed 002, §The typed App client). */
export type AppClientErrorCode =
  | 'timeout'
  | 'aborted'
  | 'disposed'
  | 'connection-rebound'
  | 'invalid-message'
  | 'rpc'
  | 'capability-unavailable'
  | 'consent-required';

/** The one error class of everything that happens on the wire or in the lifecycle. */
export class AppClientError extends Error {
  override readonly name = 'AppClientError';
  readonly code: AppClientErrorCode;
  /** The JSON-RPC error code, when the host answered with an error. */
  readonly rpcCode: number | undefined;
  /** The JSON-RPC error's `data`, or the whole tool result of an `isError` result. */
  readonly data: unknown;

  constructor(code: AppClientErrorCode, message: string, options: { rpcCode?: number; data?: unknown } = {}) {
    super(message);
    this.code = code;
    this.rpcCode = options.rpcCode;
    this.data = options.data;
  }
}

/** A JSON-RPC error from the host, by its code: -32601 and -32001 have their own meaning. */
export function rpcError(error: { code: number; message: string; data?: unknown }): AppClientError {
  const code: AppClientErrorCode =
    error.code === -32601 ? 'capability-unavailable' : error.code === -32001 ? 'consent-required' : 'rpc';
  return new AppClientError(code, error.message, { rpcCode: error.code, data: error.data });
}
