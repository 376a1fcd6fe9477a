// compact/before: takes the whole worker process down mid-render, as a native crash or the OOM
// killer would (no exit handlers, no last frames).
import { Agent } from '@agent-bundle/runtime';

export default Object.freeze({
  kind: 'event',
  options: { failure: 'closed' },
  async handler() {
    await new Promise((resolve) => setTimeout(resolve, 10));
    process.kill(process.pid, 'SIGKILL');
    return <Agent.Context>unreachable</Agent.Context>;
  },
});
