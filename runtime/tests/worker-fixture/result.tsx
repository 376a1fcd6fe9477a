// A tool route with a result schema, answering in four ways chosen by `mode`: a root
// <Agent.Error> (a represented error, never checked), a valid or an invalid result rendered deep
// inside an async component after an await (checked there), and an invalid root result.
import { Suspense } from 'react';
import * as z from 'zod';
import { Agent } from '@agent-bundle/runtime';

async function DeepResult({ count }: { count: unknown }) {
  await new Promise((resolve) => setTimeout(resolve, 10));
  return (
    <Agent.Result value={{ count }}>
      <Agent.Text>deep</Agent.Text>
    </Agent.Result>
  );
}

export default Object.freeze({
  kind: 'tool',
  options: {
    description: 'Answers in the shape `mode` asks for.',
    inputSchema: z.object({ mode: z.enum(['error-root', 'deep-good', 'deep-bad', 'root-bad', 'deep-bad-in-suspense']) }),
    resultSchema: z.object({ count: z.int() }),
  },
  handler({ mode }: { mode: string }) {
    switch (mode) {
      case 'error-root':
        return <Agent.Error code="not-found" message="No book with id `nope`." />;
      case 'deep-good':
        return <DeepResult count={3} />;
      case 'deep-bad':
        return <DeepResult count="three" />;
      case 'deep-bad-in-suspense':
        return (
          <Suspense fallback={<Agent.Progress completed={0} />}>
            <DeepResult count="three" />
          </Suspense>
        );
      default:
        return <Agent.Result value={{ count: 'x' }} />;
    }
  },
});
