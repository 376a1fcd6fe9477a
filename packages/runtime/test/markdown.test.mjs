// MarkdownContent's renderer against micromark with its GFM extension (the parser under
// react-markdown/remark-gfm): documents generated from a seeded random structure are written as
// JSX, rendered to Markdown by `renderToMarkdown`, parsed again by micromark, and the parsed tree
// must be the structure that was generated. Nasty text (Markdown punctuation, line-leading
// markers, entities, autolink-looking words) must come back as the same text.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';

const here = path.dirname(fileURLToPath(import.meta.url));
const outDir = mkdtempSync(path.join(tmpdir(), 'abgen-markdown-'));
after(() => rmSync(outDir, { recursive: true, force: true }));

// Bundled with the `react-server` condition, as the render worker is, so React's Flight server
// loads in this plain Node process.
const outfile = path.join(outDir, 'markdown.mjs');
await build({
  stdin: {
    contents: [
      "export { renderToMarkdown, renderToMarkdownStream, MarkdownContent } from './src/markdown.ts';",
      "export { createElement, Suspense, use } from 'react';",
    ].join('\n'),
    resolveDir: path.join(here, '..'),
    loader: 'ts',
  },
  outfile,
  bundle: true,
  format: 'esm',
  platform: 'node',
  conditions: ['react-server'],
  banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
  define: { 'process.env.NODE_ENV': '"production"' },
  logLevel: 'silent',
});
const { renderToMarkdown, renderToMarkdownStream, MarkdownContent, createElement: h, Suspense, use } = await import(
  pathToFileURL(outfile).href
);

// ---------------------------------------------------------------------------------------------
// A tree both sides are reduced to: `{ tag, attrs, children }` and text.

/** micromark's HTML → tree (its output is regular: void tags self-close, four entities). */
function parseHtml(html) {
  const root = { tag: '#root', attrs: {}, children: [] };
  const stack = [root];
  const decode = (text) =>
    text.replace(/&(amp|lt|gt|quot|#(\d+)|#x([0-9a-f]+));/gi, (_, name, dec, hex) =>
      dec ? String.fromCodePoint(Number(dec)) : hex ? String.fromCodePoint(parseInt(hex, 16)) : { amp: '&', lt: '<', gt: '>', quot: '"' }[name],
    );
  const pattern = /<(\/?)([a-z0-9]+)((?:\s+[a-z-]+="[^"]*")*)\s*(\/?)>|([^<]+)/gi;
  for (const match of html.matchAll(pattern)) {
    const [, closing, tag, attrText, selfClosing, text] = match;
    const top = stack[stack.length - 1];
    if (text !== undefined) {
      top.children.push(decode(text));
    } else if (closing) {
      assert.equal(top.tag, tag, `unbalanced HTML from micromark: ${html}`);
      stack.pop();
    } else {
      const attrs = {};
      for (const [, name, value] of attrText.matchAll(/([a-z-]+)="([^"]*)"/gi)) attrs[name] = decode(value);
      const node = { tag, attrs, children: [] };
      top.children.push(node);
      if (!selfClosing && !['br', 'hr', 'img', 'input'].includes(tag)) stack.push(node);
    }
  }
  return root;
}

const INLINE = new Set(['strong', 'em', 'del', 'code', 'a', 'img', 'br', 'input']);
const BLOCKS = new Set(['#root', 'blockquote', 'li', 'ul', 'ol', 'table', 'thead', 'tbody', 'tr']);

/**
 * One form for both trees: whitespace collapsed (it is not structure), none at a block's edges or
 * beside a line break, a list item's inline runs always in a paragraph (tight and loose lists are
 * the same structure), URLs decoded, and only the attributes that carry meaning.
 */
function normalize(node) {
  if (typeof node === 'string') return node;
  const keep = {};
  for (const name of ['href', 'src', 'alt', 'title', 'start', 'align', 'class', 'type']) {
    if (node.attrs[name] !== undefined && node.attrs[name] !== '') keep[name] = node.attrs[name];
  }
  if (node.attrs.checked !== undefined) keep.checked = 'checked';
  for (const name of ['href', 'src']) if (keep[name] !== undefined) keep[name] = decodeURI(keep[name]);
  if (keep.alt !== undefined) keep.alt = keep.alt.replace(/\s+/g, ' ').trim();
  if (node.tag === 'pre') {
    // A code block's text, exactly, without the newline micromark ends it with.
    const code = node.children.find((child) => typeof child !== 'string' && child.tag === 'code');
    const text = code.children.join('').replace(/\n$/, '');
    const attrs = code.attrs.class === undefined ? {} : { class: code.attrs.class };
    return { tag: 'pre', attrs: keep, children: [{ tag: 'code', attrs, children: text === '' ? [] : [text] }] };
  }
  let children = [];
  for (const child of node.children) {
    const normalized = normalize(child);
    if (typeof normalized === 'string') {
      const collapsed = normalized.replace(/\s+/g, ' ');
      if (typeof children[children.length - 1] === 'string') {
        children[children.length - 1] = (children[children.length - 1] + collapsed).replace(/\s+/g, ' ');
      } else {
        children.push(collapsed);
      }
    } else {
      children.push(normalized);
    }
  }
  if (node.tag !== 'code') {
    children = children
      .map((child, index) => {
        if (typeof child !== 'string') return child;
        let text = child;
        const previous = children[index - 1];
        const next = children[index + 1];
        const edge = (other) => typeof other === 'object' && (other.tag === 'br' || other.tag === 'input' || !INLINE.has(other.tag));
        // A task item's checkbox is followed by a space in micromark's HTML, and not in a tree.
        if (index === 0 || edge(previous)) text = text.trimStart();
        if (index === children.length - 1 || (edge(next) && next.tag !== 'input')) text = text.trimEnd();
        return text;
      })
      .filter((child) => child !== '');
  }
  if (BLOCKS.has(node.tag)) {
    // Between blocks, whitespace is nothing.
    children = children.filter((child) => typeof child !== 'string' || node.tag === 'li');
  }
  if (node.tag === 'li') {
    const grouped = [];
    let run = [];
    const flush = () => {
      if (run.length > 0) grouped.push({ tag: 'p', attrs: {}, children: run });
      run = [];
    };
    for (const child of children) {
      if (typeof child === 'string' || INLINE.has(child.tag)) run.push(child);
      else {
        flush();
        grouped.push(child);
      }
    }
    flush();
    children = grouped;
  }
  return { tag: node.tag, attrs: keep, children };
}

// ---------------------------------------------------------------------------------------------
// Generated documents: a structure, its JSX, and the tree it must parse back to.

function random(seed) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (max) => Math.floor(next() * max);
  const pick = (items) => items[int(items.length)];
  return { next, int, pick };
}

const WORDS = ['shelf', 'Le', 'Guin', 'dune', 'note', 'x', 'Émile', '数据', 'a1', 'Zed'];
// Text that would be markup if it were not escaped.
const NASTY = [
  '*stars*', '_under_', '[x]', '[ ]', '<tag>', '&', '&amp;', '&#42;', '\\', '`tick`', '~~no~~', 'a|b', '#', '!',
  '[link](url)', '![img](x)', '**', 'www.example.com', 'https://example.com', 'me@example.com', '<br>', '> not',
  '1.', '2)', '-', '+', '=', '---', '***', '$', '%', '{}', '"q"', "'s'", ':', '::',
];
// What may open a line, where a block marker would take effect.
const LEADING = ['- item', '# head', '1. one', '> quote', '+ plus', '= eq', '10) ten', '***', '    indented', '```fence'];

function gen(seed) {
  const r = random(seed);
  const word = () => r.pick(WORDS);
  const text = () => {
    const parts = [];
    const count = 1 + r.int(4);
    for (let i = 0; i < count; i += 1) parts.push(r.next() < 0.45 ? r.pick(NASTY) : word());
    return parts.join(r.pick([' ', ' ', '  ', '\n']));
  };

  // Inline nodes: { kind, ... }; delimiters always sit against words (see the note at the end).
  function inlines(depth, allow = {}) {
    const out = [];
    const count = 1 + r.int(4);
    if (allow.leading !== false && r.next() < 0.25) out.push({ kind: 'text', text: r.pick(LEADING) + ' ' });
    for (let i = 0; i < count; i += 1) {
      const roll = r.next();
      if (depth > 1 || roll < 0.4) out.push({ kind: 'text', text: (out.length > 0 ? ' ' : '') + text() + ' ' });
      else if (roll < 0.5 && allow.strong !== false) out.push({ kind: 'strong', children: wrapped(depth, { strong: false }) });
      else if (roll < 0.6 && allow.em !== false) out.push({ kind: 'em', children: wrapped(depth, { em: false }) });
      else if (roll < 0.66 && allow.del !== false) out.push({ kind: 'del', children: wrapped(depth, { strong: false, em: false, del: false }) });
      else if (roll < 0.76) out.push({ kind: 'code', text: r.pick(['x', 'a`b', '``', ' x ', 'a | b', '*no*', '<b>', '` x', 'echo "$HOME"']) });
      else if (roll < 0.84 && allow.link !== false) {
        out.push({
          kind: 'link',
          href: r.pick(['https://example.com/a', 'https://example.com/a b', 'https://example.com/(x)', '/rel/path?q=1&r=2', 'https://e.org/ü']),
          title: r.next() < 0.3 ? r.pick(['Title', 'a "quoted" t', 'back\\slash']) : undefined,
          children: wrapped(depth, { link: false }),
        });
      } else if (roll < 0.9) {
        out.push({ kind: 'image', src: r.pick(['cover.png', 'a b.png', 'https://e.org/(1).jpg']), alt: text(), title: r.next() < 0.3 ? 'Cover' : undefined });
      } else if (allow.br !== false && i > 0 && i < count - 1) out.push({ kind: 'br' });
      else out.push({ kind: 'text', text: ' ' + word() + ' ' });
      // Two delimited spans with nothing between them (`*a***b**`) cannot be told apart in
      // Markdown at all, so generated spans are always separated by text, as prose separates them.
      if (out[out.length - 1].kind !== 'text') out.push({ kind: 'text', text: ' ' + word() + ' ' });
    }
    return out;
  }
  /** Inline content that starts and ends with a word, as emphasis and link text need. */
  function wrapped(depth, allow) {
    return [{ kind: 'text', text: word() + ' ' }, ...inlines(depth + 1, { ...allow, leading: false, br: false }), { kind: 'text', text: ' ' + word() }];
  }

  function blocks(depth) {
    const out = [];
    const count = 1 + r.int(depth === 0 ? 6 : 3);
    for (let i = 0; i < count; i += 1) {
      const roll = r.next();
      if (roll < 0.3 || depth > 2) out.push({ kind: 'p', children: inlines(0) });
      else if (roll < 0.4) out.push({ kind: 'h', level: 1 + r.int(6), children: inlines(0, { br: false }) });
      else if (roll < 0.55) out.push(list(depth));
      else if (roll < 0.62) out.push({ kind: 'quote', children: blocks(depth + 1) });
      else if (roll < 0.7) out.push({ kind: 'pre', lang: r.pick(['', 'js', 'sh']), text: r.pick(['let a = 1;', 'a\n\n  b', '```\nfence inside\n```', '# not a heading\n- not a list', '<div>&amp;</div>', '']) });
      else if (roll < 0.76 && depth === 0) out.push({ kind: 'hr' });
      else if (roll < 0.88) out.push(table());
      else if (roll < 0.94) out.push({ kind: 'dl', entries: Array.from({ length: 1 + r.int(3) }, () => ({ dt: wrapped(1, { br: false }), dd: inlines(0) })) });
      else out.push({ kind: 'p', children: inlines(0) });
    }
    return out;
  }
  function list(depth) {
    const ordered = r.next() < 0.5;
    const start = ordered && r.next() < 0.5 ? r.pick([0, 3, 9, 10, 99, 123]) : undefined;
    const task = r.next() < 0.3;
    const items = Array.from({ length: 1 + r.int(4) }, () => {
      const children = [{ kind: 'p', children: inlines(0) }];
      if (r.next() < 0.3 && depth < 2) children.push(list(depth + 1));
      if (r.next() < 0.15) children.push({ kind: 'pre', lang: '', text: 'in item\n  indented' });
      if (r.next() < 0.1) children.push({ kind: 'quote', children: [{ kind: 'p', children: inlines(0) }] });
      return { checked: task ? r.next() < 0.5 : undefined, children };
    });
    return { kind: 'list', ordered, start, items };
  }
  function table() {
    const width = 1 + r.int(4);
    const align = Array.from({ length: width }, () => r.pick([undefined, 'left', 'right', 'center']));
    const cell = () => inlines(1, { br: false, leading: r.next() < 0.5 });
    return {
      kind: 'table',
      align,
      head: Array.from({ length: width }, cell),
      rows: Array.from({ length: r.int(4) }, () => Array.from({ length: width }, cell)),
    };
  }
  return blocks(0);
}

/** The JSX for generated blocks. */
function jsxBlocks(blocks) {
  return blocks.map((block, index) => {
    const key = String(index);
    switch (block.kind) {
      case 'p': return h('p', { key }, ...jsxInlines(block.children));
      case 'h': return h(`h${block.level}`, { key }, ...jsxInlines(block.children));
      case 'quote': return h('blockquote', { key }, ...jsxBlocks(block.children));
      case 'pre': return h('pre', { key }, h('code', block.lang === '' ? {} : { className: `language-${block.lang}` }, block.text));
      case 'hr': return h('hr', { key });
      case 'dl': return h('dl', { key }, ...block.entries.flatMap((entry) => [h('dt', null, ...jsxInlines(entry.dt)), h('dd', null, ...jsxInlines(entry.dd))]));
      case 'list':
        return h(block.ordered ? 'ol' : 'ul', { key, ...(block.start === undefined ? {} : { start: block.start }) },
          ...block.items.map((item, itemIndex) => h('li', { key: String(itemIndex) },
            ...(item.checked === undefined ? [] : [h('input', { type: 'checkbox', checked: item.checked, readOnly: true })]),
            ...item.children.map((child, childIndex) =>
              // A list item's first paragraph is written as bare inline content, as authors do.
              childIndex === 0 && child.kind === 'p' ? h(Inline, { key: 'i', nodes: child.children }) : jsxBlocks([child])[0]),
          )));
      case 'table':
        return h('table', { key },
          h('thead', null, h('tr', null, ...block.head.map((cell, column) => h('th', block.align[column] ? { align: block.align[column] } : {}, ...jsxInlines(cell))))),
          block.rows.length === 0 ? null : h('tbody', null, ...block.rows.map((row) => h('tr', null, ...row.map((cell, column) => h('td', block.align[column] ? { align: block.align[column] } : {}, ...jsxInlines(cell)))))));
      default: throw new Error(block.kind);
    }
  });
}

/** A component, so that components (sync here, async below) are resolved in place. */
function Inline({ nodes }) {
  return jsxInlines(nodes);
}

function jsxInlines(nodes) {
  return nodes.map((node) => {
    switch (node.kind) {
      case 'text': return node.text;
      case 'strong': return h('strong', null, ...jsxInlines(node.children));
      case 'em': return h('em', null, ...jsxInlines(node.children));
      case 'del': return h('del', null, ...jsxInlines(node.children));
      case 'code': return h('code', null, node.text);
      case 'br': return h('br');
      case 'link': return h('a', { href: node.href, ...(node.title ? { title: node.title } : {}) }, ...jsxInlines(node.children));
      case 'image': return h('img', { src: node.src, alt: node.alt, ...(node.title ? { title: node.title } : {}) });
      default: throw new Error(node.kind);
    }
  });
}

/** The tree micromark must produce for generated blocks. */
function expectedBlocks(blocks) {
  const el = (tag, attrs, children) => ({ tag, attrs, children });
  return blocks.flatMap((block) => {
    switch (block.kind) {
      case 'p': return [el('p', {}, expectedInlines(block.children))];
      case 'h': return [el(`h${block.level}`, {}, expectedInlines(block.children))];
      case 'quote': return [el('blockquote', {}, expectedBlocks(block.children))];
      case 'pre': return [el('pre', {}, [el('code', block.lang === '' ? {} : { class: `language-${block.lang}` }, block.text === '' ? [] : [block.text])])];
      case 'hr': return [el('hr', {}, [])];
      case 'dl': return block.entries.flatMap((entry) => [el('p', {}, [el('strong', {}, expectedInlines(entry.dt))]), el('p', {}, expectedInlines(entry.dd))]);
      case 'list':
        return [el(block.ordered ? 'ol' : 'ul', block.start !== undefined && block.start !== 1 ? { start: String(block.start) } : {},
          block.items.map((item) => {
            const children = expectedBlocks(item.children);
            if (item.checked !== undefined) {
              children[0].children.unshift(el('input', { type: 'checkbox', ...(item.checked ? { checked: '' } : {}) }, []));
            }
            return el('li', {}, children);
          }))];
      case 'table': {
        const cells = (tag, row) => el('tr', {}, row.map((cell, column) => el(tag, block.align[column] ? { align: block.align[column] } : {}, expectedInlines(cell))));
        return [el('table', {}, [el('thead', {}, [cells('th', block.head)]), ...(block.rows.length === 0 ? [] : [el('tbody', {}, block.rows.map((row) => cells('td', row)))])])];
      }
      default: throw new Error(block.kind);
    }
  });
}

function expectedInlines(nodes) {
  const el = (tag, attrs, children) => ({ tag, attrs, children });
  return nodes.map((node) => {
    switch (node.kind) {
      case 'text': return node.text;
      case 'strong': return el('strong', {}, expectedInlines(node.children));
      case 'em': return el('em', {}, expectedInlines(node.children));
      case 'del': return el('del', {}, expectedInlines(node.children));
      case 'code': return el('code', {}, [node.text]);
      case 'br': return el('br', {}, []);
      case 'link': return el('a', { href: node.href, ...(node.title ? { title: node.title } : {}) }, expectedInlines(node.children));
      case 'image': return el('img', { src: node.src, alt: node.alt, ...(node.title ? { title: node.title } : {}) }, []);
      default: throw new Error(node.kind);
    }
  });
}

const parse = (markdown) => normalize(parseHtml(micromark(markdown, { extensions: [gfm()], htmlExtensions: [gfmHtml()] })));
const expected = (blocks) => normalize({ tag: '#root', attrs: {}, children: expectedBlocks(blocks) });

// ---------------------------------------------------------------------------------------------

describe('renderToMarkdown against micromark + GFM', () => {
  const CORPUS = 150;
  it(`parses back to the structure it was given, over ${CORPUS} generated documents`, async () => {
    const failures = [];
    for (let seed = 1; seed <= CORPUS; seed += 1) {
      const blocks = gen(seed);
      const markdown = await renderToMarkdown(jsxBlocks(blocks));
      assert.ok(!markdown.endsWith('\n'), `seed ${seed}: the block ends with a newline`);
      const got = parse(markdown);
      const want = expected(blocks);
      try {
        assert.deepEqual(got, want);
      } catch (error) {
        failures.push(`seed ${seed}:\n${JSON.stringify(markdown)}\n${error.message.slice(0, 3000)}`);
      }
    }
    assert.deepEqual(failures.slice(0, 2), [], `${failures.length} of ${CORPUS} documents differ`);
  });
});

describe('MarkdownContent', () => {
  it("writes the seed's table, right-aligned column and escaped pipe included", async () => {
    const files = [{ path: 'a|b.txt', bytes: 12 }, { path: '*.md', bytes: 3 }];
    const markdown = await renderToMarkdown(
      h('table', null,
        h('thead', null, h('tr', null, h('th', null, 'File'), h('th', { align: 'right' }, 'Bytes'))),
        h('tbody', null, ...files.map((file) => h('tr', { key: file.path }, h('td', null, file.path), h('td', null, file.bytes))))),
    );
    assert.equal(markdown, '| File | Bytes |\n| --- | --: |\n| a\\|b.txt | 12 |\n| \\*.md | 3 |');
  });

  it('resolves async components, React.use and Suspense before the block is written', async () => {
    const later = Promise.resolve('used');
    async function Slow() {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return h('strong', null, 'async');
    }
    function Uses() {
      return h('em', null, use(later));
    }
    const markdown = await renderToMarkdown(
      h('p', null, 'a ', h(Slow), ' ', h(Uses), ' ', h(Suspense, { fallback: 'waiting' }, h(Slow))),
    );
    assert.equal(markdown, 'a **async** *used* **async**');
  });

  it('lowers into one agent-markdown element without a trailing newline', async () => {
    const element = await MarkdownContent({ children: [h('h2', null, 'Shelf'), h('p', null, 'two')] });
    assert.equal(element.type, 'agent-markdown');
    assert.equal(element.props.children, '## Shelf\n\ntwo');
  });

  it('writes custom tags with components, their children inline or as blocks', async () => {
    const components = {
      callout: (props, { blocks }) => `> **${props.kind}**\n>\n${blocks().split('\n').map((line) => `> ${line}`).join('\n')}`,
      kbd: (_props, { inline }) => `<kbd>${inline()}</kbd>`,
    };
    const markdown = await renderToMarkdown(
      [h('callout', { kind: 'Note' }, h('p', null, 'Press ', h('kbd', null, 'Ctrl'), '.')), h('p', null, 'after')],
      { components },
    );
    assert.equal(markdown, '> **Note**\n>\n> Press <kbd>Ctrl</kbd>.\n\nafter');
  });

  it('streams the same blocks in document order', async () => {
    const children = [h('h1', null, 'One'), h('p', null, 'two'), h('ul', null, h('li', null, 'three'))];
    const chunks = [];
    const decoder = new TextDecoder();
    for await (const chunk of renderToMarkdownStream(children)) chunks.push(decoder.decode(chunk));
    assert.deepEqual(chunks, ['# One', '\n\ntwo', '\n\n- three']);
    assert.equal(chunks.join(''), await renderToMarkdown(children));
  });

  it('writes no line break where Markdown would read a backslash: a heading, a paragraph edge', async () => {
    const markdown = await renderToMarkdown([
      h('h2', null, 'One', h('br'), 'two'),
      h('p', null, h('br'), 'three', h('br'), 'four \\', h('br')),
    ]);
    assert.equal(markdown, '## One two\n\nthree\\\nfour \\\\');
    assert.deepEqual(parse(markdown), expected([
      { kind: 'h', level: 2, children: [{ kind: 'text', text: 'One two' }] },
      { kind: 'p', children: [{ kind: 'text', text: 'three' }, { kind: 'br' }, { kind: 'text', text: 'four \\' }] },
    ]));
  });

  it('fails as the render fails when a child throws', async () => {
    function Broken() {
      throw new Error('catalog offline');
    }
    await assert.rejects(renderToMarkdown(h('p', null, h(Broken))), /catalog offline/);
  });
});
