/** Where `abgen` or `abgen-host` is: `$ABGEN_BIN` / `$ABGEN_HOST`, then `PATH`. */
export declare function locateBinary(name: 'abgen' | 'abgen-host', neededBy: string): string;

/**
 * How to run `abgen` for the project at `root`: `$ABGEN_BIN`, else the `abgen` package the
 * project installs (its bin shim under this Node), else `abgen` on PATH.
 */
export declare function abgenCommand(root: string, neededBy: string): { command: string; args: string[] };
