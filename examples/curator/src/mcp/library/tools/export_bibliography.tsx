import { Agent } from '@agent-bundle/runtime';
import { defineTool } from 'agent-bundle/routes';
import { z } from 'zod';
import type { Book } from '../../../data/catalog';
import { bibtexEntry, citationKey, type CatalogClient } from '../../../data/catalog-client';

/**
 * Exports citations as BibTeX, for writing notes and papers next to the agent.
 *
 * `excludeClients: ['cursor']` hides the tool from Cursor's MCP client: the same plugin still
 * offers it in Claude Code and Codex. This is how a tool opts out of one client without a second
 * server or a build flag.
 */
export default defineTool(
  {
    title: 'Export a bibliography',
    description:
      'Export BibTeX entries for books in the catalog, chosen by id or by shelf. Citation keys are the first author’s surname and the year, made unique with a letter.',
    inputSchema: z.object({
      bookIds: z
        .array(z.string().min(1).max(80))
        .min(1)
        .max(50)
        .optional()
        .describe('Books to cite; when omitted, every book on `shelf`'),
      shelf: z
        .enum(['to-read', 'reading', 'finished', 'reference'])
        .default('finished')
        .describe('The shelf to cite when no bookIds are given'),
    }),
    resultSchema: z.object({
      entries: z.array(z.object({ key: z.string(), bookId: z.string() })),
      missing: z.array(z.string()).describe('Requested ids that are not in the catalog'),
    }),
    annotations: { readOnlyHint: true, idempotentHint: true },
    excludeClients: ['cursor'],
  },
  async ({ bookIds, shelf }, context) => {
    const catalog = await context.provider<CatalogClient>('catalog');
    const books: Book[] = [];
    const missing: string[] = [];
    for (const id of bookIds ?? catalog.onShelf(shelf).map((book) => book.id)) {
      const book = catalog.get(id);
      if (book === undefined) missing.push(id);
      else books.push(book);
    }
    const entries = uniqueKeys(books);
    const bibtex = entries.map(({ key, book }) => bibtexEntry(book, key)).join('\n\n');
    const note = missing.length === 0 ? '' : `\n\nNot in the catalog: ${missing.map((id) => `\`${id}\``).join(', ')}.`;
    return (
      <Agent.Result value={{ entries: entries.map(({ key, book }) => ({ key, bookId: book.id })), missing }}>
        <Agent.Markdown>
          {entries.length === 0
            ? `Nothing to cite.${note}`
            : `\`\`\`bibtex\n${bibtex}\n\`\`\`${note}`}
        </Agent.Markdown>
      </Agent.Result>
    );
  },
);

/** `leguin1974`, then `leguin1974a`, `leguin1974b` when two books share a key. */
function uniqueKeys(books: readonly Book[]): { key: string; book: Book }[] {
  const seen = new Map<string, number>();
  return books.map((book) => {
    const base = citationKey(book);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    return { key: count === 0 ? base : `${base}${String.fromCharCode(96 + count)}`, book };
  });
}
