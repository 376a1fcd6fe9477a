// The result value is typed by the route's `resultSchema` (issue: JSX erases `<Agent.Result>`'s
// prop types): a handler's `Result` is bound to the schema, so `{ status: 'nope' }` where the
// schema says `z.literal('ready')` is TS2322 where it is written, and the right value compiles.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const fixture = path.join(repo, 'packages/agent-bundle/test/fixtures/typed-result');

/** tsc on one fixture file, with the fixture project's options (strict). */
function typecheck(file) {
  const result = spawnSync(
    process.execPath,
    [
      path.join(repo, 'node_modules/typescript/bin/tsc'), '--pretty', 'false', '--noEmit', '--strict', '--skipLibCheck',
      '--allowImportingTsExtensions', '--jsx', 'react-jsx', '--module', 'esnext', '--moduleResolution', 'bundler',
      '--target', 'es2022', '--lib', 'es2022,dom', '--types', 'node', path.join(fixture, file),
    ],
    { encoding: 'utf8', cwd: repo },
  );
  return { status: result.status, output: `${result.stdout}${result.stderr}`.trim() };
}

test('the value the schema describes compiles', () => {
  const { status, output } = typecheck('good.tsx');
  assert.equal(status, 0, output);
});

test("a value the schema refuses is TS2322 on the line that writes it", () => {
  const { status, output } = typecheck('bad.tsx');
  assert.notEqual(status, 0);
  assert.equal(
    output,
    `${path.relative(repo, path.join(fixture, 'bad.tsx'))}(11,20): error TS2322: Type '"nope"' is not assignable to type '"ready"'.`,
  );
});
