// The Node peer of `abgen check`: how a Node-based compiler (agent-bundle) reads route modules.
// It walks the project's source files, parses each with the TypeScript compiler API
// (`ts.createSourceFile`, no program, no type checking), finds `export default defineTool(...)`
// and event-route calls, and reads the option object's keys. Single-threaded, as that compiler
// is. Prints the counts and, on stderr, the time spent after TypeScript was loaded.
//
// usage: node bench/check/ts-walk.mjs DIR

import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const loadStart = performance.now();
const { default: ts } = await import('typescript');
const loaded = performance.now();

const root = process.argv[2];
if (!root) {
  console.error('usage: node ts-walk.mjs DIR');
  process.exit(2);
}

// The same selection as abgen and the parse floor: the config, then .ts/.tsx under src/
// without `_`/`.` segments or declaration files.
function sourceFiles(rootDir) {
  const files = [];
  for (const ext of ['ts', 'mts', 'js', 'mjs']) {
    const config = join(rootDir, `agent-bundle.config.${ext}`);
    if (existsSync(config)) {
      files.push(config);
      break;
    }
  }
  const pending = [join(rootDir, 'src')];
  while (pending.length > 0) {
    const dir = pending.pop();
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith('_') || entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) pending.push(path);
      else if (entry.isFile() && /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) files.push(path);
    }
  }
  return files.sort();
}

// `defineTool`, `defineConfig`, or `events.<family>.<event>` / `events.<name>`.
function definitionKind(callee) {
  if (ts.isIdentifier(callee)) {
    return callee.text === 'defineTool' ? 'tool' : callee.text === 'defineConfig' ? 'config' : null;
  }
  let node = callee;
  while (ts.isPropertyAccessExpression(node)) node = node.expression;
  return ts.isIdentifier(node) && node.text === 'events' ? 'event' : null;
}

function propertyKeys(object) {
  const keys = [];
  for (const property of object.properties) {
    const name = property.name;
    if (name && (ts.isIdentifier(name) || ts.isStringLiteral(name))) keys.push(name.text);
  }
  return keys;
}

const counts = { files: 0, tools: 0, events: 0, configs: 0, keys: 0, schemaKeys: 0 };
const start = performance.now();
for (const path of sourceFiles(root)) {
  const text = readFileSync(path, 'utf8');
  const kind = path.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false, kind);
  counts.files += 1;
  for (const statement of file.statements) {
    if (!ts.isExportAssignment(statement) || statement.isExportEquals) continue;
    const call = statement.expression;
    if (!ts.isCallExpression(call)) continue;
    const found = definitionKind(call.expression);
    const options = call.arguments[0];
    if (!found || !options || !ts.isObjectLiteralExpression(options)) continue;
    counts[found === 'tool' ? 'tools' : found === 'event' ? 'events' : 'configs'] += 1;
    const keys = propertyKeys(options);
    counts.keys += keys.length;
    // Reach into the schemas as the contract reader does: the top-level z.object shape keys.
    for (const property of options.properties) {
      if (!ts.isPropertyAssignment(property) || !ts.isIdentifier(property.name)) continue;
      if (property.name.text !== 'inputSchema' && property.name.text !== 'resultSchema') continue;
      const schema = property.initializer;
      if (ts.isCallExpression(schema) && schema.arguments[0] && ts.isObjectLiteralExpression(schema.arguments[0])) {
        counts.schemaKeys += propertyKeys(schema.arguments[0]).length;
      }
    }
  }
}
const done = performance.now();

console.log(
  `files=${counts.files} tools=${counts.tools} events=${counts.events} configs=${counts.configs} keys=${counts.keys} schemaKeys=${counts.schemaKeys}`,
);
console.error(`load_ms=${(loaded - loadStart).toFixed(1)} walk_ms=${(done - start).toFixed(1)}`);
