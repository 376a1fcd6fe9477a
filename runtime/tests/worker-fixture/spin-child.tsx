// A tool route that starts a `sleep 60` child (not bound to any signal), writes its pid to
// `marker`, then busy-loops: only killing the worker's whole process group ends the child.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import * as z from 'zod';
import { Agent } from '@agent-bundle/runtime';

export default Object.freeze({
  kind: 'tool',
  options: { description: 'Starts a child, then spins.', inputSchema: z.object({ marker: z.string() }) },
  handler({ marker }: { marker: string }) {
    const child = spawn('sleep', ['60'], { stdio: 'ignore' });
    writeFileSync(marker, String(child.pid));
    for (;;) {
      // Busy on purpose.
    }
    return <Agent.Text>unreachable</Agent.Text>;
  },
});
