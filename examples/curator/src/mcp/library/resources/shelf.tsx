import { Agent, useAgent } from '@agent-bundle/runtime';
import type { ResourceConfig } from 'agent-bundle/routes';
import { z } from 'zod';
import type { Shelf } from '../../../data/catalog';
import type { CatalogClient } from '../../../data/catalog-client';
import { bookLine, bulletList, plural } from '../../../lib/markdown';

/**
 * The reading shelf as one Markdown document, for clients that attach resources to a
 * conversation. Written in the config-export form: a static `config`, named schema exports and an
 * async default component.
 */
export const config = {
  uri: 'curator://shelf',
  mimeType: 'text/markdown',
  title: 'Reading shelf',
  description: 'Every shelf of the catalog with its books, plus the unshelved ones.',
} satisfies ResourceConfig;

export const inputSchema = z.object({});

/** Text only: the document is the Markdown, there is no structured value. */
export const resultSchema = z.undefined();

const SECTIONS: readonly [Shelf | null, string][] = [
  ['reading', 'Reading now'],
  ['to-read', 'To read'],
  ['finished', 'Finished'],
  ['reference', 'Reference'],
  [null, 'Unshelved'],
];

export default async function ShelfResource() {
  const catalog = await useAgent().provider<CatalogClient>('catalog');
  const sections = SECTIONS.map(([shelf, heading]) => {
    const books = catalog.onShelf(shelf);
    return `## ${heading} (${books.length})\n\n${bulletList(books.map(bookLine), 'Empty.')}`;
  });
  return (
    <Agent.Markdown>{`# Reading shelf\n\n${plural(catalog.size, 'book')} in the catalog.\n\n${sections.join('\n\n')}`}</Agent.Markdown>
  );
}
