/** The plugin's default framework state root for the absolute code root `root` (see state-root.mjs). */
export function defaultStateRoot(root: string, env: Record<string, string | undefined>): string;
/** The SHA-256 of `text`'s UTF-8 bytes, in lowercase hexadecimal. */
export function sha256Hex(text: string): string;
