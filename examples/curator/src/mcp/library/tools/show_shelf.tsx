import { Agent } from '@agent-bundle/runtime';
import { defineTool } from 'agent-bundle/routes';
import { z } from 'zod';
import { bookSummary, type CatalogClient } from '../../../data/catalog-client';
import { bookLine, bulletList, plural } from '../../../lib/markdown';

const shelfSchema = z.enum(['to-read', 'reading', 'finished', 'reference']);

/**
 * Shows one shelf. Clients that support MCP Apps render the result in the shelf viewer
 * (`apps/shelf_viewer.tsx`, linked through `_meta.ui.resourceUri`); every other client reads the
 * Markdown list.
 */
export default defineTool(
  {
    title: 'Show a shelf',
    description: 'Show the books on one shelf, or the unshelved books, with their authors, years and ratings.',
    inputSchema: z.object({
      shelf: z
        .enum(['to-read', 'reading', 'finished', 'reference', 'unshelved'])
        .describe('The shelf to show; "unshelved" lists books on no shelf'),
    }),
    resultSchema: z.object({
      shelf: z.string(),
      books: z.array(
        z.object({
          id: z.string(),
          title: z.string(),
          authors: z.array(z.string()),
          year: z.int(),
          genre: z.string(),
          shelf: shelfSchema.nullable(),
          rating: z.int().min(1).max(5).optional(),
        }),
      ),
    }),
    annotations: { readOnlyHint: true },
    _meta: { ui: { resourceUri: 'ui://curator/shelf-viewer' } },
  },
  async ({ shelf }, context) => {
    const catalog = await context.provider<CatalogClient>('catalog');
    const books = catalog.onShelf(shelf === 'unshelved' ? null : shelf);
    const value = { shelf, books: books.map(bookSummary) };
    return (
      <Agent.Result value={value}>
        <Agent.Markdown>
          {`## ${shelf} (${plural(books.length, 'book')})\n\n${bulletList(books.map(bookLine), 'This shelf is empty.')}`}
        </Agent.Markdown>
      </Agent.Result>
    );
  },
);
