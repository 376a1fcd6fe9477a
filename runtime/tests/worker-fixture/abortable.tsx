// A tool route that starts a child process and a fetch that never answers, both bound to the
// render's AbortSignal, reports progress, and waits. When the host aborts the render, the signal
// must reach both: what each saw is appended to the file `marker`.
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { Suspense } from 'react';
import * as z from 'zod';
import { Agent, agent } from '@agent-bundle/runtime';

async function Waiting({ marker }: { marker: string }) {
  const { signal, progress } = agent();
  // A server that accepts and never answers: the fetch can only end by being aborted.
  const server = createServer(() => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const child = spawn('sleep', ['30'], { signal, stdio: 'ignore' });
  const childExit = new Promise<void>((resolve) => {
    child.on('exit', (code, killedBy) => {
      appendFileSync(marker, `child exited by ${killedBy ?? `code ${code}`}\n`);
      resolve();
    });
    child.on('error', () => {});
  });
  const fetched = fetch(`http://127.0.0.1:${port}/`, { signal }).then(
    () => appendFileSync(marker, 'fetch answered\n'),
    (error: unknown) => appendFileSync(marker, `fetch ended: ${error === signal.reason ? 'the render was aborted' : String(error)}\n`),
  );
  progress.report({ completed: 1, total: 2, message: 'child and fetch started' });
  await Promise.all([childExit, fetched]);
  server.close();
  return <Agent.Text>finished</Agent.Text>;
}

export default Object.freeze({
  kind: 'tool',
  options: { description: 'Waits until aborted.', inputSchema: z.object({ marker: z.string() }) },
  handler({ marker }: { marker: string }) {
    return (
      <Agent.Result>
        <Suspense fallback={<Agent.Progress completed={0} total={2} />}>
          <Waiting marker={marker} />
        </Suspense>
      </Agent.Result>
    );
  },
});
