// Type-level checks of `agent-bundle/routes`, run by `tsc -p packages/agent-bundle`. Each
// `@ts-expect-error` fails the type check if the line it guards ever stops being an error.

import * as z from 'zod';
import { defineTool, events } from '../../src/routes/index.js';
import type { EventDefinition, ToolDefinition } from '../../src/routes/index.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function assertType<T extends true>(_: T): void {}

const inputSchema = z.object({ query: z.string(), limit: z.number().int().default(10) });
const resultSchema = z.object({ total: z.number() });

// The handler receives the schema's output: defaults applied, so `limit` is a number.
const tool = defineTool({ description: 'Finds books.', inputSchema, resultSchema }, (input, context) => {
  assertType<Equal<typeof input, { query: string; limit: number }>>(true);
  assertType<Equal<typeof context.route.kind, 'tool'>>(true);
  return null;
});
assertType<Equal<typeof tool, ToolDefinition<typeof inputSchema, typeof resultSchema>>>(true);
assertType<Equal<typeof tool.kind, 'tool'>>(true);

// @ts-expect-error a tool needs a resultSchema
defineTool({ description: 'No result schema.', inputSchema }, () => null);
// @ts-expect-error options are closed: a misspelt key is caught
defineTool({ description: 'Typo.', inputSchema, resultSchema, annotation: {} }, () => null);
defineTool(
  // @ts-expect-error taskSupport is one of three words
  { description: 'Bad task support.', inputSchema, resultSchema, execution: { taskSupport: 'always' } },
  () => null,
);

// Families are camelCase, single-segment events are callable, `stop` is also a family.
const modelSwitch = events.modelSwitch.before({}, ({ canonical }) => {
  assertType<Equal<typeof canonical.event, 'model-switch/before'>>(true);
  return null;
});
assertType<Equal<typeof modelSwitch, EventDefinition<'model-switch/before'>>>(true);
assertType<Equal<ReturnType<typeof events.stop>['event'], 'stop'>>(true);
assertType<Equal<ReturnType<typeof events.stop.failure>['event'], 'stop/failure'>>(true);
assertType<Equal<ReturnType<typeof events.notification>['event'], 'notification'>>(true);
assertType<Equal<ReturnType<typeof events.turn.interrupt>['event'], 'turn/interrupt'>>(true);

// The alias hands its handler the canonical event it stands for.
events.file.change({}, ({ canonical }) => {
  assertType<Equal<typeof canonical.event, 'file/saved'>>(true);
  return null;
});

events.tool.after({ tools: ['file.write', 'claude:Edit', 'codex:apply_patch'] }, ({ canonical }) => {
  assertType<Equal<NonNullable<typeof canonical.tool>['selector'], 'shell' | 'file.read' | 'file.write' | 'mcp' | 'agent' | 'other'>>(true);
  return null;
});
// @ts-expect-error `other` says a tool fits no class; it is not a selector
events.tool.after({ tools: ['other'] }, () => null);
// @ts-expect-error native selectors name a host
events.tool.before({ tools: ['vscode:Edit'] }, () => null);
// @ts-expect-error deferred delivery does not exist
events.stop({ delivery: ['deferred'] }, () => null);
events.tool.before({ tools: ['shell'], failure: 'closed' }, () => null);
events.prompt.submit({ failure: 'open' }, ({ canonical }) => {
  // What the runtime could not pass on exactly is visible in the type, never hidden.
  assertType<Equal<NonNullable<typeof canonical.prompt>['text'], string>>(true);
  assertType<Equal<NonNullable<typeof canonical.prompt>['lossy'], true | undefined>>(true);
  return null;
});
events.tool.before({}, ({ canonical }) => {
  assertType<Equal<NonNullable<typeof canonical.tool>['truncated'], true | undefined>>(true);
  return null;
});
assertType<Equal<NonNullable<Parameters<typeof events.tool.before>[0]['failure']>, 'open' | 'closed'>>(true);
// @ts-expect-error a guard fails open or closed, nothing else
events.tool.before({ failure: 'deny' }, () => null);
// @ts-expect-error not an event of the vocabulary
events.file.change2({}, () => null);
// @ts-expect-error families are camelCase, never kebab-case
events['model-switch'];
