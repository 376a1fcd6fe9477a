// A tool route in the defineTool form: zod input, a progress report, author console output,
// a Suspense boundary resolved later, and a result value.
import { Suspense } from 'react';
import * as z from 'zod';
import { Agent, agent } from '@agent-bundle/runtime';

async function Later({ name }: { name: string }) {
  await new Promise((resolve) => setTimeout(resolve, 20));
  return <Agent.Markdown>{`Nice to meet you, ${name}.`}</Agent.Markdown>;
}

export default Object.freeze({
  kind: 'tool',
  options: {
    description: 'Greets someone.',
    inputSchema: z.object({ name: z.string(), times: z.number().default(1) }),
    resultSchema: z.object({ greeted: z.string() }),
  },
  handler(input: { name: string; times: number }) {
    console.log('author output goes to stderr, never into the protocol');
    agent().progress.report({ completed: 1, total: 2, message: 'greeting' });
    return (
      <Agent.Result value={{ greeted: input.name }}>
        <Agent.Markdown>{`# Hello ${input.name} ×${input.times}`}</Agent.Markdown>
        <Suspense fallback={<Agent.Progress completed={1} total={2} />}>
          <Later name={input.name} />
        </Suspense>
      </Agent.Result>
    );
  },
});
