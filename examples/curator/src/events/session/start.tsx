import { Agent, agent } from '@agent-bundle/runtime';
import { events } from 'agent-bundle/routes';
import type { CatalogClient } from '../../data/catalog-client';
import { plural } from '../../lib/markdown';

/**
 * When a session starts, tell the agent what the user is reading, so "what should I read next?"
 * or "add my notes on the Le Guin" needs no lookup first.
 *
 * `fallback: 'standalone'`: at the very start of a session the MCP server (the warm runtime) may
 * not be up yet, and this context is worth a cold worker start.
 *
 * `targets`: the hosts that run hooks (a portable build carries none, so it leaves them out).
 */
export default events.session.start(
  { timeoutMs: 5000, fallback: 'standalone', targets: ['claude', 'codex', 'cursor'] },
  async () => {
    const catalog = await agent().provider<CatalogClient>('catalog');
    const reading = catalog.onShelf('reading');
    const upNext = catalog.onShelf('to-read').slice(0, 3);
    const unshelved = catalog.onShelf(null);

    const lines = [
      `The user keeps a library catalog of ${plural(catalog.size, 'book')}, managed with the curator tools ` +
        '(search_books, shelve_book, show_shelf, catalog_audit, export_bibliography).',
      reading.length === 0
        ? 'They are not reading anything right now.'
        : `Currently reading: ${reading.map((book) => `*${book.title}* (${book.authors.join(', ')})`).join('; ')}.`,
      ...(upNext.length === 0 ? [] : [`Next on the to-read shelf: ${upNext.map((book) => `*${book.title}*`).join(', ')}.`]),
      ...(unshelved.length === 0
        ? []
        : [`${plural(unshelved.length, 'book')} still unshelved; offer to sort them if books come up.`]),
    ];
    return <Agent.Context>{lines.join('\n')}</Agent.Context>;
  },
);
