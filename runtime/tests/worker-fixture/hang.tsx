// A tool route that never finishes: the host's deadline must end it.
import { Agent } from '@agent-bundle/runtime';

export default Object.freeze({
  kind: 'tool',
  options: { description: 'Never answers.' },
  async handler() {
    await new Promise(() => {});
    return <Agent.Text>unreachable</Agent.Text>;
  },
});
