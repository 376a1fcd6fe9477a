// The floor of any render through React's Flight server: one `<div>` rendered with
// `renderToReadableStream` and its stream drained, in process, in a loop (no host, no pipes, no
// worker protocol). A warm `tools/call` of ours does at least this much more than the SDK peer's
// handler does, which returns its result without rendering.
//
// Usage: node --conditions=react-server bench/mcp/flight-floor.mjs [renders]
// Prints one JSON line: the mean microseconds per render after 2,000 warm-up renders.
import { createElement } from 'react';
import { renderToReadableStream } from 'react-server-dom-webpack/server';

const renders = Number(process.argv[2] ?? 5000);

async function render(n) {
  const reader = renderToReadableStream(createElement('div', null, `n = ${n}`), {}).getReader();
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return bytes;
    bytes += value.length;
  }
}

for (let i = 0; i < 2000; i += 1) await render(i);
const started = performance.now();
for (let i = 0; i < renders; i += 1) await render(i);
const micros = ((performance.now() - started) / renders) * 1000;
console.log(JSON.stringify({ renders, meanMicrosPerRender: Number(micros.toFixed(1)) }));
