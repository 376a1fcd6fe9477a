// A tool: echoes its text as Markdown with a result value; `oops` renders a represented error.
import * as z from 'zod';
import { Agent } from '@agent-bundle/runtime';

export default Object.freeze({
  kind: 'tool',
  options: {
    description: 'Echoes a text.',
    inputSchema: z.object({ text: z.string() }),
  },
  handler({ text }: { text: string }) {
    if (text === 'oops') return <Agent.Error code="echo-refused" message="oops is not echoed" />;
    return (
      <Agent.Result value={{ echoed: text }}>
        <Agent.Markdown>{`> ${text}`}</Agent.Markdown>
      </Agent.Result>
    );
  },
});
