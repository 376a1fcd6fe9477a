import { Agent, useAgent } from '@agent-bundle/runtime';
import type { PromptConfig } from 'agent-bundle/routes';
import { z } from 'zod';
import type { CatalogClient } from '../../../data/catalog-client';

/**
 * A prompt the user picks from the client's prompt menu ("/review_request"): it asks the agent to
 * write a short review of one book, with the catalog's facts filled in so the agent does not have
 * to look them up.
 */
export const config = {
  title: 'Request a book review',
  description: 'Ask for a review of a catalogued book, focused on its themes, its writing or what to read next.',
} satisfies PromptConfig;

export const inputSchema = z.object({
  bookId: z.string().min(1).max(80).describe('The book to review, e.g. "middlemarch"'),
  focus: z
    .enum(['themes', 'writing', 'ideas', 'what-next'])
    .default('themes')
    .describe('What the review should dwell on'),
  length: z.enum(['short', 'detailed']).default('short').describe('A paragraph, or a few sections'),
});

export const resultSchema = z.undefined();

const FOCUS = {
  themes: 'the themes it explores and how they connect',
  writing: 'the style, structure and voice of the writing',
  ideas: 'the central ideas and how well they hold up today',
  'what-next': 'which books in the catalog to read next, and why',
} as const;

export default async function ReviewRequest({ input }: { input: z.output<typeof inputSchema> }) {
  const catalog = await useAgent().provider<CatalogClient>('catalog');
  const book = catalog.get(input.bookId);
  if (book === undefined) {
    return <Agent.Error code="not-found" message={`No book has the id "${input.bookId}".`} />;
  }
  const size = input.length === 'short' ? 'one paragraph' : 'three to five short sections with headings';
  const status = book.shelf === 'finished' ? 'I have finished it' : `it is on my ${book.shelf ?? 'unsorted'} pile`;
  const rating = book.rating === undefined ? '' : ` I rated it ${book.rating} out of 5.`;
  return (
    <Agent.Markdown>
      {`Please write a review of *${book.title}* by ${book.authors.join(' and ')} (${book.year}); ${status}.${rating}\n\n` +
        `Focus on ${FOCUS[input.focus]}. Keep it to ${size}, and name the passages or chapters you draw on.`}
    </Agent.Markdown>
  );
}
