// The benchmark stream: about 1 MB of production Flight from one route, mixing what real routes
// send: 2,000 text nodes, a large Markdown `T` row, Agent.Json with 2,000 records (Maps, Dates,
// BigInts), 40 Suspense boundaries resolving in turn, and image bytes.
import { Suspense } from 'react';
import { Agent } from '@agent-bundle/runtime';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function records(offset: number, count: number) {
  return Array.from({ length: count }, (_, index) => ({
    id: `book-${offset + index}`,
    title: `A title for book number ${offset + index}`,
    authors: ['First Author', 'Second Author'],
    added: new Date(Date.UTC(2026, index % 12, 1 + (index % 28))),
    tags: new Set(['fiction', `tag-${index % 17}`]),
    extra: new Map([['isbn', `978-${String(offset + index).padStart(9, '0')}`]]),
    pages: BigInt(100 + index),
  }));
}

async function Chapter({ index }: { index: number }) {
  await sleep(1 + (index % 5));
  return (
    <>
      <Agent.Markdown>{`## Chapter ${index}\n\n${'Lorem ipsum dolor sit amet. '.repeat(40)}`}</Agent.Markdown>
      <Agent.Json value={{ chapter: index, books: records(index * 70, 70) }} />
    </>
  );
}

export default function Catalog1mb() {
  const image = new Uint8Array(64 * 1024).map((_, index) => (index * 7) % 256);
  return (
    <Agent.Result value={{ chapters: 40 }}>
      <Agent.Markdown>{`# Catalog\n\n${'- an entry of the overview list\n'.repeat(2000)}`}</Agent.Markdown>
      {Array.from({ length: 2000 }, (_, index) => (
        <Agent.Text key={index}>{`line ${index}: ${'x'.repeat(index % 30)}`}</Agent.Text>
      ))}
      <Agent.Image data={image} mimeType="image/png" />
      {Array.from({ length: 40 }, (_, index) => (
        <Suspense key={index} fallback={<Agent.Progress completed={index} total={40} />}>
          <Chapter index={index} />
        </Suspense>
      ))}
    </Agent.Result>
  );
}
