// Type-checks one generated TypeScript file with the workspace's tsc, strictly: what the tests
// that hold TypeScript declarations to a JSON Schema (the worker protocol's context, the
// canonical event, the config) check their generated assertions with.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../../..', import.meta.url));

/**
 * tsc's exit status and output on `source`, written as `check.ts` in a temporary directory that
 * is removed afterwards; its errors read `check.ts(LINE,COLUMN): error …`.
 * @param {string} source
 * @param {{ nodeTypes?: boolean }} [options] `nodeTypes`: Node's own types are in scope
 */
export function typecheck(source, options = {}) {
  const directory = mkdtempSync(path.join(tmpdir(), 'abgen-typecheck-'));
  try {
    const file = path.join(directory, 'check.ts');
    writeFileSync(file, source);
    const types = options.nodeTypes ? ['--types', 'node', '--typeRoots', path.join(repo, 'node_modules/@types')] : [];
    const result = spawnSync(
      process.execPath,
      [
        path.join(repo, 'node_modules/typescript/bin/tsc'),
        '--noEmit', '--strict', '--skipLibCheck', '--allowImportingTsExtensions',
        '--module', 'esnext', '--moduleResolution', 'bundler', '--target', 'es2022',
        ...types,
        file,
      ],
      { encoding: 'utf8' },
    );
    return { status: result.status, output: `${result.stdout}${result.stderr}` };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
