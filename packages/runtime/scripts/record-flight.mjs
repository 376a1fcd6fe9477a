// Records fixtures/flight/<case>.flight from fixtures/flight/<case>.tsx with the pinned React:
// each case is bundled with scripts/bundle.mjs, rendered once under
// `node --conditions=react-server` in production mode, and its Flight bytes written verbatim.
// Run from the repository root: `node packages/runtime/scripts/record-flight.mjs [case…]`.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleFlightEntry } from './bundle.mjs';

const packageDir = resolve(fileURLToPath(import.meta.url), '../..');
const fixturesDir = resolve(packageDir, '../../fixtures/flight');
const digestModule = join(packageDir, 'src/digest.ts');

const requested = process.argv.slice(2);
const cases = readdirSync(fixturesDir)
  .filter((file) => file.endsWith('.tsx'))
  .map((file) => basename(file, '.tsx'))
  .filter((name) => requested.length === 0 || requested.includes(name))
  .sort();

const workDir = mkdtempSync(join(tmpdir(), 'abgen-record-flight-'));
try {
  for (const name of cases) {
    const outfile = join(workDir, `${name}.mjs`);
    await bundleFlightEntry({
      resolveDir: fixturesDir,
      outfile,
      contents: `
        import { writeSync, openSync } from 'node:fs';
        import { createElement } from 'react';
        import { renderToReadableStream } from 'react-server-dom-webpack/server';
        import { flightDigest } from ${JSON.stringify(digestModule)};
        import Case from './${name}.tsx';
        const out = openSync(process.argv[2], 'w');
        const reader = renderToReadableStream(createElement(Case), {}, { onError: flightDigest }).getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          writeSync(out, value);
        }
      `,
    });
    const target = join(fixturesDir, `${name}.flight`);
    execFileSync(process.execPath, ['--conditions=react-server', outfile, target], {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, NODE_ENV: 'production' },
    });
    console.log(`recorded ${name}.flight`);
  }
} finally {
  rmSync(workDir, { recursive: true, force: true });
}
