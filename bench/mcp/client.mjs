// The client of the MCP benchmarks: the official TypeScript SDK's Client over stdio, driving one
// server command (ours or the SDK peer) and printing what it measured as one JSON line.
//
// Usage: node client.mjs warm <calls> -- <command> [args...]
//        node client.mjs concurrent <calls> <ms> -- <command> [args...]
// `warm`: after 20 warm-up calls, <calls> sequential `quick` calls; per-call latency.
// `concurrent`: after warming every worker, <calls> `nap` calls of <ms> at once; wall time.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [mode, ...rest] = process.argv.slice(2);
const separator = rest.indexOf('--');
const [command, ...args] = rest.slice(separator + 1);
const numbers = rest.slice(0, separator).map(Number);

const client = new Client({ name: 'abgen-bench', version: '1' });
await client.connect(new StdioClientTransport({ command, args, stderr: 'ignore' }));
const call = async (name, args) => {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(JSON.stringify(result));
  return result;
};
const median = (values) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)];

if (mode === 'warm') {
  const [calls] = numbers;
  for (let i = 0; i < 20; i += 1) await call('quick', { n: i });
  const took = [];
  for (let i = 0; i < calls; i += 1) {
    const started = performance.now();
    await call('quick', { n: i });
    took.push(performance.now() - started);
  }
  console.log(JSON.stringify({ medianMs: median(took), minMs: Math.min(...took) }));
} else if (mode === 'concurrent') {
  const [calls, ms] = numbers;
  // Every worker started and warm: as many concurrent short naps as any pool here has workers.
  await Promise.all(Array.from({ length: 8 }, () => call('nap', { ms: 1 })));
  const started = performance.now();
  await Promise.all(Array.from({ length: calls }, () => call('nap', { ms })));
  console.log(JSON.stringify({ wallMs: performance.now() - started }));
} else {
  throw new Error(`unknown mode ${mode}`);
}
await client.close();
