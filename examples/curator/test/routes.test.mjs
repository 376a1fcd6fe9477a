// Runs the curator's route handlers directly, outside the render worker: each route module is
// bundled by esbuild, its handler is called with a request context like the worker's, and the
// returned element tree is resolved (async components awaited, Suspense shown as its content) into
// plain `{ tag, props, children }` nodes. What Flight and the Rust decoder make of those trees is
// tested with the runtime; here the question is whether the routes answer what they should.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const outDir = mkdtempSync(join(tmpdir(), 'curator-test-'));
after(() => rmSync(outDir, { recursive: true, force: true }));

const ROUTES = {
  searchBooks: 'src/mcp/library/tools/search_books.tsx',
  shelveBook: 'src/mcp/library/tools/shelve_book.tsx',
  catalogAudit: 'src/mcp/library/tools/catalog_audit.tsx',
  exportBibliography: 'src/mcp/library/tools/export_bibliography.tsx',
  showShelf: 'src/mcp/library/tools/show_shelf.tsx',
  shelf: 'src/mcp/library/resources/shelf.tsx',
  reviewRequest: 'src/mcp/library/prompts/review_request.tsx',
  sessionStart: 'src/events/session/start.tsx',
  toolAfter: 'src/events/tool/after.tsx',
  stop: 'src/events/stop.tsx',
  catalog: 'src/providers/catalog.ts',
};

// One bundle, so every route shares one React, one zod and one request-context store. The
// context store is the runtime's own (the seam its worker uses), reached by path on purpose.
const entry = [
  ...Object.entries(ROUTES).map(([name, path]) => `export * as ${name} from './${path}';`),
  "export { runWithAgentContext } from '../../packages/runtime/src/context.ts';",
  "export { BOOKS } from './src/data/catalog';",
].join('\n');
const outfile = join(outDir, 'routes.mjs');
await build({
  stdin: { contents: entry, resolveDir: root, loader: 'ts', sourcefile: 'entry.ts' },
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  jsx: 'automatic',
  define: { 'process.env.NODE_ENV': '"production"' },
  logLevel: 'silent',
});
const routes = await import(pathToFileURL(outfile).href);
const catalog = routes.catalog.default();

/** A request context shaped like the worker's; progress reports are collected. */
function requestContext(routeId, input) {
  const reports = [];
  return {
    reports,
    context: {
      route: { id: routeId, kind: routeId.startsWith('event:') ? 'event' : 'tool' },
      input,
      signal: new AbortController().signal,
      progress: { report: (report) => reports.push(report) },
      provider: async (key) => {
        assert.equal(key, 'catalog', 'the curator has one provider');
        return catalog;
      },
    },
  };
}

/** Resolves a React element tree the way a server render would, into plain nodes. */
async function resolve(node) {
  node = await node;
  if (node === null || node === undefined || typeof node === 'boolean') return [];
  if (typeof node === 'string' || typeof node === 'number') return [String(node)];
  if (Array.isArray(node)) return (await Promise.all(node.map(resolve))).flat();
  const { type, props } = node;
  if (typeof type === 'function') return resolve(type(props));
  if (typeof type === 'string') {
    const { children, ...rest } = props;
    return [{ tag: type, props: rest, children: await resolve(children) }];
  }
  // Fragment and Suspense: the content, as in the final document.
  return resolve(props.children);
}

async function callTool(name, rawInput) {
  const definition = routes[name].default;
  assert.equal(definition.kind, 'tool');
  const input = definition.options.inputSchema.parse(rawInput);
  const { context, reports } = requestContext(`tool:library/${name}`, input);
  const [root] = await routes.runWithAgentContext(context, () => resolve(definition.handler(input, context)));
  return { root, reports, resultSchema: definition.options.resultSchema };
}

async function callEvent(name, canonical) {
  const definition = routes[name].default;
  assert.equal(definition.kind, 'event');
  const props = { canonical, native: {}, provenance: { host: canonical.host, nativeEvent: 'test' }, signal: new AbortController().signal };
  const { context } = requestContext(`event:${definition.event}`, props);
  return routes.runWithAgentContext(context, () => resolve(definition.handler(props)));
}

function canonicalEvent(event, extra = {}) {
  return {
    event,
    host: 'claude',
    contractRevision: 'test',
    idempotencyKey: `${event}-1`,
    session: { state: 'available', value: 'session-1', source: 'native' },
    workspace: { state: 'available', value: '/home/reader/library', source: 'native' },
    native: {},
    ...extra,
  };
}

const textOf = (node) => node.children.map((child) => (typeof child === 'string' ? child : textOf(child))).join('');

describe('tools', () => {
  it('search_books returns matches as a value its resultSchema accepts, best match first', async () => {
    const { root, resultSchema } = await callTool('searchBooks', { query: 'le guin' });
    assert.equal(root.tag, 'agent-result');
    resultSchema.parse(root.props.value);
    assert.equal(root.props.value.total, 3);
    assert.deepEqual(root.props.value.books.map((book) => book.id).sort(), ['dispossessed', 'left-hand-of-darkness', 'wizard-of-earthsea']);
    assert.match(textOf(root), /Found 3 books for “le guin”/);
  });

  it('search_books applies filters and defaults, and ignores accents', async () => {
    const { root } = await callTool('searchBooks', { query: 'godel' });
    assert.deepEqual(root.props.value.books.map((book) => book.id), ['godel-escher-bach']);
    const filtered = await callTool('searchBooks', { query: 'le guin', genres: ['fantasy'], published: { to: 1970 } });
    assert.deepEqual(filtered.root.props.value.books.map((book) => book.id), ['wizard-of-earthsea']);
    const limited = await callTool('searchBooks', { query: 'the', limit: 2 });
    assert.equal(limited.root.props.value.books.length, 2);
    assert.ok(limited.root.props.value.total > 2);
  });

  it('shelve_book moves a book, is idempotent, and represents an unknown id as not-found', async () => {
    const first = await callTool('shelveBook', { bookId: 'middlemarch', shelf: 'reading' });
    first.resultSchema.parse(first.root.props.value);
    assert.deepEqual(first.root.props.value, { bookId: 'middlemarch', title: 'Middlemarch', from: 'to-read', to: 'reading', changed: true });
    const again = await callTool('shelveBook', { bookId: 'middlemarch', shelf: 'reading' });
    assert.equal(again.root.props.value.changed, false);
    const missing = await callTool('shelveBook', { bookId: 'no-such-book', shelf: 'finished' });
    assert.equal(missing.root.tag, 'agent-error');
    assert.equal(missing.root.props.code, 'not-found');
    await catalog.shelve('middlemarch', 'to-read');
  });

  it('catalog_audit reports progress per check and finds the seeded problems', async () => {
    const { root, reports } = await callTool('catalogAudit', { stalledAfterDays: 7 });
    assert.deepEqual(reports.map((report) => report.completed), [1, 2, 3, 4]);
    assert.ok(reports.every((report) => report.total === 4));
    const json = root.children.find((child) => child.tag === 'agent-json');
    const byCheck = {};
    for (const finding of json.props.value.findings) (byCheck[finding.check] ??= []).push(finding);
    assert.deepEqual(byCheck.unshelved.map((f) => f.bookId).sort(), ['guns-of-august', 'invisible-cities', 'leaves-of-grass']);
    assert.deepEqual(byCheck.unrated.map((f) => f.bookId).sort(), ['invisible-cities-en', 'selfish-gene']);
    assert.deepEqual(byCheck.duplicates.map((f) => f.bookId).sort(), ['invisible-cities', 'invisible-cities-en']);
    assert.ok(byCheck.stalled.some((f) => f.bookId === 'godel-escher-bach'));
  });

  it('export_bibliography writes BibTeX with unique keys and names missing ids', async () => {
    const { root, resultSchema } = await callTool('exportBibliography', {
      bookIds: ['invisible-cities', 'invisible-cities-en', 'dispossessed', 'mythical-man-month', 'sicp', 'nope'],
    });
    resultSchema.parse(root.props.value);
    assert.deepEqual(root.props.value.entries.map((entry) => entry.key), ['calvino1972', 'calvino1974', 'leguin1974', 'brooks1975', 'abelson1985']);
    assert.deepEqual(root.props.value.missing, ['nope']);
    assert.match(textOf(root), /@book\{leguin1974,\n  author = \{Ursula K\. Le Guin\},\n  title = \{\{The Dispossessed\}\}/);
    assert.deepEqual(routes.exportBibliography.default.options.excludeClients, ['cursor']);
  });

  it('show_shelf lists a shelf for the App and for text clients', async () => {
    const { root, resultSchema } = await callTool('showShelf', { shelf: 'unshelved' });
    resultSchema.parse(root.props.value);
    assert.equal(root.props.value.books.length, 3);
    assert.ok(root.props.value.books.every((book) => book.shelf === null));
  });
});

describe('resource and prompt', () => {
  it('the shelf resource renders every shelf as Markdown', async () => {
    const { context } = requestContext('resource:library/shelf', {});
    const [root] = await routes.runWithAgentContext(context, () => resolve(routes.shelf.default({ input: {} })));
    assert.equal(root.tag, 'agent-markdown');
    for (const heading of ['Reading now', 'To read', 'Finished', 'Reference', 'Unshelved']) {
      assert.match(textOf(root), new RegExp(`## ${heading} \\(\\d+\\)`));
    }
  });

  it('review_request fills in the catalog facts', async () => {
    const input = routes.reviewRequest.inputSchema.parse({ bookId: 'dispossessed', focus: 'ideas' });
    const { context } = requestContext('prompt:library/review_request', input);
    const [root] = await routes.runWithAgentContext(context, () => resolve(routes.reviewRequest.default({ input })));
    assert.match(textOf(root), /review of \*The Dispossessed\* by Ursula K\. Le Guin \(1974\); I have finished it\. I rated it 5/);
    assert.match(textOf(root), /Keep it to one paragraph/);
  });
});

describe('event routes', () => {
  it('session/start gives the agent the reading list as context', async () => {
    const [root] = await callEvent('sessionStart', canonicalEvent('session/start'));
    assert.equal(root.tag, 'agent-context');
    assert.match(textOf(root), /Currently reading: \*Gödel, Escher, Bach\*/);
  });

  it('tool/after reminds only after writing a note or a .bib file, on every host shape', async () => {
    const write = (input) => canonicalEvent('tool/after', { tool: { selector: 'file.write', name: 'Write', input } });
    assert.deepEqual(await callEvent('toolAfter', write({ file_path: '/home/me/src/index.ts', content: '' })), []);
    assert.deepEqual(await callEvent('toolAfter', write({ file_path: '/home/me/denotes/x.md' })), []);
    const note = await callEvent('toolAfter', write({ file_path: '/home/me/notes/earthsea.md', content: '' }));
    assert.equal(note[0].tag, 'agent-context');
    assert.match(textOf(note[0]), /`\/home\/me\/notes\/earthsea\.md`/);
    const bib = await callEvent('toolAfter', write({ file_path: 'C:\\papers\\refs.bib' }));
    assert.equal(bib[0].tag, 'agent-context');
    const patch = '*** Begin Patch\n*** Update File: src/lib.rs\n@@\n*** Add File: notes/kuhn.md\n+x\n*** End Patch';
    const codex = await callEvent('toolAfter', write({ command: patch }));
    assert.match(textOf(codex[0]), /You just wrote `notes\/kuhn\.md`\./);
    assert.deepEqual(routes.toolAfter.default.options.tools, ['file.write']);
  });

  it('stop notifies the user about unshelved books once per session', async () => {
    const first = await callEvent('stop', canonicalEvent('stop'));
    assert.equal(first[0].tag, 'agent-notice');
    assert.match(textOf(first[0]), /3 books still unshelved/);
    assert.deepEqual(await callEvent('stop', canonicalEvent('stop')), []);
    const other = canonicalEvent('stop', { session: { state: 'available', value: 'session-2', source: 'native' } });
    assert.equal((await callEvent('stop', other))[0].tag, 'agent-notice');
  });
});
