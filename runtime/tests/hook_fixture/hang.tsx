// prompt/submit: never answers; the hook's deadline must end it.
import { Agent } from '@agent-bundle/runtime';

export default Object.freeze({
  kind: 'event',
  options: {},
  async handler() {
    await new Promise(() => {});
    return <Agent.Context>unreachable</Agent.Context>;
  },
});
