// The parent watch: a worker whose route busy-loops cannot read fd 3's end, so only the watch
// thread can end it when its host dies. A stand-in host (a real Node process) starts the worker,
// gets it spinning and is killed with SIGKILL; with ABGEN_WORKER_PARENT_PID naming that host the
// worker must be gone soon after, without it the worker must still be spinning (the control that
// shows it is the watch that ends it).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { bundleFlightEntry } from '../scripts/bundle.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const workDir = mkdtempSync(join(tmpdir(), 'abgen-parent-watch-test-'));
let framing;
let workerPath;

before(async () => {
  const framingPath = join(workDir, 'framing.mjs');
  await build({ entryPoints: [join(here, '../src/framing.ts')], outfile: framingPath, format: 'esm', bundle: true, logLevel: 'warning' });
  framing = await import(framingPath);
  workerPath = join(workDir, 'worker.mjs');
  const entry = join(here, 'fixture/entry.tsx');
  await bundleFlightEntry({ contents: readFileSync(entry, 'utf8'), resolveDir: dirname(entry), outfile: workerPath });
});

after(() => rmSync(workDir, { recursive: true, force: true }));

/** The stand-in host: starts the worker, sends it `render`, prints its pid once it spins. */
const HOST = `
const { spawn } = require('node:child_process');
const [workerPath, frame, watched] = process.argv.slice(1);
const env = { ...process.env };
delete env.ABGEN_WORKER_PARENT_PID;
if (watched === 'yes') env.ABGEN_WORKER_PARENT_PID = String(process.pid);
const worker = spawn(process.execPath, ['--conditions=react-server', workerPath], {
  stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'],
  env,
});
worker.stdio[4].resume();
worker.stdio[3].write(Buffer.from(frame, 'base64'));
worker.stdio[2].on('data', (chunk) => {
  if (String(chunk).includes('spinning')) process.stdout.write(worker.pid + '\\n');
});
setInterval(() => {}, 1000);
`;

/** The process state letter from /proc (R, S, Z, …), or null once the pid is gone. */
function state(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return null;
  }
}

/** Starts a stand-in host and waits for its worker to spin; returns both. */
async function spinningWorker(watched) {
  const frame = framing.encodeFrame({ type: 'render', id: 1, route: 'tool:t/spin', kind: 'tool', input: {} });
  const host = spawn(process.execPath, ['-e', HOST, workerPath, Buffer.from(frame).toString('base64'), watched ? 'yes' : 'no'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const worker = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the worker never started spinning')), 60_000);
    host.stdout.once('data', (chunk) => {
      clearTimeout(timer);
      resolve(Number(String(chunk).trim()));
    });
  });
  const exited = new Promise((resolve) => host.once('exit', resolve));
  return { host, worker, exited };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether `pid` is seen running (state R) within `ms`: a spinning process on a loaded machine
 * can be caught between time slices, so one look is not enough. */
async function seenRunning(pid, ms) {
  for (let waited = 0; waited < ms; waited += 10) {
    if (state(pid) === 'R') return true;
    await sleep(10);
  }
  return false;
}

/** Ends whatever a test left running, whatever it asserted: a leftover host keeps the test
 * process alive. */
function cleanUp({ host, worker }) {
  host.kill('SIGKILL');
  try {
    process.kill(worker, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

test('a busy worker dies with its killed host when the host asks for the watch', { skip: process.platform !== 'linux' && 'reads /proc' }, async () => {
  const spinning = await spinningWorker(true);
  const { host, worker, exited } = spinning;
  try {
    assert.ok(await seenRunning(worker, 2_000), 'the worker spins');
    host.kill('SIGKILL');
    await exited;
    let alive = true;
    for (let waited = 0; waited < 5_000 && alive; waited += 50) {
      await sleep(50);
      // Adopted by init, it may stay a zombie: that is a dead process.
      alive = !['Z', null].includes(state(worker));
    }
    assert.equal(alive, false, 'the worker was gone within 5 s of its host');
  } finally {
    cleanUp(spinning);
  }
});

test('without the watch a busy worker outlives its killed host', { skip: process.platform !== 'linux' && 'reads /proc' }, async () => {
  const spinning = await spinningWorker(false);
  const { host, worker, exited } = spinning;
  try {
    host.kill('SIGKILL');
    await exited;
    await sleep(1_500);
    assert.ok(await seenRunning(worker, 2_000), 'the control: nothing else ends a busy worker');
  } finally {
    cleanUp(spinning);
  }
});
