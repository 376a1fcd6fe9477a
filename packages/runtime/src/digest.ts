/**
 * The error digest convention: production Flight carries only `onError`'s return value, so the
 * worker returns the JSON string `{code, message}` and the Rust decoder parses it back out of
 * `E` rows. Never a stack or a path.
 */

/** React's `onError` for every render: `error.code` when it is a string, else `render-error`. */
export function flightDigest(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return JSON.stringify({ code: typeof code === 'string' ? code : 'render-error', message });
}
