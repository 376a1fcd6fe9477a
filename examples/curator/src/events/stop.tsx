import { Agent, agent } from '@agent-bundle/runtime';
import { events } from 'agent-bundle/routes';
import type { CatalogClient } from '../data/catalog-client';
import { plural } from '../lib/markdown';

/**
 * Sessions in which the user has already been reminded. Module state lives as long as the render
 * worker, so with the warm runtime the notice appears once per session, not after every turn.
 */
const reminded = new Set<string>();

/**
 * When the agent finishes its turn, tell the user (not the agent) how many books are still
 * unshelved, once per session. With nothing unshelved, or already reminded, the route answers
 * nothing and the turn ends as usual; it never holds the agent back.
 *
 * `targets`: the hosts that run hooks (a portable build carries none, so it leaves them out).
 */
export default events.stop(
  { timeoutMs: 2000, targets: ['claude', 'codex', 'cursor'] },
  async ({ canonical }) => {
    const session = canonical.session.state === 'available' ? canonical.session.value : undefined;
    if (session !== undefined && reminded.has(session)) return null;

    const catalog = await agent().provider<CatalogClient>('catalog');
    const unshelved = catalog.onShelf(null);
    if (unshelved.length === 0) return null;
    if (session !== undefined) reminded.add(session);

    const titles = unshelved.slice(0, 3).map((book) => book.title);
    const more = unshelved.length > titles.length ? ', …' : '';
    return (
      <Agent.Notice>
        {`Curator: ${plural(unshelved.length, 'book')} still unshelved (${titles.join(', ')}${more}). ` +
          'Ask me to sort them onto shelves when you have a moment.'}
      </Agent.Notice>
    );
  },
);
