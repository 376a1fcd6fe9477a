import type { AppConfig } from 'agent-bundle/routes';
import { useToolResult } from '../../../lib/app-bridge';

/**
 * An MCP App: a small HTML view of one shelf, shown by clients that support MCP Apps when
 * `show_shelf` runs (the tool links here through `_meta.ui.resourceUri`). Unlike the other routes
 * it runs in the client's sandboxed browser frame, so it renders ordinary DOM elements, not an
 * Agent Document.
 */
export const config = {
  resourceUri: 'ui://curator/shelf-viewer',
  title: 'Shelf viewer',
  description: 'A table of the books on one shelf, with ratings.',
} satisfies AppConfig;

interface ShelfView {
  shelf: string;
  books: { id: string; title: string; authors: string[]; year: number; rating?: number }[];
}

export default function ShelfViewer() {
  const result = useToolResult('curator-shelf-viewer');
  if (!isShelfView(result)) {
    return <p style={{ fontFamily: 'system-ui', color: '#666' }}>Waiting for a shelf…</p>;
  }
  return (
    <section style={{ fontFamily: 'system-ui', padding: 12 }}>
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
    </section>
  );
}

function isShelfView(value: unknown): value is ShelfView {
  return typeof value === 'object' && value !== null && 'shelf' in value && Array.isArray((value as ShelfView).books);
}
