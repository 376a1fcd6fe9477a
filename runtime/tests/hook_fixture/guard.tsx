// tool/before: denies `rm -rf`, otherwise tells the agent what the route received, so the tests
// can check the event props ({ canonical, native, provenance, signal }) and agent().event.
import { Agent, agent } from '@agent-bundle/runtime';

interface Props {
  canonical: { event: string; tool?: { selector: string; name: string; input: { command?: string } } };
  native: Record<string, unknown>;
  provenance: { host: string; nativeEvent: string };
  signal: AbortSignal;
}

export default Object.freeze({
  kind: 'event',
  options: { tools: ['shell'] },
  handler({ canonical, native, provenance, signal }: Props) {
    const command = canonical.tool?.input.command ?? '';
    if (command.includes('rm -rf')) {
      return <Agent.Deny reason={`\`${command}\` deletes files; ask the user first.`} />;
    }
    const same = (agent().event as { canonical?: unknown } | undefined)?.canonical === canonical;
    return (
      <>
        <Agent.Context>
          {`${canonical.event} ${canonical.tool?.selector}:${canonical.tool?.name} from ${provenance.host}/${provenance.nativeEvent}`}
        </Agent.Context>
        <Agent.Markdown>
          {`native.tool_use_id=${String(native.tool_use_id)} signal=${signal instanceof AbortSignal} agent().event=${same}`}
        </Agent.Markdown>
      </>
    );
  },
});
