import { Agent } from '@agent-bundle/runtime';
import { events } from 'agent-bundle/routes';

/**
 * After the agent writes a reading note (a file under a `notes/` folder) or a BibTeX file, remind
 * it to keep the catalog in step. Any other write gets no answer at all, so the hook costs the
 * conversation nothing.
 *
 * `tools: ['file.write']` lets the runtime skip every other tool before this handler runs; the
 * handler only has to look at which file was written. `fallback: 'standalone'`: when no warm
 * runtime answers, the hook starts the render worker once (about 100 ms), well inside 2 s.
 *
 * `targets`: the hosts that run hooks (a portable build carries none, so it leaves them out).
 */
export default events.tool.after(
  {
    tools: ['file.write'],
    timeoutMs: 2000,
    fallback: 'standalone',
    targets: ['claude', 'codex', 'cursor'],
  },
  ({ canonical }) => {
    const written = writtenPaths(canonical.tool?.input).filter(isReadingNoteOrBibliography);
    if (written.length === 0) return null;

    const files = written.map((path) => `\`${path}\``).join(', ');
    return (
      <Agent.Context>
        {`You just wrote ${files}. If it mentions books, keep the curator catalog in step: find them with search_books, ` +
          'move finished ones with shelve_book, and refresh .bib files with export_bibliography rather than editing ' +
          'entries by hand.'}
      </Agent.Context>
    );
  },
);

/**
 * The paths a file-writing tool wrote. Hosts shape the input differently: Claude's and Cursor's
 * edit tools carry a `file_path`; Codex's `apply_patch` carries a patch whose headers name the
 * files (`*** Update File: notes/earthsea.md`).
 */
function writtenPaths(input: unknown): string[] {
  if (typeof input === 'string') return patchedPaths(input);
  if (typeof input !== 'object' || input === null) return [];
  const fields = input as Record<string, unknown>;
  for (const key of ['file_path', 'filePath', 'path']) {
    const value = fields[key];
    if (typeof value === 'string') return [value];
  }
  return typeof fields.command === 'string' ? patchedPaths(fields.command) : [];
}

function patchedPaths(patch: string): string[] {
  return [...patch.matchAll(/^\*\*\* (?:Add|Update) File: (.+)$|^\*\*\* Move to: (.+)$/gm)].flatMap((match) => {
    const path = match[1] ?? match[2];
    return path === undefined ? [] : [path.trim()];
  });
}

function isReadingNoteOrBibliography(path: string): boolean {
  const normalized = path.replaceAll('\\', '/');
  return normalized.endsWith('.bib') || /(^|\/)notes\//.test(normalized);
}
