// Where agent-bundle's JavaScript finds the native binaries (`agent-bundle/test`,
// `agent-bundle/rsbuild`): the one lookup, so the packages that ship them only have to put them
// where it looks. Never a path compiled in from a checkout.
//
// Plain JavaScript (typed by binaries.d.ts) because tests import it straight from Node.

import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** The environment variables that name the two binaries; see `locateBinary`. */
const BINARY_ENV = { abgen: 'ABGEN_BIN', 'abgen-host': 'ABGEN_HOST' };

/**
 * Where `abgen` or `abgen-host` is: `$ABGEN_BIN` / `$ABGEN_HOST`, then `PATH`.
 * @param {'abgen' | 'abgen-host'} name
 * @param {string} neededBy who asks, named in the error when it is nowhere
 * @returns {string}
 */
export function locateBinary(name, neededBy) {
  const named = namedBinary(name);
  if (named !== undefined) return named;
  const found = onPath(name);
  if (found !== undefined) return found;
  throw new Error(`${neededBy} needs \`${name}\`: set ${BINARY_ENV[name]} to its path or put it on PATH`);
}

/**
 * How to run `abgen` for the project at `root`: `$ABGEN_BIN`; else the bin shim of the `abgen`
 * npm package the project installs, under this Node (found by Node's resolution from `root`,
 * so it works whether or not `node_modules/.bin` is on PATH); else `abgen` on PATH.
 * @param {string} root
 * @param {string} neededBy
 * @returns {{ command: string, args: string[] }}
 */
export function abgenCommand(root, neededBy) {
  const named = namedBinary('abgen');
  if (named !== undefined) return { command: named, args: [] };
  const shim = installedShim(root);
  if (shim !== undefined) return { command: process.execPath, args: [shim] };
  const found = onPath('abgen');
  if (found !== undefined) return { command: found, args: [] };
  throw new Error(
    `${neededBy} needs \`abgen\`: install it in the project (npm install --save-dev abgen), ` +
      'set ABGEN_BIN to its path or put it on PATH',
  );
}

function namedBinary(name) {
  const variable = BINARY_ENV[name];
  const named = process.env[variable];
  if (named === undefined || named === '') return undefined;
  if (!isExecutable(named)) throw new Error(`${variable} names ${named}, which is not an executable file`);
  return named;
}

function onPath(name) {
  for (const directory of (process.env.PATH ?? '').split(path.delimiter)) {
    if (directory === '') continue;
    const candidate = path.join(directory, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/** The `abgen` package's `bin.abgen` script as the project at `root` resolves it. */
function installedShim(root) {
  let manifestPath;
  try {
    manifestPath = createRequire(path.join(root, 'package.json')).resolve('abgen/package.json');
  } catch {
    return undefined;
  }
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  const bin = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin?.abgen;
  return typeof bin === 'string' ? path.join(path.dirname(manifestPath), bin) : undefined;
}

function isExecutable(file) {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}
