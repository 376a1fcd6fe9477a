// An event route that says it started spinning (on stderr) and then never yields.
import { Agent } from '@agent-bundle/runtime';

export default Object.freeze({
  kind: 'event',
  options: {},
  handler() {
    console.error('lifetime-fixture: spinning');
    while (Date.now() > 0) {
      // busy
    }
    return <Agent.Context>unreachable</Agent.Context>;
  },
});
