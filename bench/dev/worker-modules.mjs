// What the served bundler's modules mode (`abgen dev`'s render worker) costs for a one-route
// change.
//
// Starts `templates/esbuild-worker.mjs` served (as `abgen dev` does, and ends it by closing its
// stdin), asks it for the modules-mode worker of an entry of the generated one's shape (every
// module under `src/` imported lazily, as in `esbuild-floor.mjs`), then in each round rewrites
// one route's description and times the answer: the round trip of the request, and the served
// process's own figure (`ABGEN_DEV_WORKER_TIMING`: the modules it reached and compiled, and the
// milliseconds from the request to the assembled worker).
//
// Usage: node bench/dev/worker-modules.mjs <project> [rounds]
// (the project of `gen-projects --routes 1000`; esbuild and the packages from the repository's
// node_modules). Prints one JSON line per round; restores the route it rewrote.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generatedEntry } from './generated-entry.mjs';

const [project, roundsArg] = process.argv.slice(2);
if (!project) throw new Error('usage: node bench/dev/worker-modules.mjs <project> [rounds]');
const rounds = Number(roundsArg ?? 5);
const repository = new URL('../..', import.meta.url).pathname;

const { entry, route } = generatedEntry(project);
const request = {
  entry,
  absWorkingDir: project,
  esbuildFrom: join(repository, 'node_modules'),
  nodePaths: [join(repository, 'node_modules')],
  sourcefile: 'abgen-worker-entry.mjs',
  kind: 'worker',
  react: JSON.parse(readFileSync(join(repository, 'node_modules/react/package.json'), 'utf8')).version,
  mode: 'modules',
};

const scratch = mkdtempSync(join(tmpdir(), 'abgen-worker-modules-'));
const timing = join(scratch, 'timing.jsonl');
const served = spawn(process.execPath, [join(repository, 'templates/esbuild-worker.mjs'), '{"serve":true}'], {
  cwd: project,
  env: { ...process.env, ABGEN_DEV_WORKER_TIMING: timing },
  stdio: ['pipe', 'pipe', 'inherit'],
});
// Answers: a JSON header line, then `stdoutBytes` raw bytes.
const chunks = [];
let buffered = 0;
let waiting;
served.stdout.on('data', (chunk) => {
  chunks.push(chunk);
  buffered += chunk.length;
  waiting?.();
});
async function answer() {
  for (;;) {
    let newline = chunks.length > 0 ? chunks[0].indexOf(10) : -1;
    if (newline < 0 && chunks.length > 1) {
      chunks.splice(0, chunks.length, Buffer.concat(chunks));
      newline = chunks[0].indexOf(10);
    }
    if (newline >= 0) {
      const header = JSON.parse(chunks[0].subarray(0, newline).toString('utf8'));
      if (buffered >= newline + 1 + header.stdoutBytes) {
        const rest = Buffer.concat(chunks).subarray(newline + 1 + header.stdoutBytes);
        chunks.length = 0;
        buffered = rest.length;
        if (rest.length > 0) chunks.push(rest);
        return header;
      }
    }
    await new Promise((resolve) => { waiting = resolve; });
  }
}
let id = 0;
async function ask() {
  const started = performance.now();
  served.stdin.write(`${JSON.stringify({ id: ++id, request })}\n`);
  const header = await answer();
  if (header.code !== 0) throw new Error(header.stderr);
  const own = readFileSync(timing, 'utf8').trim().split('\n').at(-1);
  return { roundTripMs: Math.round(performance.now() - started), bytes: header.stdoutBytes, served: JSON.parse(own) };
}

const original = readFileSync(route, 'utf8');
try {
  console.log(JSON.stringify({ round: 'first', ...(await ask()) }));
  for (let round = 1; round <= rounds; round += 1) {
    writeFileSync(route, original.replace(/description:(\s*)'/, (_, space) => `description:${space}'Round ${round}. `));
    console.log(JSON.stringify({ round, ...(await ask()) }));
  }
} finally {
  writeFileSync(route, original);
  served.stdin.end();
  rmSync(scratch, { recursive: true, force: true });
}
