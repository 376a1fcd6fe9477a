// `AgentBundleConfig` (src/config/define-config.ts) against the config's JSON Schema
// (schemas/agent-bundle-config.schema.json), which the compiler checks every config with: at
// every object the schema describes, the type has the same keys and the same required keys, and
// every string enum is the same set. So a key the compiler reads is one an author's editor
// offers, and a key the editor offers is one the compiler reads. A type-level assertion file is
// generated from the schema and checked with tsc; a schema with one more key must fail the same
// check, which proves the check can fail.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { typecheck } from '../../runtime/test-support/typecheck.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../..');
const schema = JSON.parse(readFileSync(path.join(repo, 'schemas/agent-bundle-config.schema.json'), 'utf8'));

function union(values) {
  return values.length === 0 ? 'never' : values.map((value) => JSON.stringify(value)).join(' | ');
}

/** One `Equal<…>` assertion per fact of `root`'s schema, about the type expression `type`. */
function assertions(root) {
  const lines = [];
  const resolve = (node) => (node.$ref ? resolve(root.$defs[node.$ref.replace('#/$defs/', '')]) : node);
  const walk = (node, type, where) => {
    node = resolve(node);
    const object = `ObjectPart<${type}>`;
    if (node.properties) {
      lines.push([`${where} keys`, `Equal<keyof ${object}, ${union(Object.keys(node.properties))}>`]);
      lines.push([`${where} required keys`, `Equal<RequiredKeys<${object}>, ${union(node.required ?? [])}>`]);
      for (const [key, value] of Object.entries(node.properties)) {
        walk(value, `${object}[${JSON.stringify(key)}]`, `${where}.${key}`);
      }
    }
    if (node.propertyNames?.enum) {
      lines.push([`${where} keys`, `Equal<keyof ${object}, ${union(node.propertyNames.enum)}>`]);
    }
    if (typeof node.additionalProperties === 'object') {
      walk(node.additionalProperties, `${object}[keyof ${object}]`, `${where}[*]`);
    }
    if (typeof node.items === 'object') {
      walk(node.items, `Extract<NonNullable<${type}>, readonly unknown[]>[number]`, `${where}[]`);
    }
    for (const branch of [...(node.oneOf ?? []), ...(node.anyOf ?? [])]) {
      walk(branch, type, where);
    }
    if (node.enum?.every((value) => typeof value === 'string')) {
      lines.push([`${where} values`, `Equal<Extract<NonNullable<${type}>, string>, ${union(node.enum)}>`]);
    }
  };
  walk(root, 'AgentBundleConfig', 'config');
  const config = path.join(repo, 'packages/agent-bundle/src/config/define-config.ts');
  const prelude = [
    `import type { AgentBundleConfig } from ${JSON.stringify(config)};`,
    'type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;',
    'type ObjectPart<T> = Exclude<Extract<NonNullable<T>, object>, readonly unknown[]>;',
    'type RequiredKeys<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? never : K }[keyof T];',
  ];
  const source = [...prelude, ...lines.map(([, assertion], index) => `export const fact${index}: ${assertion} = true;`)];
  // tsc reports 1-based lines: the fact on line `prelude.length + index + 1` is `lines[index]`.
  const factAt = (line) => lines[line - prelude.length - 1]?.[0] ?? `line ${line}`;
  return { source: `${source.join('\n')}\n`, factAt };
}

/** The facts of `check` tsc refutes (none when the types follow the schema). */
function refuted({ source, factAt }) {
  const { status, output } = typecheck(source);
  const facts = [...output.matchAll(/check\.ts\((\d+),\d+\): error/g)].map((match) => factAt(Number(match[1])));
  assert.ok(status === 0 || facts.length > 0, `tsc failed on no fact:\n${output}`);
  return facts;
}

test('defineConfig types every key the config schema has, and no other', () => {
  assert.deepEqual(refuted(assertions(schema)), []);
});

test('a schema with a key, a required key or a value the type lacks fails the same check', () => {
  const drifted = structuredClone(schema);
  drifted.properties.web.properties.port = { type: 'integer' };
  drifted.properties.plugin.required = ['name', 'description'];
  drifted.properties.web.properties.open.enum.push('tab');
  assert.deepEqual(refuted(assertions(drifted)), [
    'config.plugin required keys',
    'config.web keys',
    'config.web.open values',
  ]);
});
