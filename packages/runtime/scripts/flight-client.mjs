// The reference side of the differential test: decodes recorded Flight streams with React's own
// client (`react-server-dom-webpack/client`, `createFromReadableStream`) and converts the tree it
// reconstructs into the final Agent Document JSON of ARCHITECTURE.md §7, independently of the Rust
// decoder. Run WITHOUT the `react-server` condition (this is the client side):
//   node packages/runtime/scripts/flight-client.mjs fixtures/flight/a.flight […]
// prints one JSON object `{"<case>": <document>, …}` on stdout.
//
// Semantics mirrored from the architecture, not from our decoder's code: a Suspense boundary whose
// content failed becomes an error node in its place, resolved boundaries are flattened into their
// parent, a failure outside every boundary fails the invocation, and a host element that is not an
// `agent-*` tag fails it with `unknown-element`. Failures the converter itself detects carry only a
// code; the Rust test compares codes for those.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';

// The recorded streams come from React's production server; read them with the production client
// (the development client expects debug rows production streams never carry).
process.env.NODE_ENV = 'production';
const { createFromReadableStream } = await import('react-server-dom-webpack/client');

const ELEMENT = Symbol.for('react.transitional.element');
const LAZY = Symbol.for('react.lazy');
const SUSPENSE = Symbol.for('react.suspense');
const TRANSPARENT = new Set([
  Symbol.for('react.fragment'),
  Symbol.for('react.activity'),
  Symbol.for('react.profiler'),
  Symbol.for('react.strict_mode'),
]);

/** A failure of the converter itself (as opposed to an error the server streamed). */
class Refused extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

/** `{code, message}` of an error, reading the worker's digest convention back. */
function documentError(error) {
  if (error instanceof Refused) return { code: error.code, message: error.message };
  if (error && typeof error.digest === 'string') {
    try {
      const parsed = JSON.parse(error.digest);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
        return {
          code: typeof parsed.code === 'string' ? parsed.code : 'render-error',
          message: typeof parsed.message === 'string' ? parsed.message : 'the render failed',
        };
      }
    } catch {
      // Not our convention: the digest is the message.
    }
    return { code: 'render-error', message: error.digest };
  }
  if (error && error.digest === undefined && error instanceof Error && error.message === 'Connection closed.') {
    return { code: 'stream-incomplete', message: error.message };
  }
  return { code: 'render-error', message: error instanceof Error ? error.message : String(error) };
}

/** Unwraps lazy wrappers and thenables (every chunk has settled once the stream has ended). */
async function settle(model) {
  for (;;) {
    if (model !== null && typeof model === 'object' && model.$$typeof === LAZY) {
      try {
        model = model._init(model._payload);
      } catch (thrown) {
        if (thrown && typeof thrown.then === 'function') {
          await thrown;
          continue;
        }
        throw thrown;
      }
      continue;
    }
    if (model !== null && typeof model === 'object' && typeof model.then === 'function') {
      model = await model;
      continue;
    }
    return model;
  }
}

/** Converts a React node to document nodes appended to `out`. */
async function children(model, out, state) {
  model = await settle(model);
  if (model === null || model === undefined || typeof model === 'boolean') return;
  if (typeof model === 'string') {
    if (model !== '') out.push({ kind: 'text', text: model });
    return;
  }
  if (typeof model === 'number') {
    out.push({ kind: 'text', text: String(model) });
    return;
  }
  if (Array.isArray(model)) {
    for (const item of model) await children(item, out, state);
    return;
  }
  if (typeof model === 'object' && model.$$typeof === ELEMENT) return element(model, out, state);
  throw new Refused('unsupported-value', 'not a valid document child');
}

async function element(node, out, state) {
  const { type, props } = node;
  if (type === SUSPENSE) {
    const content = [];
    try {
      await children(props.children, content, state);
    } catch (error) {
      if (error instanceof Refused) throw error;
      out.push({ kind: 'error', ...documentError(error) });
      return;
    }
    out.push(...content);
    return;
  }
  if (TRANSPARENT.has(type)) return children(props.children, out, state);
  if (typeof type !== 'string') throw new Refused('unsupported-value', 'an element type that is not a tag');
  if (!type.startsWith('agent-')) throw new Refused('unknown-element', `<${type}>`);
  out.push(await agentNode(type, props, state));
}

async function agentNode(tag, props, state) {
  const text = async () => {
    const parts = [];
    const collect = async (model) => {
      model = await settle(model);
      if (model === null || model === undefined || typeof model === 'boolean') return;
      if (typeof model === 'string' || typeof model === 'number') parts.push(String(model));
      else if (Array.isArray(model)) for (const item of model) await collect(item);
      else throw new Refused('unsupported-value', `children of <${tag}> must be text`);
    };
    await collect(props.children);
    return parts.join('');
  };
  const optional = async (key) => {
    const value = await json(props[key]);
    return value === null || value === undefined ? undefined : value;
  };
  const required = async (key) => {
    const value = await optional(key);
    if (value === undefined) throw new Refused('unsupported-value', `<${tag}> is missing ${key}`);
    return value;
  };
  switch (tag) {
    case 'agent-result': {
      if (!state.valueTaken && 'value' in props) {
        const value = await json(props.value);
        if (value !== undefined) {
          state.value = value;
          state.valueTaken = true;
        }
      }
      const list = [];
      await children(props.children, list, state);
      return { kind: 'result', children: list };
    }
    case 'agent-markdown':
    case 'agent-text':
    case 'agent-context':
    case 'agent-notice':
      return { kind: tag.slice('agent-'.length), text: await text() };
    case 'agent-json': {
      const value = await json(props.value);
      return { kind: 'json', value: value === undefined ? null : value };
    }
    case 'agent-progress':
      return compact({
        kind: 'progress',
        completed: await required('completed'),
        total: await optional('total'),
        message: await optional('message'),
      });
    case 'agent-deny':
      return { kind: 'deny', reason: await required('reason') };
    case 'agent-error':
      return { kind: 'error', code: await required('code'), message: await required('message') };
    case 'agent-image':
    case 'agent-audio':
      return { kind: tag.slice('agent-'.length), data: await required('data'), mimeType: await required('mimeType') };
    case 'agent-resource':
      return compact({
        kind: 'resource',
        uri: await required('uri'),
        mimeType: await optional('mimeType'),
        text: await optional('text'),
      });
    default:
      throw new Refused('unknown-element', `<${tag}>`);
  }
}

function compact(object) {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined));
}

/** A JavaScript value as document JSON; `undefined` means omitted. */
async function json(model) {
  model = await settle(model);
  if (model === undefined || typeof model === 'function' || typeof model === 'symbol') {
    if (model === undefined) return undefined;
    throw new Refused('unsupported-value', 'a function or symbol cannot become JSON');
  }
  if (model === null || typeof model === 'string' || typeof model === 'boolean') return model;
  if (typeof model === 'number') return Number.isFinite(model) ? (Object.is(model, -0) ? 0 : model) : null;
  if (typeof model === 'bigint') return model.toString();
  if (model instanceof Date) return model.toISOString();
  if (ArrayBuffer.isView(model)) {
    return Buffer.from(model.buffer, model.byteOffset, model.byteLength).toString('base64');
  }
  if (model instanceof Map) {
    const object = {};
    for (const [key, value] of model) {
      const converted = await json(key);
      if (typeof converted !== 'string') throw new Refused('unsupported-value', 'a Map key that is not a string');
      const entry = await json(value);
      if (entry !== undefined) object[converted] = entry;
    }
    return object;
  }
  if (model instanceof Set) {
    const array = [];
    for (const item of model) array.push((await json(item)) ?? null);
    return array;
  }
  if (Array.isArray(model)) {
    const array = [];
    for (const item of model) array.push((await json(item)) ?? null);
    return array;
  }
  if (model.$$typeof === ELEMENT) throw new Refused('unsupported-value', 'a React element inside a value');
  const object = {};
  for (const [key, value] of Object.entries(model)) {
    const converted = await json(value);
    if (converted !== undefined) object[key] = converted;
  }
  return object;
}

/**
 * The final document React's client reconstructs from `bytes`, fed in pieces of `pieceBytes`
 * (the whole stream at once by default).
 */
export async function referenceDocument(bytes, pieceBytes = bytes.length) {
  const stream = new ReadableStream({
    start(controller) {
      const all = new Uint8Array(bytes);
      for (let start = 0; start < all.length; start += Math.max(1, pieceBytes)) {
        controller.enqueue(all.subarray(start, start + Math.max(1, pieceBytes)));
      }
      controller.close();
    },
  });
  const manifest = { moduleMap: {}, serverModuleMap: null, moduleLoading: null };
  const state = { value: undefined, valueTaken: false };
  try {
    const model = await createFromReadableStream(stream, { serverConsumerManifest: manifest });
    const top = [];
    await children(model, top, state);
    const root = top.length === 1 && top[0].kind === 'result' ? top[0] : { kind: 'result', children: top };
    const holdsError = (node) => node.kind === 'error' || (node.children ?? []).some(holdsError);
    return compact({
      version: 1,
      status: holdsError(root) ? 'represented-error' : 'success',
      root,
      value: state.value,
    });
  } catch (error) {
    return { version: 1, status: 'failed', root: { kind: 'error', ...documentError(error) } };
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const documents = {};
  for (const file of process.argv.slice(2)) {
    documents[basename(file, '.flight')] = await referenceDocument(readFileSync(file));
  }
  process.stdout.write(`${JSON.stringify(documents)}\n`);
}
