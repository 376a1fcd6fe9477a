// The `canonical` prop's TypeScript types (src/routes/canonical-event.ts) against the canonical
// event's JSON Schema (schemas/canonical-event.schema.json), which is what the Rust decoders
// build: every object's required and optional keys, every enum and const, and every string field
// must be the same, so neither can drift. A type-level assertion file is generated from the schema
// and checked with tsc; a schema with one more key must fail the same check.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { typecheck } from '../../runtime/test-support/typecheck.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../..');
const schema = JSON.parse(readFileSync(path.join(repo, 'schemas/canonical-event.schema.json'), 'utf8'));

const union = (values) => (values.length === 0 ? 'never' : values.map((value) => JSON.stringify(value)).join(' | '));

/** The TypeScript type a schema property must have, or undefined when only its keys are compared. */
function typeOf(property, defs) {
  if (property.$ref !== undefined) return typeOf(defs[property.$ref.replace('#/$defs/', '')], defs);
  if (property.const !== undefined) return union([property.const]);
  if (property.enum !== undefined) return union(property.enum);
  if (property.type === 'string') return 'string';
  return undefined;
}

/** Assertions that type `name` (an expression of the module's types) has exactly `object`'s shape. */
function objectAssertions(label, name, object, defs) {
  const required = object.required ?? [];
  const optional = Object.keys(object.properties).filter((key) => !required.includes(key));
  const lines = [
    `export const ${label}Required: Equal<RequiredKeys<${name}>, ${union(required)}> = true;`,
    `export const ${label}Optional: Equal<OptionalKeys<${name}>, ${union(optional)}> = true;`,
  ];
  for (const [key, property] of Object.entries(object.properties)) {
    const type = typeOf(property, defs);
    if (type === undefined) continue;
    const field = `Exclude<${name}[${JSON.stringify(key)}], undefined>`;
    const id = `${label}_${key.replace(/\W/g, '_')}`;
    // A string the schema only constrains by a pattern is typed by a narrower union here.
    lines.push(
      property.pattern !== undefined
        ? `export const ${id}: ${field} extends string ? true : false = true;`
        : `export const ${id}: Equal<${field}, ${type}> = true;`,
    );
  }
  return lines;
}

function assertions(event) {
  const defs = event.$defs;
  const module = path.join(repo, 'packages/agent-bundle/src/routes/canonical-event.ts');
  const [available, unavailable] = defs.axis.oneOf;
  return [
    `import type { CanonicalEvent, CanonicalPrompt, CanonicalTool, IdentityAxis } from ${JSON.stringify(module)};`,
    'type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;',
    'type RequiredKeys<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? never : K }[keyof T];',
    'type OptionalKeys<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? K : never }[keyof T];',
    "type Available = Extract<IdentityAxis<string>, { state: 'available' }>;",
    "type Unavailable = Extract<IdentityAxis<string>, { state: 'unavailable' }>;",
    ...objectAssertions('event', 'CanonicalEvent', event, defs),
    ...objectAssertions('tool', 'CanonicalTool', defs.tool, defs),
    ...objectAssertions('prompt', 'CanonicalPrompt', defs.prompt, defs),
    ...objectAssertions('available', 'Available', available, defs),
    ...objectAssertions('unavailable', 'Unavailable', unavailable, defs),
    "export const axes: Equal<CanonicalEvent['session'], IdentityAxis<string>> = true;",
    "export const workspace: Equal<CanonicalEvent['workspace'], IdentityAxis<string>> = true;",
    '',
  ].join('\n');
}

test('the canonical event types say what the canonical event schema says', () => {
  const { status, output } = typecheck(assertions(schema));
  assert.equal(status, 0, output);
});

test('a schema the types do not follow fails the same check', () => {
  const drifted = structuredClone(schema);
  drifted.$defs.prompt.properties.language = { type: 'string' };
  drifted.$defs.tool.properties.selector.enum.push('browser');
  const source = assertions(drifted);
  const { status, output } = typecheck(source);
  assert.notEqual(status, 0, 'the check passed although the schema has a key and a selector the types lack');
  const lineOf = (text) => source.split('\n').findIndex((line) => line.includes(text)) + 1;
  assert.match(output, new RegExp(`check\\.ts\\(${lineOf('const promptOptional')},`), output);
  assert.match(output, new RegExp(`check\\.ts\\(${lineOf('const tool_selector')},`), output);
  assert.match(output, /Property 'language' does not exist on type 'CanonicalPrompt'/, output);
  assert.equal(output.trim().split('\n').length, 3, output);
});
