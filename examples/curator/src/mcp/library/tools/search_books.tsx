import { Agent } from '@agent-bundle/runtime';
import { defineTool } from 'agent-bundle/routes';
import { z } from 'zod';
import { bookSummary, type CatalogClient } from '../../../data/catalog-client';
import { bookLine, bulletList, plural } from '../../../lib/markdown';

const genreSchema = z.enum([
  'fiction',
  'science-fiction',
  'fantasy',
  'history',
  'science',
  'philosophy',
  'poetry',
  'biography',
  'technology',
]);

const shelfSchema = z.enum(['to-read', 'reading', 'finished', 'reference']);

const bookSummarySchema = z.object({
  id: z.string().describe('Pass this to shelve_book or review_request'),
  title: z.string(),
  authors: z.array(z.string()).min(1),
  year: z.int(),
  genre: genreSchema,
  shelf: shelfSchema.nullable().describe('null while the book is unshelved'),
  rating: z.int().min(1).max(5).optional(),
});

/**
 * Searches the catalog. Read-only, so clients may call it without asking; the result carries the
 * matches as structured content (for Apps and follow-up calls) and as a Markdown list, which is
 * what the model reads (`model: 'content'`: Claude Code and Codex would otherwise hand it only the
 * structured value).
 */
export default defineTool(
  {
    title: 'Search books',
    model: 'content',
    description:
      'Search the library catalog by title, author or topic. Every word of the query must match. Use the returned ids with shelve_book and review_request.',
    inputSchema: z.object({
      query: z.string().min(1).max(200).describe('Words to find in titles, authors and tags, e.g. "le guin winter"'),
      genres: z.array(genreSchema).max(5).optional().describe('Only books in these genres'),
      shelf: z
        .enum(['to-read', 'reading', 'finished', 'reference', 'unshelved', 'any'])
        .default('any')
        .describe('Only books on this shelf'),
      published: z
        .object({
          from: z.int().min(-3000).max(2100).optional().describe('Earliest year, inclusive'),
          to: z.int().min(-3000).max(2100).optional().describe('Latest year, inclusive'),
        })
        .optional()
        .describe('Publication year range'),
      limit: z.int().min(1).max(25).default(10).describe('Most results to return'),
    }),
    resultSchema: z.object({
      query: z.string(),
      total: z.int().min(0).describe('Matches before the limit was applied'),
      books: z.array(bookSummarySchema),
    }),
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  },
  async ({ query, genres, shelf, published, limit }, context) => {
    const catalog = await context.provider<CatalogClient>('catalog');
    const { total, books } = catalog.search({ text: query, genres, shelf, published, limit });
    const value = { query, total, books: books.map(bookSummary) };
    const shown = total > books.length ? ` (showing the first ${books.length})` : '';
    return (
      <Agent.Result value={value}>
        <Agent.Markdown>
          {`Found ${plural(total, 'book')} for “${query}”${shown}.\n\n${bulletList(books.map(bookLine), 'No book matches; try fewer words or another shelf.')}`}
        </Agent.Markdown>
      </Agent.Result>
    );
  },
);
