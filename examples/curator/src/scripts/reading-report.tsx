import { Agent, useAgent } from '@agent-bundle/runtime';
import type { CliRouteConfig } from 'agent-bundle/routes';
import type { CatalogClient } from '../data/catalog-client';
import { plural } from '../lib/markdown';

/**
 * `curator run reading-report`: a rendered script. It renders through the same path as a command
 * (piped Markdown, `--json`, `--ndjson`, the live terminal) and observes `kind: 'script'`.
 */
export const config = {
  description: 'Count the books on every shelf',
} satisfies CliRouteConfig;

const SHELVES = ['to-read', 'reading', 'finished', 'reference'] as const;

export default async function ReadingReport() {
  const catalog = await useAgent().provider<CatalogClient>('catalog');
  const counts = Object.fromEntries(SHELVES.map((shelf) => [shelf, catalog.onShelf(shelf).length]));
  const rows = SHELVES.map((shelf) => `| ${shelf} | ${counts[shelf]} |`).join('\n');
  return (
    <Agent.Result value={{ total: catalog.size, shelves: counts }}>
      <Agent.Markdown>
        {`# Reading report\n\n${plural(catalog.size, 'book')} in the catalog.\n\n| shelf | books |\n| --- | --- |\n${rows}`}
      </Agent.Markdown>
    </Agent.Result>
  );
}
