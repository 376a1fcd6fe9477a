// React's side of the Flight decode benchmark: React's own client (`createFromReadableStream`,
// production build) reads the recorded stream in 64 KiB pieces and the tree is converted to the
// final document, as packages/runtime/scripts/flight-client.mjs does for the differential test.
// Prints one JSON line: {"bytes", "runs", "bestMs", "medianMs", "mbPerSecond"}.
//   node bench/flight/react-client.mjs bench/flight/catalog-1mb.flight [runs]
import { readFileSync } from 'node:fs';
import { referenceDocument } from '../../packages/runtime/scripts/flight-client.mjs';

const PIECE_BYTES = 64 * 1024;
const [file, runsArg] = process.argv.slice(2);
const bytes = readFileSync(file);
const runs = Number(runsArg ?? 20);

const first = await referenceDocument(bytes, PIECE_BYTES);
if (first.status !== 'success') throw new Error(`the benchmark stream did not decode: ${JSON.stringify(first.root)}`);
for (let warmup = 0; warmup < 3; warmup += 1) await referenceDocument(bytes, PIECE_BYTES);

const times = [];
for (let run = 0; run < runs; run += 1) {
  const start = process.hrtime.bigint();
  await referenceDocument(bytes, PIECE_BYTES);
  times.push(Number(process.hrtime.bigint() - start) / 1e6);
}
times.sort((a, b) => a - b);
const best = times[0];
const median = times[Math.floor(times.length / 2)];
process.stdout.write(
  `${JSON.stringify({ bytes: bytes.length, runs, bestMs: best, medianMs: median, mbPerSecond: bytes.length / 1e6 / (median / 1e3) })}\n`,
);
