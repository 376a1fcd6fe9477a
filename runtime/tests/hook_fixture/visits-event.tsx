// session/start: tells the agent what the `visits` provider returned, as JSON.
import { Agent, agent } from '@agent-bundle/runtime';

export default Object.freeze({
  kind: 'event',
  options: {},
  async handler() {
    const visits = await agent().provider('visits');
    return <Agent.Context>{JSON.stringify(visits)}</Agent.Context>;
  },
});
