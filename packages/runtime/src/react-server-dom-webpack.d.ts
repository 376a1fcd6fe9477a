// The part of react-server-dom-webpack's server API the worker uses (the package ships no types).
declare module 'react-server-dom-webpack/server' {
  import type { ReactNode } from 'react';

  export interface RenderOptions {
    onError?: (error: unknown) => string | void;
    signal?: AbortSignal;
    identifierPrefix?: string;
  }

  export function renderToReadableStream(
    model: ReactNode,
    clientManifest: Record<string, unknown> | undefined,
    options?: RenderOptions,
  ): ReadableStream<Uint8Array>;
}

// The part of its Flight client `MarkdownContent` uses to read its children back.
declare module 'react-server-dom-webpack/client.edge' {
  export function createFromReadableStream(
    stream: ReadableStream<Uint8Array>,
    options: { serverConsumerManifest: Record<string, unknown> },
  ): PromiseLike<unknown>;
}
