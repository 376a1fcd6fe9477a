// A tool that says it started spinning (on stderr, which the host passes on) and then never
// yields: no timer, abort or closed pipe can reach it, only a signal.
import { Agent } from '@agent-bundle/runtime';

export default Object.freeze({
  kind: 'tool',
  options: { description: 'Spins forever.' },
  handler() {
    console.error('lifetime-fixture: spinning');
    while (Date.now() > 0) {
      // busy
    }
    return <Agent.Text>unreachable</Agent.Text>;
  },
});
