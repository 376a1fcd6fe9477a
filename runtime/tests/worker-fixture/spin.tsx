// A tool route that busy-loops: its event loop never runs again, so it never sees its abort
// signal; only killing its worker stops it.
import { Agent } from '@agent-bundle/runtime';

export default Object.freeze({
  kind: 'tool',
  options: { description: 'Spins forever.' },
  handler() {
    for (;;) {
      // Busy on purpose.
    }
    return <Agent.Text>unreachable</Agent.Text>;
  },
});
