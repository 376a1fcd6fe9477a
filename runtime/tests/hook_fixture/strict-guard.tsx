// tool/before: denies a shell command that deletes files and a write whose content holds a
// secret, wherever in the input it is; otherwise lets the call through (answers nothing).
import { Agent } from '@agent-bundle/runtime';

interface Props {
  canonical: { tool?: { name: string; input: { command?: string; content?: string } } };
}

export default Object.freeze({
  kind: 'event',
  options: { tools: ['shell', 'file.write'], failure: 'closed' },
  handler({ canonical }: Props) {
    const input = canonical.tool?.input ?? {};
    if (input.command?.includes('rm -rf')) {
      return <Agent.Deny reason={`The command (${input.command.length} characters) deletes files.`} />;
    }
    if (input.content?.includes('BEGIN PRIVATE KEY')) {
      return <Agent.Deny reason={`The ${input.content.length}-character write holds a private key.`} />;
    }
    return null;
  },
});
