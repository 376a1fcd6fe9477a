/**
 * The catalog client every route reads through `provider('catalog')`. It owns a private copy of
 * the catalog, so shelving a book changes what later calls see for as long as the render
 * worker (the provider's lifetime) runs, and never the seed data.
 */

import type { Book, Genre, Shelf } from './catalog';

export type ShelfFilter = Shelf | 'unshelved' | 'any';

export interface SearchQuery {
  /** Words that must each appear in the title, an author or a tag (case and accents ignored). */
  readonly text: string;
  readonly genres?: readonly Genre[] | undefined;
  readonly shelf: ShelfFilter;
  readonly published?: { readonly from?: number | undefined; readonly to?: number | undefined } | undefined;
  readonly limit: number;
}

export interface SearchResult {
  /** Matches before `limit` was applied. */
  readonly total: number;
  /** Best match first. */
  readonly books: readonly Book[];
}

export interface ShelveResult {
  readonly book: Book;
  readonly from: Shelf | null;
  readonly to: Shelf;
}

/** The audit checks `catalog_audit` can run. */
export type AuditCheck = 'unshelved' | 'unrated' | 'duplicates' | 'stalled';

export interface AuditFinding {
  readonly check: AuditCheck;
  readonly bookId: string;
  readonly title: string;
  readonly detail: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;

export class CatalogClient {
  readonly #books: Map<string, Book>;
  readonly #today: () => Date;

  /** `today` is injectable so that date-based checks are testable. */
  constructor(books: readonly Book[], today: () => Date = () => new Date()) {
    this.#books = new Map(books.map((book) => [book.id, { ...book }]));
    this.#today = today;
  }

  get size(): number {
    return this.#books.size;
  }

  get(id: string): Book | undefined {
    return this.#books.get(id);
  }

  search(query: SearchQuery): SearchResult {
    const terms = normalize(query.text).split(/\s+/).filter(Boolean);
    const scored: { book: Book; score: number }[] = [];
    for (const book of this.#books.values()) {
      if (!matchesShelf(book, query.shelf)) continue;
      if (query.genres?.length && !query.genres.includes(book.genre)) continue;
      if (query.published?.from !== undefined && book.year < query.published.from) continue;
      if (query.published?.to !== undefined && book.year > query.published.to) continue;
      const score = scoreOf(book, terms);
      if (score > 0) scored.push({ book, score });
    }
    scored.sort((a, b) => b.score - a.score || a.book.title.localeCompare(b.book.title));
    return { total: scored.length, books: scored.slice(0, query.limit).map(({ book }) => book) };
  }

  /** Books on `shelf`, or unshelved books for `null`, by title. */
  onShelf(shelf: Shelf | null): Book[] {
    return [...this.#books.values()]
      .filter((book) => book.shelf === shelf)
      .sort((a, b) => a.title.localeCompare(b.title));
  }

  /** Moves a book; `undefined` when no book has that id. */
  shelve(id: string, to: Shelf): ShelveResult | undefined {
    const book = this.#books.get(id);
    if (book === undefined) return undefined;
    const from = book.shelf;
    book.shelf = to;
    if (to === 'reading' && from !== 'reading') book.startedOn = isoDate(this.#today());
    return { book, from, to };
  }

  /** Runs one audit check. Async because a real catalog would query its store here. */
  async audit(check: AuditCheck, options: { stalledAfterDays: number }): Promise<AuditFinding[]> {
    const books = [...this.#books.values()];
    const finding = (book: Book, detail: string): AuditFinding => ({ check, bookId: book.id, title: book.title, detail });
    switch (check) {
      case 'unshelved':
        return books.filter((book) => book.shelf === null).map((book) => finding(book, `added ${book.addedOn}, on no shelf`));
      case 'unrated':
        return books
          .filter((book) => book.shelf === 'finished' && book.rating === undefined)
          .map((book) => finding(book, 'finished but not rated'));
      case 'duplicates': {
        const byTitle = new Map<string, Book[]>();
        for (const book of books) {
          const key = normalize(book.title);
          byTitle.set(key, [...(byTitle.get(key) ?? []), book]);
        }
        return [...byTitle.values()]
          .filter((copies) => copies.length > 1)
          .flatMap((copies) =>
            copies.map((book) =>
              finding(book, `same title as ${copies.filter((other) => other !== book).map((other) => other.id).join(', ')}`),
            ),
          );
      }
      case 'stalled': {
        const now = this.#today().getTime();
        return books.flatMap((book) => {
          if (book.shelf !== 'reading' || book.startedOn === undefined) return [];
          const days = Math.floor((now - Date.parse(book.startedOn)) / DAY_MS);
          return days > options.stalledAfterDays ? [finding(book, `reading for ${days} days`)] : [];
        });
      }
    }
  }
}

/** The structured form tools return for a book (what their result schemas describe). */
export function bookSummary(book: Book) {
  const { id, title, authors, year, genre, shelf, rating } = book;
  return { id, title, authors: [...authors], year, genre, shelf, ...(rating === undefined ? {} : { rating }) };
}

/** A BibTeX citation key: first author's surname + year (`leguin1974`, `brooks1975`). */
export function citationKey(book: Book): string {
  return `${surnameOf(book.authors[0] ?? 'anon').replace(/[^a-z0-9]/g, '')}${book.year}`;
}

const NAME_SUFFIXES = new Set(['jr', 'sr', 'ii', 'iii', 'iv']);
const SURNAME_PARTICLES = new Set(['le', 'la', 'de', 'da', 'di', 'du', 'van', 'von', 'der', 'del']);

/** `Ursula K. Le Guin` → `leguin`, `Frederick P. Brooks Jr.` → `brooks`. */
function surnameOf(author: string): string {
  const words = normalize(author).replace(/[.,]/g, '').split(/\s+/).filter(Boolean);
  while (words.length > 1 && NAME_SUFFIXES.has(words.at(-1) ?? '')) words.pop();
  let start = words.length - 1;
  while (start > 1 && SURNAME_PARTICLES.has(words[start - 1] ?? '')) start -= 1;
  return words.slice(start).join('');
}

/** One BibTeX `@book` entry. */
export function bibtexEntry(book: Book, key = citationKey(book)): string {
  const fields: [string, string | number | undefined][] = [
    ['author', book.authors.join(' and ')],
    ['title', `{${book.title}}`],
    ['publisher', book.publisher],
    ['year', book.year],
  ];
  const body = fields
    .filter((field): field is [string, string | number] => field[1] !== undefined)
    .map(([name, value]) => `  ${name} = {${value}}`)
    .join(',\n');
  return `@book{${key},\n${body}\n}`;
}

export function isoDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}

function matchesShelf(book: Book, shelf: ShelfFilter): boolean {
  if (shelf === 'any') return true;
  if (shelf === 'unshelved') return book.shelf === null;
  return book.shelf === shelf;
}

/** Title hits weigh most, then authors, then tags; every term must hit somewhere. */
function scoreOf(book: Book, terms: readonly string[]): number {
  const title = normalize(book.title);
  const authors = normalize(book.authors.join(' '));
  const tags = normalize(book.tags.join(' '));
  let score = 0;
  for (const term of terms) {
    const hit = (title.includes(term) ? 3 : 0) + (authors.includes(term) ? 2 : 0) + (tags.includes(term) ? 1 : 0);
    if (hit === 0) return 0;
    score += hit;
  }
  return score;
}

/** Lowercase without diacritics, so `godel` finds `Gödel`. */
function normalize(text: string): string {
  return text.normalize('NFD').replace(/\p{Diacritic}/gu, '').toLowerCase();
}
