// stop: blocks the end of a turn for one session, otherwise leaves the user a notice.
import { Agent } from '@agent-bundle/runtime';

export default Object.freeze({
  kind: 'event',
  options: {},
  handler({ canonical }: { canonical: { session: { state: string; value?: string } } }) {
    if (canonical.session.value === 'block-me') return <Agent.Deny reason="Run the tests before stopping." />;
    return <Agent.Notice>{`Session ${canonical.session.value ?? 'unknown'} ended its turn.`}</Agent.Notice>;
  },
});
