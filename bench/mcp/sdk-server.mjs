// The peer of the MCP benchmarks: the official TypeScript SDK's McpServer over stdio, serving the
// same two tools as fixtures/projects/valid-mcp-calls (`quick`, `nap`) with the same schemas, each
// handler running in process. Started by bench/mcp/run.py; ends when its stdin closes.
import { setTimeout as sleep } from 'node:timers/promises';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'desk', version: '0.1.0' });
const answer = (value) => ({
  content: [{ type: 'text', text: JSON.stringify(value) }],
  structuredContent: value,
});
server.registerTool(
  'quick',
  {
    description: 'Answers at once with the number it was given.',
    inputSchema: { n: z.int() },
    outputSchema: { n: z.int() },
  },
  async ({ n }) => answer({ n }),
);
server.registerTool(
  'nap',
  {
    description: 'Answers after the given number of milliseconds.',
    inputSchema: { ms: z.int().min(0).max(60_000) },
    outputSchema: { slept: z.int() },
  },
  async ({ ms }, { signal }) => {
    await sleep(ms, undefined, { signal });
    return answer({ slept: ms });
  },
);
await server.connect(new StdioServerTransport());
