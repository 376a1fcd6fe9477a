import { createAppClient } from 'agent-bundle/app';
import { useTool } from 'agent-bundle/app/react';
import type { AppConfig } from 'agent-bundle/routes';

/**
 * An MCP App: a small HTML view of one shelf, shown by clients that support MCP Apps when
 * `show_shelf` runs (the tool links here through `_meta.ui.resourceUri`). It runs in the client's
 * sandboxed browser frame, so it renders ordinary DOM elements, not an Agent Document; the
 * framework mounts its default export into the document's `#root`.
 */
export const config = {
  resourceUri: 'ui://curator/shelf-viewer',
  title: 'Shelf viewer',
  description: 'A table of the books on one shelf, with ratings.',
} satisfies AppConfig;

const client = createAppClient({ appInfo: { name: 'curator-shelf-viewer', version: '0.1.0' } });
const shelves = ['to-read', 'reading', 'finished', 'reference', 'unshelved'] as const;

export default function ShelfViewer() {
  // The opening `show_shelf` result first, then each shelf picked below: typed from the route.
  const { result, error, pending, call } = useTool(client, 'tool:library/show_shelf');
  return (
    <section style={{ fontFamily: 'system-ui', padding: 12 }}>
      <nav style={{ display: 'flex', gap: 6, marginBottom: 8 }}>
        {shelves.map((shelf) => (
          <button key={shelf} type="button" disabled={pending} onClick={() => void call({ shelf }).catch(() => {})}>
            {shelf}
          </button>
        ))}
      </nav>
      {error !== undefined && <p role="alert" style={{ color: '#a00' }}>{error.message}</p>}
      {result === undefined ? (
        <p style={{ color: '#666' }}>Waiting for a shelf…</p>
      ) : (
        <>
          <h2 style={{ marginTop: 0 }}>
            {result.shelf} <small style={{ color: '#666' }}>({result.books.length})</small>
          </h2>
          <table style={{ borderCollapse: 'collapse', width: '100%' }}>
            <thead>
              <tr>
                <th align="left">Title</th>
                <th align="left">Authors</th>
                <th align="right">Year</th>
                <th align="right">Rating</th>
              </tr>
            </thead>
            <tbody>
              {result.books.map((book) => (
                <tr key={book.id} style={{ borderTop: '1px solid #ddd' }}>
                  <td>{book.title}</td>
                  <td>{book.authors.join(', ')}</td>
                  <td align="right">{book.year}</td>
                  <td align="right">{book.rating === undefined ? '—' : '★'.repeat(book.rating)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}
