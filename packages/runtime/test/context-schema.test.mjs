// The request context's TypeScript types (src/context.ts) against the worker protocol's JSON
// Schema (schemas/worker-protocol.schema.json): the axis states, sources, unavailable codes and
// the axis names a surface sends must be the same sets, so neither can drift. A type-level
// assertion file is generated from the schema and checked with tsc; a schema with one more
// source must fail the same check, which proves the check can fail.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { typecheck } from '../test-support/typecheck.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../..');
const schema = JSON.parse(readFileSync(path.join(repo, 'schemas/worker-protocol.schema.json'), 'utf8'));

function union(values) {
  return values.map((value) => JSON.stringify(value)).join(' | ');
}

/** The assertions the types must satisfy for `protocol` (the parsed schema). */
function assertions(protocol) {
  const [available, unavailable] = protocol.$defs.axis.oneOf;
  const render = protocol.$defs.hostMessage.oneOf.find((message) => message.properties.type.const === 'render');
  const context = path.join(repo, 'packages/runtime/src/context.ts');
  const pluginRoot = path.join(repo, 'packages/runtime/src/plugin-root.ts');
  const pluginValue = protocol.$defs.pluginAxisValue;
  const terminal = protocol.$defs.terminal;
  const stream = protocol.$defs.terminalStream;
  return `import type { AgentContext, AgentLineage, AgentLog, AgentTerminal, AgentTerminalStream, Axis, AxisUnavailableCode, LogLevel, ObservedAxisName } from ${JSON.stringify(context)};
import type { PluginAxisValue } from ${JSON.stringify(pluginRoot)};
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Available = Extract<Axis, { state: 'available' }>;
type Unavailable = Extract<Axis, { state: 'unavailable' }>;
export const states: Equal<Axis['state'], ${union([available.properties.state.const, unavailable.properties.state.const])}> = true;
export const availableKeys: Equal<keyof Available, ${union(available.required)}> = true;
export const sources: Equal<Available['source'], ${union(available.properties.source.enum)}> = true;
export const unavailableKeys: Equal<keyof Unavailable, ${union(unavailable.required)}> = true;
export const codes: Equal<AxisUnavailableCode, ${union(unavailable.properties.code.enum)}> = true;
export const names: Equal<ObservedAxisName, ${union(Object.keys(render.properties.context.properties))}> = true;
export const onTheContext: Equal<AgentContext[Exclude<ObservedAxisName, 'lineage' | 'terminal' | 'plugin'>], Axis> = true;
export const pluginAxis: Equal<AgentContext['plugin'], Axis<PluginAxisValue>> = true;
export const pluginKeys: Equal<keyof PluginAxisValue, ${union(Object.keys(pluginValue.properties))}> = true;
export const pluginRequired: Equal<keyof PluginAxisValue, ${union(pluginValue.required)}> = true;
export const lineage: Equal<AgentContext['lineage'], Axis<AgentLineage>> = true;
export const terminalAxis: Equal<AgentContext['terminal'], Axis<AgentTerminal>> = true;
export const terminalKeys: Equal<keyof AgentTerminal, ${union(Object.keys(terminal.properties))}> = true;
export const terminalRequired: Equal<keyof AgentTerminal, ${union(terminal.required)}> = true;
export const surfaces: Equal<AgentTerminal['hostSurface'], ${union(terminal.properties.hostSurface.enum)}> = true;
export const streamKeys: Equal<keyof AgentTerminalStream, ${union(Object.keys(stream.properties))}> = true;
export const streamKinds: Equal<AgentTerminalStream['kind'], ${union(stream.properties.kind.enum)}> = true;
export const colors: Equal<AgentTerminalStream['color'], ${union(stream.properties.color.enum)}> = true;
export const routeKinds: Equal<AgentContext['invocation']['kind'], ${union(render.properties.invocation.enum)}> = true;
export const logLevels: Equal<LogLevel, ${union(protocol.$defs.logLevel.enum)}> = true;
export const logMethods: Equal<keyof AgentContext['log'], ${union(protocol.$defs.logLevel.enum)}> = true;
export const log: Equal<AgentContext['log'], AgentLog> = true;
`;
}

test('the context types say what the worker protocol schema says', () => {
  const { status, output } = typecheck(assertions(schema), { nodeTypes: true });
  assert.equal(status, 0, output);
});

test('a schema the types do not follow fails the same check', () => {
  const drifted = structuredClone(schema);
  drifted.$defs.axis.oneOf[0].properties.source.enum.push('configured');
  const source = assertions(drifted);
  const { status, output } = typecheck(source, { nodeTypes: true });
  assert.notEqual(status, 0, 'the check passed although the schema has a source the types lack');
  // tsc names the line of the `sources` assertion, and only it.
  const line = source.split('\n').findIndex((text) => text.includes('const sources')) + 1;
  assert.match(output, new RegExp(`check\\.ts\\(${line},`), output);
  assert.equal(output.trim().split('\n').length, 1, output);
});

test('a log level the types do not follow fails the same check', () => {
  const drifted = structuredClone(schema);
  drifted.$defs.logLevel.enum.push('critical');
  const source = assertions(drifted);
  const { status, output } = typecheck(source, { nodeTypes: true });
  assert.notEqual(status, 0, 'the check passed although the schema has a level the types lack');
  const line = source.split('\n').findIndex((text) => text.includes('const logLevels')) + 1;
  assert.match(output, new RegExp(`check\\.ts\\(${line},`), output);
});

test('a terminal axis the types do not follow fails the same check', () => {
  const drifted = structuredClone(schema);
  drifted.$defs.terminal.properties.hostSurface.enum.push('ide');
  const source = assertions(drifted);
  const { status, output } = typecheck(source, { nodeTypes: true });
  assert.notEqual(status, 0, 'the check passed although the schema has a surface the types lack');
  const line = source.split('\n').findIndex((text) => text.includes('const surfaces')) + 1;
  assert.match(output, new RegExp(`check\\.ts\\(${line},`), output);
});
