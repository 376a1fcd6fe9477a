// The floor of any cold render through React's Flight server: Node starts, loads React's server
// build and renders one text, then exits. bench/mcp/run.py times it beside `node -e 0` twice: run
// as it is (React loaded from node_modules, compiled from source), and bundled by the runtime
// package's worker bundler into a worker of its own, which V8's code cache serves as it serves the
// real worker. The text is no object, so React's serializer never asks for Node's lazy `FormData`
// global here either (scripts/react-server-build.mjs in the runtime package).
//
// Usage: node --conditions=react-server bench/mcp/cold-floor.mjs
import { renderToReadableStream } from 'react-server-dom-webpack/server';

const reader = renderToReadableStream('n = 0', {}).getReader();
(async () => {
  for (;;) {
    const { done } = await reader.read();
    if (done) break;
  }
  // What the real worker emits after its first render: the code-cache loader writes the cache
  // again then, so that it holds the render path.
  process.emit('abgen:rendered');
})();
