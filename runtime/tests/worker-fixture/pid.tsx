// A tool route that says which worker process rendered it, after waiting `waitMs` (so a test can
// keep a worker busy).
import * as z from 'zod';
import { Agent } from '@agent-bundle/runtime';

export default Object.freeze({
  kind: 'tool',
  options: { description: 'Names its worker.', inputSchema: z.object({ waitMs: z.number().default(0) }) },
  async handler({ waitMs }: { waitMs: number }) {
    await new Promise((resolve) => setTimeout(resolve, waitMs));
    return <Agent.Result value={{ pid: process.pid }} />;
  },
});
