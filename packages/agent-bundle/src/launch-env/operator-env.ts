/** The part of Node this module uses (the package compiles without Node's types). */
interface NodeProcess {
  env: Record<string, string | undefined>;
  stderr: { write(chunk: string): boolean };
  getBuiltinModule(id: 'node:fs'): { readFileSync(path: string, encoding: 'utf8'): string };
  getBuiltinModule(id: 'node:path'): { join(...parts: string[]): string };
}

declare const process: NodeProcess;

/**
 * The environment variable every generated stdio entry carries: the plugin install root in
 * the host's spelling (`${CLAUDE_PLUGIN_ROOT}`, `${PLUGIN_ROOT}`, `${CURSOR_PLUGIN_ROOT}`, or
 * Codex's `./` against the entry's plugin-root cwd). A server's own `env` entry wins over it.
 */
export const pluginRootEnvAnchor = 'AGENT_BUNDLE_PLUGIN_ROOT';

/** The operator's files, read from the plugin root in this order (a later file wins). */
export const OPERATOR_ENV_FILES: readonly string[] = ['.env', '.env.local'];

/**
 * The environment variable naming the operator's files instead, as a JSON array of paths in
 * order (a later file wins; `[]` reads none). `abgen mcp run` sets it to the project root's
 * `.env` set, or to its `--env-file`s; `applyOperatorEnv` removes it once read, so the author's
 * code never sees it.
 */
export const OPERATOR_ENV_FILES_ENV = 'AGENT_BUNDLE_ENV_FILES';

export interface ApplyOperatorEnvOptions {
  /** The folder holding the operator's files (see `operatorEnvPluginRoot`). */
  pluginRoot: string;
  /** The server's declared `env` block: values the host passed through that yield to a file. */
  manifestEnv?: Record<string, string>;
  /** The environment to compose (default `process.env`), changed in place. */
  env?: Record<string, string | undefined>;
}

export interface AppliedOperatorEnv {
  /** The files read, in order. */
  files: string[];
  /** The variables a file set, sorted. */
  applied: string[];
}

/** Whether `value` still carries an unexpanded `${…}` token (a host passed it through literally). */
function unexpanded(value: string): boolean {
  return /\$\{[^}]*\}/.test(value);
}

let reportedUnexpanded = false;

/**
 * The plugin root the operator's files are read from: an expanded `AGENT_BUNDLE_PLUGIN_ROOT`
 * the host set, else `fallback` (the artifact root, the parent of `mcp/`, for a built entry).
 * A value still carrying `${…}` is treated as unset and reported once on stderr.
 */
export function operatorEnvPluginRoot(
  fallback: string,
  env: Record<string, string | undefined> = process.env,
): string {
  const anchored = env[pluginRootEnvAnchor];
  if (anchored === undefined || anchored === '') {
    return fallback;
  }
  if (unexpanded(anchored)) {
    if (!reportedUnexpanded) {
      reportedUnexpanded = true;
      process.stderr.write(
        `${pluginRootEnvAnchor} is ${JSON.stringify(anchored)}, which the host did not expand; using ${fallback}\n`,
      );
    }
    return fallback;
  }
  return anchored;
}

const KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The variables of a `.env` text: `KEY=value` lines (an optional `export ` prefix), `#`
 * comments, single-quoted values taken literally, double-quoted values with `\n`, `\t`, `\"`
 * and `\\` escapes, and unquoted values trimmed, a ` #` starting a comment. Malformed lines
 * are skipped.
 */
export function parseEnvFile(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim().replace(/^export\s+/, '');
    if (line === '' || line.startsWith('#')) {
      continue;
    }
    const equals = line.indexOf('=');
    if (equals <= 0) {
      continue;
    }
    const key = line.slice(0, equals).trim();
    if (!KEY.test(key)) {
      continue;
    }
    const rest = line.slice(equals + 1).trim();
    let value: string;
    if (rest.startsWith("'") && rest.indexOf("'", 1) > 0) {
      value = rest.slice(1, rest.indexOf("'", 1));
    } else if (rest.startsWith('"')) {
      const match = /^"((?:[^"\\]|\\.)*)"/.exec(rest);
      if (!match) {
        continue;
      }
      value = (match[1] ?? '').replace(/\\(.)/g, (_, escaped: string) =>
        escaped === 'n' ? '\n' : escaped === 't' ? '\t' : escaped,
      );
    } else {
      value = rest.replace(/\s+#.*$/, '').trim();
    }
    values[key] = value;
  }
  return values;
}

/** The operator's files: those `OPERATOR_ENV_FILES_ENV` names, else the plugin root's. */
function operatorEnvFiles(
  pluginRoot: string,
  env: Record<string, string | undefined>,
  join: (...parts: string[]) => string,
): string[] {
  const named = env[OPERATOR_ENV_FILES_ENV];
  delete env[OPERATOR_ENV_FILES_ENV];
  if (named === undefined) {
    return OPERATOR_ENV_FILES.map((name) => join(pluginRoot, name));
  }
  let files: unknown;
  try {
    files = JSON.parse(named);
  } catch {
    files = undefined;
  }
  if (!Array.isArray(files) || !files.every((file) => typeof file === 'string')) {
    process.stderr.write(`${OPERATOR_ENV_FILES_ENV} is not a JSON array of paths; reading no operator files\n`);
    return [];
  }
  return files;
}

/** Applies the operator's files over `env` by the precedence of this module's header. */
export function applyOperatorEnv(options: ApplyOperatorEnvOptions): AppliedOperatorEnv {
  const env = options.env ?? process.env;
  const fs = process.getBuiltinModule('node:fs');
  const path = process.getBuiltinModule('node:path');
  const composed: Record<string, string> = {};
  const files: string[] = [];
  for (const file of operatorEnvFiles(options.pluginRoot, env, path.join)) {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    files.push(file);
    Object.assign(composed, parseEnvFile(text));
  }
  const manifest = options.manifestEnv;
  const applied: string[] = [];
  for (const [key, value] of Object.entries(composed)) {
    const current = env[key];
    const hostSet = current !== undefined && !(manifest !== undefined && manifest[key] === current);
    if (hostSet) {
      continue;
    }
    env[key] = value;
    applied.push(key);
  }
  return { files, applied: applied.sort() };
}
