// Records fixtures/flight/<case>.flight from fixtures/flight/<case>.tsx with the pinned React:
// each case is bundled with scripts/bundle.mjs, rendered once under
// `node --conditions=react-server` in production mode, and its Flight bytes written verbatim.
// The render runs inside a request context like the worker's (`agent()` works, providers come
// from the case's optional `providers` export, progress reports are dropped), and a case that
// exports `abortAfterMs` is aborted that long after the render started.
// Run from the repository root: `node packages/runtime/scripts/record-flight.mjs [case…]`; an
// argument ending in `.tsx` is a route file anywhere, recorded beside it (bench/flight uses this).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleFlightEntry } from './bundle.mjs';

const packageDir = resolve(fileURLToPath(import.meta.url), '../..');
const fixturesDir = resolve(packageDir, '../../fixtures/flight');
const digestModule = join(packageDir, 'src/digest.ts');
const contextModule = join(packageDir, 'src/context.ts');

const requested = process.argv.slice(2);
const files = requested.filter((arg) => arg.endsWith('.tsx')).map((file) => resolve(file));
const names = requested.filter((arg) => !arg.endsWith('.tsx'));
const cases =
  files.length > 0 && names.length === 0
    ? []
    : readdirSync(fixturesDir)
        .filter((file) => file.endsWith('.tsx'))
        .map((file) => basename(file, '.tsx'))
        .filter((name) => names.length === 0 || names.includes(name))
        .sort();
const routes = [
  ...cases.map((name) => ({ name, dir: fixturesDir })),
  ...files.map((file) => ({ name: basename(file, '.tsx'), dir: dirname(file) })),
];

const workDir = mkdtempSync(join(tmpdir(), 'abgen-record-flight-'));
try {
  for (const { name, dir } of routes) {
    const outfile = join(workDir, `${name}.mjs`);
    await bundleFlightEntry({
      resolveDir: dir,
      outfile,
      contents: `
        import { writeSync, openSync } from 'node:fs';
        import { createElement } from 'react';
        import { renderToReadableStream } from 'react-server-dom-webpack/server';
        import { flightDigest } from ${JSON.stringify(digestModule)};
        import { runWithAgentContext } from ${JSON.stringify(contextModule)};
        import * as caseModule from './${name}.tsx';
        // A copy, so optional exports a case leaves out are read without bundler warnings.
        const module = { ...caseModule };
        const out = openSync(process.argv[2], 'w');
        const controller = new AbortController();
        const providers = new Map();
        const context = {
          route: { id: 'tool:fixtures/${name}', kind: 'tool' },
          invocation: { kind: 'tool' },
          input: {},
          signal: controller.signal,
          progress: { report() {} },
          provider(key) {
            if (!providers.has(key)) {
              const factory = module.providers?.[key];
              providers.set(key, factory ? Promise.resolve().then(factory) : Promise.reject(new Error('no provider ' + key)));
            }
            return providers.get(key);
          },
        };
        if (typeof module.abortAfterMs === 'number') {
          setTimeout(() => controller.abort(Object.assign(new Error('cancelled by the client'), { code: 'aborted' })), module.abortAfterMs);
        }
        const stream = runWithAgentContext(context, () =>
          renderToReadableStream(createElement(module.default), {}, { onError: flightDigest, signal: controller.signal }),
        );
        const reader = stream.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          writeSync(out, value);
        }
      `,
    });
    const target = join(dir, `${name}.flight`);
    execFileSync(process.execPath, ['--conditions=react-server', outfile, target], {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, NODE_ENV: 'production' },
    });
    console.log(`recorded ${name}.flight`);
  }
} finally {
  rmSync(workDir, { recursive: true, force: true });
}
