// The compiler reads route options and configs without executing them, so they must stay inside
// the static grammar of the agent-bundle reference (§3.1): object and array literals, strings,
// numbers, booleans and null, with casts unwrapped; only the zod schemas (`inputSchema`,
// `resultSchema`) may be expressions. This test parses every route and config with TypeScript
// and names the first construct outside that grammar, so the example cannot drift from it.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('..', import.meta.url));
const SCHEMA_KEYS = new Set(['inputSchema', 'resultSchema']);

function sourceFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

function unwrap(node) {
  while (
    ts.isAsExpression(node) || ts.isSatisfiesExpression(node) || ts.isNonNullExpression(node) ||
    ts.isParenthesizedExpression(node) || ts.isTypeAssertionExpression(node)
  ) node = node.expression;
  return node;
}

/** The first construct outside the static grammar, as `line:col construct`, or undefined. */
function firstDynamic(node, file, { skipSchemas = false } = {}) {
  node = unwrap(node);
  const where = () => {
    const { line, character } = file.getLineAndCharacterOfPosition(node.getStart(file));
    return `${line + 1}:${character + 1} ${ts.SyntaxKind[node.kind]}`;
  };
  if (ts.isObjectLiteralExpression(node)) {
    for (const property of node.properties) {
      if (!ts.isPropertyAssignment(property) || ts.isComputedPropertyName(property.name)) {
        node = property;
        return where();
      }
      const key = property.name.text;
      if (skipSchemas && SCHEMA_KEYS.has(key)) continue;
      const found = firstDynamic(property.initializer, file);
      if (found) return found;
    }
    return undefined;
  }
  if (ts.isArrayLiteralExpression(node)) {
    for (const element of node.elements) {
      const found = firstDynamic(element, file);
      if (found) return found;
    }
    return undefined;
  }
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isNumericLiteral(node)) return undefined;
  if (ts.isPrefixUnaryExpression(node) && ts.isNumericLiteral(node.operand)) return undefined;
  if ([ts.SyntaxKind.TrueKeyword, ts.SyntaxKind.FalseKeyword, ts.SyntaxKind.NullKeyword].includes(node.kind)) return undefined;
  return where();
}

/** The statically read objects of a module: definition options, `config`, the config default. */
function staticObjects(file) {
  const found = [];
  for (const statement of file.statements) {
    if (ts.isExportAssignment(statement)) {
      const call = unwrap(statement.expression);
      if (ts.isCallExpression(call) && call.arguments[0]) {
        found.push({ what: 'default export options', node: call.arguments[0], skipSchemas: true });
      }
    }
    if (ts.isVariableStatement(statement) && statement.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) {
      for (const declaration of statement.declarationList.declarations) {
        if (declaration.name.getText(file) === 'config' && declaration.initializer) {
          found.push({ what: 'export const config', node: declaration.initializer, skipSchemas: false });
        }
      }
    }
  }
  return found;
}

const modules = [join(root, 'agent-bundle.config.ts'), ...sourceFiles(join(root, 'src'))];

describe('static options', () => {
  for (const path of modules) {
    const name = relative(root, path);
    const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
    const objects = staticObjects(file);
    if (objects.length === 0) continue;
    it(`${name} keeps its options and config literal`, () => {
      for (const { what, node, skipSchemas } of objects) {
        assert.equal(firstDynamic(node, file, { skipSchemas }), undefined, `${name}: ${what} is outside the static grammar`);
      }
    });
  }

  it('checks every route kind of the example', () => {
    const checked = modules.filter((path) => {
      const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
      return staticObjects(file).length > 0;
    }).map((path) => relative(root, path));
    for (const expected of ['agent-bundle.config.ts', 'src/events/stop.tsx', 'src/mcp/library/apps/shelf_viewer.tsx',
      'src/mcp/library/prompts/review_request.tsx', 'src/mcp/library/resources/shelf.tsx', 'src/mcp/library/tools/search_books.tsx']) {
      assert.ok(checked.includes(expected), `${expected} was not checked`);
    }
  });
});
