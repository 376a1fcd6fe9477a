/**
 * Small Markdown helpers shared by the routes, so every tool lists books the same way.
 */

import type { Book } from '../data/catalog';

/** `**The Dispossessed** — Ursula K. Le Guin (1974) · finished · ★★★★★ · \`dispossessed\`` */
export function bookLine(book: Book): string {
  const parts = [
    `**${book.title}** — ${book.authors.join(', ')} (${book.year})`,
    book.shelf ?? 'unshelved',
    ...(book.rating === undefined ? [] : ['★'.repeat(book.rating)]),
    `\`${book.id}\``,
  ];
  return parts.join(' · ');
}

/** A bulleted list, or `fallback` in italics when there is nothing to list. */
export function bulletList(lines: readonly string[], fallback: string): string {
  return lines.length === 0 ? `_${fallback}_` : lines.map((line) => `- ${line}`).join('\n');
}

/** `1 book`, `3 books`. */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
