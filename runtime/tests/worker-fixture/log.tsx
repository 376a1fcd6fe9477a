// A tool route that logs through `agent().log`: a record with data, one without, and data JSON
// cannot hold, which throws at the call (the route catches it and says so).
import { Agent, agent } from '@agent-bundle/runtime';

export default Object.freeze({
  kind: 'tool',
  options: { description: 'Logs, then answers.' },
  handler() {
    const { log } = agent();
    log.info('starting', { step: 1 });
    log.warning('almost done');
    let refused = '';
    try {
      log.debug('a bigint', { value: 1n });
    } catch (error) {
      refused = (error as Error).message;
    }
    return <Agent.Result value={{ refused }} />;
  },
});
