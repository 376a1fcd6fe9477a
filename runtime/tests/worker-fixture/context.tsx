// A tool route that shows what agent() and useAgent() know about its render, read both before
// and after an await inside an async component.
import { Agent, agent, useAgent } from '@agent-bundle/runtime';

async function Axes() {
  await new Promise((resolve) => setTimeout(resolve, 5));
  const { route, invocation, host, session, workspace, plugin, actor, lineage, terminal } = useAgent();
  return <Agent.Json value={{ route, invocation, host, session, workspace, plugin, actor, lineage, terminal }} />;
}

export default Object.freeze({
  kind: 'tool',
  options: { description: 'Shows the request context.' },
  handler() {
    return (
      <Agent.Result value={{ sameSignal: agent().signal instanceof AbortSignal }}>
        <Axes />
      </Agent.Result>
    );
  },
});
