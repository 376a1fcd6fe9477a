/// <reference path="./react-server-dom-webpack.d.ts" />
/**
 * JSX → GitHub Flavored Markdown (seed 002 §Rich Markdown blocks): `MarkdownContent`,
 * `renderToMarkdown` and `renderToMarkdownStream`.
 *
 * The children are resolved by React itself: they are rendered with React's Flight server and
 * read back with its Flight client, so async components, `React.use`, context and Suspense mean
 * exactly what they mean in a route, and what is left is a tree of host elements. That tree is
 * then written out block by block. Needs the `react-server` condition, as every route render does.
 *
 * Invariant: text is escaped, so what the author wrote as text is text when the Markdown is
 * parsed again (pinned against micromark with its GFM extension by
 * `packages/runtime/test/markdown.test.mjs`).
 */
import { createElement, type ReactElement, type ReactNode } from 'react';

/** How a custom element's children are written: as one line of inline text, or as blocks. */
export interface MarkdownChildren {
  inline(): string;
  blocks(): string;
}

/** A serializer of one extra host tag name: its props and its children's two renderings. */
export type MarkdownSerializer = (props: Readonly<Record<string, unknown>>, children: MarkdownChildren) => string;

/** Options of `renderToMarkdown`, `renderToMarkdownStream` and `MarkdownContent`. */
export interface MarkdownOptions {
  /** Extra host tag names and how each is written. */
  components?: Readonly<Record<string, MarkdownSerializer>>;
}

/** The props of `<MarkdownContent>`: the markup, and `components` for custom tags. */
export interface MarkdownContentProps extends MarkdownOptions {
  children?: ReactNode;
}

/**
 * Renders its children to one GitHub Flavored Markdown string and lowers it into
 * `<Agent.Markdown>`; it sits beside other Agent nodes exactly like a handwritten one.
 */
export async function MarkdownContent({ children, components }: MarkdownContentProps): Promise<ReactElement> {
  const text = await renderToMarkdown(children, components === undefined ? {} : { components });
  return createElement('agent-markdown', null, text);
}

/** Resolves `children` and writes them as Markdown: blocks joined by one blank line, no trailing newline. */
export async function renderToMarkdown(children: ReactNode, options: MarkdownOptions = {}): Promise<string> {
  return (await renderBlocks(children, options)).join('\n\n');
}

/** The same Markdown as `renderToMarkdown`, as UTF-8 blocks in document order. */
export function renderToMarkdownStream(children: ReactNode, options: MarkdownOptions = {}): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let blocks: Promise<string[]> | undefined;
  let next = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      blocks ??= renderBlocks(children, options);
      const all = await blocks;
      if (next >= all.length) {
        controller.close();
        return;
      }
      controller.enqueue(encoder.encode((next === 0 ? '' : '\n\n') + all[next]));
      next += 1;
    },
  });
}

async function renderBlocks(children: ReactNode, options: MarkdownOptions): Promise<string[]> {
  const tree = await resolveTree(children);
  return new Writer(options.components ?? {}).blocks(tree);
}

// ---------------------------------------------------------------------------------------------
// Resolving: Flight server → Flight client → host elements.

const LAZY = Symbol.for('react.lazy');
const ELEMENT = Symbol.for('react.transitional.element');
const LEGACY_ELEMENT = Symbol.for('react.element');

/** A resolved node: text, or a host element (tag and props) with resolved children. */
type Node = string | { tag: string; props: Record<string, unknown>; children: Node[] };

const CONSUMER_MANIFEST = { moduleMap: {}, moduleLoading: null, serverModuleMap: null };

async function resolveTree(children: ReactNode): Promise<Node[]> {
  // Imported on first use: React's Flight server refuses to load outside the `react-server`
  // condition, and the runtime's other exports must stay importable there (tests, tooling).
  const [{ renderToReadableStream }, { createFromReadableStream }] = await Promise.all([
    import('react-server-dom-webpack/server'),
    import('react-server-dom-webpack/client.edge'),
  ]);
  let failure: unknown;
  const stream = renderToReadableStream(children, {}, {
    onError(error: unknown) {
      failure ??= error;
    },
  });
  const [forClient, forEnd] = stream.tee();
  const model = createFromReadableStream(forClient, { serverConsumerManifest: CONSUMER_MANIFEST });
  // Every chunk has arrived once the stream ends, so every lazy node below resolves at once.
  const drain = forEnd.getReader();
  while (!(await drain.read()).done);
  if (failure !== undefined) throw failure;
  return flatten(await model);
}

function flatten(value: unknown): Node[] {
  if (value === null || value === undefined || typeof value === 'boolean') return [];
  if (typeof value === 'string') return [value];
  if (typeof value === 'number' || typeof value === 'bigint') return [String(value)];
  if (Array.isArray(value)) return value.flatMap(flatten);
  if (typeof value !== 'object') return [];
  const node = value as { $$typeof?: symbol; type?: unknown; props?: Record<string, unknown>; _init?: (payload: unknown) => unknown; _payload?: unknown };
  if (node.$$typeof === LAZY && typeof node._init === 'function') return flatten(node._init(node._payload));
  if (node.$$typeof === ELEMENT || node.$$typeof === LEGACY_ELEMENT) {
    const props = node.props ?? {};
    const children = flatten(props.children);
    // Fragments, Suspense and the like have resolved to their content.
    if (typeof node.type !== 'string') return children;
    return [{ tag: node.type, props, children }];
  }
  return [];
}

// ---------------------------------------------------------------------------------------------
// Writing.

const BLOCK_TAGS = new Set([
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'blockquote', 'ul', 'ol', 'pre', 'hr', 'table', 'dl', 'dt', 'dd',
  'li', 'thead', 'tbody', 'tfoot', 'tr', 'th', 'td', 'div', 'section', 'article', 'header', 'footer', 'main',
  'nav', 'aside', 'figure', 'details', 'summary',
]);

/** Elements whose only job is to group blocks: their children are written in their place. */
const BLOCK_CONTAINERS = new Set(['div', 'section', 'article', 'header', 'footer', 'main', 'nav', 'aside', 'figure', 'details', 'summary', 'dl']);

class Writer {
  constructor(private readonly components: Readonly<Record<string, MarkdownSerializer>>) {}

  /** Block context: runs of inline nodes become paragraphs; adjacent lists never merge. */
  blocks(nodes: readonly Node[]): string[] {
    const out: string[] = [];
    let run: Node[] = [];
    let lastList: { kind: string; alternate: boolean } | undefined;
    const flush = () => {
      const text = paragraph(this.inline(run));
      run = [];
      if (text !== '') {
        out.push(text);
        lastList = undefined;
      }
    };
    for (const node of this.expand(nodes)) {
      if (typeof node === 'string' || !this.isBlock(node)) {
        run.push(node);
        continue;
      }
      flush();
      if (node.tag === 'ul' || node.tag === 'ol') {
        // Two lists in a row would parse as one: the second takes the other marker.
        const alternate = lastList !== undefined && lastList.kind === node.tag && !lastList.alternate;
        const list = this.list(node, alternate);
        if (list !== '') {
          out.push(list);
          lastList = { kind: node.tag, alternate };
        }
        continue;
      }
      const block = this.block(node);
      if (block !== '') {
        out.push(...(Array.isArray(block) ? block : [block]));
        lastList = undefined;
      }
    }
    flush();
    return out;
  }

  private expand(nodes: readonly Node[]): Node[] {
    return nodes.flatMap((node) =>
      typeof node !== 'string' && BLOCK_CONTAINERS.has(node.tag) && this.components[node.tag] === undefined
        ? this.expand(node.children)
        : [node],
    );
  }

  private isBlock(node: Exclude<Node, string>): boolean {
    if (this.components[node.tag] !== undefined) return false;
    if (BLOCK_TAGS.has(node.tag)) return true;
    // An unknown element is transparent: block when it holds a block.
    return node.children.some((child) => typeof child !== 'string' && this.isBlock(child));
  }

  private block(node: Exclude<Node, string>): string | string[] {
    const { tag, children } = node;
    switch (tag) {
      case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': {
        // A heading is one line: a line break in it is a space.
        const text = this.inline(children).replace(/\\\n/g, ' ').trim();
        return `${'#'.repeat(Number(tag[1]))} ${text}`.trimEnd();
      }
      case 'p': case 'dt': case 'dd': case 'th': case 'td': case 'li': case 'tr': case 'thead': case 'tbody': case 'tfoot': {
        if (tag === 'dt') {
          const text = this.inline(children).trim();
          return text === '' ? '' : `**${text}**`;
        }
        if (tag === 'p' || tag === 'th' || tag === 'td') return paragraph(this.inline(children));
        return this.blocks(children);
      }
      case 'blockquote': {
        const inner = this.blocks(children).join('\n\n');
        if (inner === '') return '';
        return inner.split('\n').map((line) => (line === '' ? '>' : `> ${line}`)).join('\n');
      }
      case 'pre':
        return this.codeBlock(node);
      case 'hr':
        return '---';
      case 'table':
        return this.table(node);
      default:
        return this.blocks(children);
    }
  }

  private codeBlock(node: Exclude<Node, string>): string {
    const only = node.children.length === 1 ? node.children[0] : undefined;
    const code = typeof only === 'object' && only.tag === 'code' ? only : undefined;
    const text = textOf(code === undefined ? node.children : code.children).replace(/\n$/, '');
    const className = String(code?.props.className ?? node.props.className ?? '');
    const language = /(?:^|\s)language-([^\s`]+)/.exec(className)?.[1] ?? '';
    const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
    const fence = '`'.repeat(Math.max(3, longest + 1));
    return `${fence}${language}\n${text}${text === '' ? '' : '\n'}${fence}`;
  }

  private list(node: Exclude<Node, string>, alternate: boolean): string {
    const ordered = node.tag === 'ol';
    const start = ordered ? Math.max(0, Math.trunc(Number(node.props.start ?? 1)) || 0) : 1;
    const items = this.expand(node.children).filter((child): child is Exclude<Node, string> => typeof child !== 'string' && child.tag === 'li');
    const written = items.map((item, index) => {
      const marker = ordered ? `${start + index}${alternate ? ')' : '.'}` : alternate ? '*' : '-';
      let children = item.children;
      let task = '';
      const first = this.firstInline(children);
      if (first !== undefined && first.tag === 'input' && String(first.props.type) === 'checkbox') {
        task = first.props.checked ? '[x] ' : '[ ] ';
        children = removeNode(children, first);
      }
      const blocks = this.blocks(children);
      const indent = ' '.repeat(marker.length + 1);
      // A nested list that may interrupt a paragraph (a bullet, or a number list starting at 1)
      // follows it on the next line, keeping the list tight; every other block needs a blank line.
      const body = blocks
        .map((block, blockIndex) => (blockIndex === 0 || /^(?:[-*]|1[.)]) /.test(block) ? block : `\n${block}`))
        .join('\n');
      const lines = `${task}${body}`.split('\n');
      const head = lines[0] === '' ? marker : `${marker} ${lines[0]}`;
      return [head, ...lines.slice(1).map((line) => (line === '' ? '' : indent + line))].join('\n');
    });
    return written.join('\n');
  }

  private firstInline(children: readonly Node[]): Exclude<Node, string> | undefined {
    for (const child of children) {
      if (typeof child === 'string') {
        if (child.trim() === '') continue;
        return undefined;
      }
      if (child.tag === 'p') return this.firstInline(child.children);
      return child;
    }
    return undefined;
  }

  private table(node: Exclude<Node, string>): string {
    const rows: Exclude<Node, string>[] = [];
    const collect = (nodes: readonly Node[]) => {
      for (const child of nodes) {
        if (typeof child === 'string') continue;
        if (child.tag === 'tr') rows.push(child);
        else collect(child.children);
      }
    };
    collect(node.children);
    if (rows.length === 0) return '';
    const cells = rows.map((row) => row.children.filter((cell): cell is Exclude<Node, string> => typeof cell !== 'string' && (cell.tag === 'th' || cell.tag === 'td')));
    const width = Math.max(1, ...cells.map((row) => row.length));
    const cellText = (cell: Exclude<Node, string> | undefined) =>
      cell === undefined ? '' : this.inline(cell.children, true).trim().replace(/\n/g, ' ');
    const line = (row: Exclude<Node, string>[]) =>
      `| ${Array.from({ length: width }, (_, index) => cellText(row[index])).join(' | ')} |`;
    const header = cells[0] ?? [];
    const align = Array.from({ length: width }, (_, index) => {
      const value = String(header[index]?.props.align ?? cells[1]?.[index]?.props.align ?? '');
      return value === 'left' ? ':--' : value === 'right' ? '--:' : value === 'center' ? ':-:' : '---';
    });
    return [line(header), `| ${align.join(' | ')} |`, ...cells.slice(1).map(line)].join('\n');
  }

  /** Inline context: one paragraph's text. In a table cell a line break cannot be written. */
  inline(nodes: readonly Node[], inCell = false): string {
    let out = '';
    for (const node of nodes) {
      if (typeof node === 'string') {
        out += escapeText(node, out === '' || out.endsWith('\n'));
        continue;
      }
      out += this.inlineElement(node, inCell);
    }
    return out;
  }

  private inlineElement(node: Exclude<Node, string>, inCell: boolean): string {
    const { tag, props, children } = node;
    const custom = this.components[tag];
    if (custom !== undefined) {
      return custom(props, {
        inline: () => this.inline(children, inCell),
        blocks: () => this.blocks(children).join('\n\n'),
      });
    }
    const wrap = (mark: string) => {
      const text = this.inline(children, inCell);
      const trimmed = text.trim();
      if (trimmed === '') return text;
      // Delimiters must touch the text they mark; the spaces go outside.
      const lead = text.slice(0, text.length - text.trimStart().length);
      const trail = text.slice(text.trimEnd().length);
      return `${lead}${mark}${trimmed}${mark}${trail}`;
    };
    switch (tag) {
      case 'strong': case 'b':
        return wrap('**');
      case 'em': case 'i':
        return wrap('*');
      case 'del': case 's':
        return wrap('~~');
      case 'code': {
        const code = inlineCode(textOf(children));
        // A cell ends at any unescaped pipe, code spans included; GFM drops the backslash again.
        return inCell ? code.replace(/\|/g, '\\|') : code;
      }
      case 'br':
        return inCell ? ' ' : '\\\n';
      case 'a': {
        const text = this.inline(children, inCell).trim();
        return `[${text}](${destination(String(props.href ?? ''))}${title(props.title)})`;
      }
      case 'img':
        return `![${escapeText(String(props.alt ?? ''), false)}](${destination(String(props.src ?? ''))}${title(props.title)})`;
      case 'input':
        return props.type === 'checkbox' ? (props.checked ? '\\[x\\]' : '\\[ \\]') : '';
      default:
        return this.inline(children, inCell);
    }
  }
}

/**
 * A paragraph's inline text without the spaces and line breaks at its edges: a hard break is
 * `\` before a newline, and at a paragraph's end it would be a literal backslash.
 */
function paragraph(text: string): string {
  return text.replace(/^(?:\s|\\\n)+/, '').replace(/(?:\s|\\\n)+$/, '');
}

function textOf(nodes: readonly Node[]): string {
  return nodes.map((node) => (typeof node === 'string' ? node : node.tag === 'br' ? '\n' : textOf(node.children))).join('');
}

function removeNode(nodes: readonly Node[], target: Node): Node[] {
  return nodes.flatMap((node): Node[] => {
    if (node === target) return [];
    if (typeof node !== 'string' && node.tag === 'p' && node.children.includes(target)) {
      return [{ ...node, children: removeNode(node.children, target) }];
    }
    return [node];
  });
}

/**
 * Escapes text so that it parses back as the same text: every ASCII punctuation mark that can
 * open or close a construct, and whatever at a line's start could open a block.
 */
function escapeText(text: string, atLineStart: boolean): string {
  const collapsed = text.replace(/\s+/g, ' ');
  let escaped = collapsed
    .replace(/[\\`*_[\]<>&~|!#@]/g, (mark) => `\\${mark}`)
    // GFM links bare URLs and `www.` names: a backslash between the scheme and `//`, or after
    // `www`, keeps them text (`@` above does the same for email addresses).
    .replace(/:(?=\/\/)/g, '\\:')
    .replace(/\b(www)\./gi, '$1\\.');
  if (atLineStart) {
    escaped = escaped
      .replace(/^(\s*)([-+=>])/, '$1\\$2')
      .replace(/^(\s*\d+)([.)])/, '$1\\$2');
  }
  return escaped;
}

function inlineCode(text: string): string {
  const code = text.replace(/\n/g, ' ');
  const longest = Math.max(0, ...[...code.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = code.startsWith('`') || code.endsWith('`') || (code.startsWith(' ') && code.endsWith(' ') && code.trim() !== '') ? ' ' : '';
  return `${fence}${pad}${code}${pad}${fence}`;
}

function destination(url: string): string {
  if (url === '' || /[\s()<>]/.test(url)) return `<${url.replace(/[<>\\]/g, (mark) => `\\${mark}`).replace(/\n/g, '%0A')}>`;
  return url.replace(/\\/g, '\\\\');
}

function title(value: unknown): string {
  if (typeof value !== 'string' || value === '') return '';
  return ` "${value.replace(/["\\]/g, (mark) => `\\${mark}`)}"`;
}
