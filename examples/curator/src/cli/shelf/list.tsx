import { Agent, useAgent } from '@agent-bundle/runtime';
import type { CliRouteConfig } from 'agent-bundle/routes';
import { z } from 'zod';
import type { CatalogClient } from '../../data/catalog-client';
import { bookLine, bulletList, plural } from '../../lib/markdown';

/**
 * `curator shelf list --shelf reading`: a command of the plugin's executable that is no MCP tool,
 * rendered through the same kernel and layout as every route. Its flags come from `inputSchema`.
 */
export const config = {
  description: 'List the books on one shelf',
  render: { maxElapsedMs: 10000 },
} satisfies CliRouteConfig;

export const inputSchema = z.object({
  shelf: z
    .enum(['to-read', 'reading', 'finished', 'reference', 'unshelved'])
    .default('reading')
    .describe('The shelf to list'),
});

export const resultSchema = z.object({
  shelf: z.string(),
  books: z.array(z.object({ id: z.string(), title: z.string() })),
});

export default async function ShelfList({ input }: { input: z.infer<typeof inputSchema> }) {
  const catalog = await useAgent().provider<CatalogClient>('catalog');
  const books = catalog.onShelf(input.shelf === 'unshelved' ? null : input.shelf);
  const value = { shelf: input.shelf, books: books.map(({ id, title }) => ({ id, title })) };
  return (
    <Agent.Result value={value}>
      <Agent.Markdown>
        {`${plural(books.length, 'book')} on ${input.shelf}.\n\n${bulletList(books.map(bookLine), 'The shelf is empty.')}`}
      </Agent.Markdown>
    </Agent.Result>
  );
}
