// Bounded waits and process checks shared by the SDK-client scripts that watch a render's
// children and sockets go away.
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Polls `condition` (which may return a promise) every 5 ms; the elapsed milliseconds once it
 * holds, or throws after `ms`.
 */
export async function within(ms, condition, what) {
  const started = performance.now();
  while (!(await condition())) {
    if (performance.now() - started > ms) throw new Error(`${what} not within ${ms} ms`);
    await sleep(5);
  }
  return Number((performance.now() - started).toFixed(1));
}

/** Whether `pid` still runs: an exited child its parent has not reaped yet (a zombie) does not. */
export function alive(pid) {
  try {
    if (readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].startsWith('Z')) return false;
  } catch {
    // No such process, or no /proc: kill(0) says.
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
