// A tool answering with what the `visits` provider returned, as JSON text.
import * as z from 'zod';
import { Agent, agent } from '@agent-bundle/runtime';

export default Object.freeze({
  kind: 'tool',
  options: { description: 'Shows the visits provider.', inputSchema: z.object({ text: z.string() }) },
  async handler() {
    const visits = await agent().provider('visits');
    return <Agent.Markdown>{JSON.stringify(visits)}</Agent.Markdown>;
  },
});
