// The JSX forms seeds 000 and 002 write, in one tool: a layout's container result (no value,
// its own metadata) around the route's result (a value and metadata), a message-only progress
// as a Suspense fallback, a named resource link, and an error whose message is its text.
import { Suspense } from 'react';
import * as z from 'zod';
import { Agent } from '@agent-bundle/runtime';

async function Catalog() {
  await new Promise((resolve) => setTimeout(resolve, 20));
  return <Agent.Resource uri="audiobooks://catalog" name="Catalog" />;
}

export default Object.freeze({
  kind: 'tool',
  options: {
    description: 'Renders every seed form.',
    inputSchema: z.object({ id: z.string() }),
    resultSchema: z.object({ found: z.boolean() }),
  },
  handler({ id }: { id: string }) {
    return (
      <Agent.Result metadata={{ route: 'tool:demo/seed-forms', shell: 'layout' }}>
        <Agent.Markdown># Lookup</Agent.Markdown>
        <Agent.Result value={{ found: false }} metadata={{ route: 'overridden', trace: 't-1' }}>
          <Suspense fallback={<Agent.Progress message="Inspecting files" />}>
            <Catalog />
          </Suspense>
          <Agent.Error code="E_NOT_FOUND">{`No entry is named ${id}.`}</Agent.Error>
        </Agent.Result>
      </Agent.Result>
    );
  },
});
