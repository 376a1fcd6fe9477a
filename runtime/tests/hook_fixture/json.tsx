// session/start: answers with a JSON node, which no hook can carry.
import { Agent } from '@agent-bundle/runtime';

export default Object.freeze({
  kind: 'event',
  options: {},
  handler() {
    return <Agent.Json value={{ not: 'for hooks' }} />;
  },
});
