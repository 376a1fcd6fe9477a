// A tool route whose render takes the whole worker process down, after reporting progress.
import { Agent, agent } from '@agent-bundle/runtime';

export default Object.freeze({
  kind: 'tool',
  options: { description: 'Crashes the worker.' },
  async handler() {
    agent().progress.report({ completed: 1, total: 2, message: 'about to crash' });
    await new Promise((resolve) => setTimeout(resolve, 10));
    // As abrupt as a native crash or the OOM killer: no exit handlers, no last frames.
    process.kill(process.pid, 'SIGKILL');
    return <Agent.Text>unreachable</Agent.Text>;
  },
});
