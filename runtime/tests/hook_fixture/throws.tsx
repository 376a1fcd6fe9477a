// stop: the handler logs what it tries, then throws before rendering anything.
import { agent } from '@agent-bundle/runtime';

export default Object.freeze({
  kind: 'event',
  options: { failure: 'closed' },
  handler(): never {
    agent().log.warning('asking the audit backend', { attempt: 1 });
    throw new Error('the audit backend is unreachable');
  },
});
