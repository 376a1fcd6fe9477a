import { Agent } from '@agent-bundle/runtime';
import { defineTool } from 'agent-bundle/routes';
import { z } from 'zod';
import type { CatalogClient } from '../../../data/catalog-client';

const shelfSchema = z.enum(['to-read', 'reading', 'finished', 'reference']);

const SHELF_LABELS = {
  'to-read': 'To read',
  reading: 'Reading',
  finished: 'Finished',
  reference: 'Reference',
} as const;

/**
 * Moves a book to a shelf. It changes the catalog, so it is not read-only; moving a book to the
 * shelf it is already on changes nothing, so it is idempotent. An unknown id is a represented
 * `not-found` error the model can recover from (by searching), not a failed call.
 */
export default defineTool(
  {
    title: 'Shelve a book',
    description:
      'Move a catalogued book to a shelf: to-read, reading, finished or reference. Find the book id with search_books first.',
    inputSchema: z.object({
      bookId: z
        .string()
        .min(1)
        .max(80)
        .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/)
        .describe('The book id from search_books, e.g. "dispossessed"'),
      shelf: shelfSchema.describe('The shelf to move the book to'),
      note: z.string().max(280).optional().describe('Why the book moved, shown back to the user'),
    }),
    resultSchema: z.object({
      bookId: z.string(),
      title: z.string(),
      from: shelfSchema.nullable().describe('null when the book was unshelved'),
      to: shelfSchema,
      changed: z.boolean(),
    }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  async ({ bookId, shelf, note }, context) => {
    const catalog = await context.provider<CatalogClient>('catalog');
    const moved = catalog.shelve(bookId, shelf);
    if (moved === undefined) {
      return (
        <Agent.Error
          code="not-found"
          message={`No book has the id "${bookId}". Search with search_books to find the right id.`}
        />
      );
    }
    const { book, from, to } = moved;
    const changed = from !== to;
    const summary = changed
      ? `Moved **${book.title}** from ${from === null ? 'unshelved' : SHELF_LABELS[from]} to ${SHELF_LABELS[to]}.`
      : `**${book.title}** is already on ${SHELF_LABELS[to]}; nothing changed.`;
    return (
      <Agent.Result value={{ bookId: book.id, title: book.title, from, to, changed }}>
        <Agent.Markdown>{note === undefined ? summary : `${summary}\n\n> ${note}`}</Agent.Markdown>
      </Agent.Result>
    );
  },
);
