/**
 * The public surface of `agent-bundle/mcp-entry`: the lifecycle shell of a stdio MCP server.
 * abgen's generated entry for a handwritten server (`src/mcp/<id>.ts`, or a config `entry`) is
 * `redirectConsoleToStderr()` before the server module evaluates, then `runStdioServer(factory)`;
 * a hand-rolled entry calls the same two functions. Every export here is public API.
 *
 * stdout carries JSON-RPC frames only: one stray `console.log` from any imported module would
 * corrupt the protocol stream, so console output and stray stdout writes go to stderr, and only
 * the transport writes frames, through the raw `process.stdout.write` kept aside.
 */

export { redirectConsoleToStderr, runStdioServer } from './lifecycle.js';
export type { StdioServer, StdioServerOptions, StdioTransport } from './lifecycle.js';
