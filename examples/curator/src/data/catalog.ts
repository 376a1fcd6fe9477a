/**
 * The curator's catalog: a small, in-repo collection so the example runs with no network and no
 * database. A real plugin would load its catalog from a file or a service inside the provider
 * (`src/providers/catalog.ts`); the routes only ever see the client.
 *
 * Not a route: files under `src/data/` match no convention, so the compiler bundles them only
 * because routes import them.
 */

/** Where a book sits. A book on no shelf is "unshelved": catalogued but not yet sorted. */
export type Shelf = 'to-read' | 'reading' | 'finished' | 'reference';

export type Genre =
  | 'fiction'
  | 'science-fiction'
  | 'fantasy'
  | 'history'
  | 'science'
  | 'philosophy'
  | 'poetry'
  | 'biography'
  | 'technology';

export interface Book {
  /** A stable slug, used in tool inputs (`dispossessed`). */
  readonly id: string;
  readonly title: string;
  readonly authors: readonly string[];
  /** Year of first publication of this edition. */
  readonly year: number;
  readonly genre: Genre;
  readonly publisher?: string;
  readonly pages: number;
  readonly tags: readonly string[];
  /** `null` while the book is unshelved. */
  shelf: Shelf | null;
  /** 1–5, given once the book is finished. */
  rating?: number;
  /** ISO date the book entered the catalog. */
  readonly addedOn: string;
  /** ISO date the book moved to the `reading` shelf. */
  startedOn?: string;
}

/** The seed catalog. The client copies it, so shelving never mutates this list. */
export const BOOKS: readonly Book[] = [
  {
    id: 'dispossessed',
    title: 'The Dispossessed',
    authors: ['Ursula K. Le Guin'],
    year: 1974,
    genre: 'science-fiction',
    publisher: 'Harper & Row',
    pages: 341,
    tags: ['anarchism', 'utopia', 'physics'],
    shelf: 'finished',
    rating: 5,
    addedOn: '2026-01-12',
  },
  {
    id: 'left-hand-of-darkness',
    title: 'The Left Hand of Darkness',
    authors: ['Ursula K. Le Guin'],
    year: 1969,
    genre: 'science-fiction',
    publisher: 'Ace Books',
    pages: 286,
    tags: ['gender', 'diplomacy', 'winter'],
    shelf: 'reading',
    addedOn: '2026-02-03',
    startedOn: '2026-10-20',
  },
  {
    id: 'wizard-of-earthsea',
    title: 'A Wizard of Earthsea',
    authors: ['Ursula K. Le Guin'],
    year: 1968,
    genre: 'fantasy',
    publisher: 'Parnassus Press',
    pages: 205,
    tags: ['magic', 'coming-of-age', 'islands'],
    shelf: 'to-read',
    addedOn: '2026-02-03',
  },
  {
    id: 'middlemarch',
    title: 'Middlemarch',
    authors: ['George Eliot'],
    year: 1871,
    genre: 'fiction',
    publisher: 'William Blackwood and Sons',
    pages: 880,
    tags: ['provincial-life', 'marriage', 'reform'],
    shelf: 'to-read',
    addedOn: '2026-03-21',
  },
  {
    id: 'name-of-the-rose',
    title: 'The Name of the Rose',
    authors: ['Umberto Eco'],
    year: 1980,
    genre: 'fiction',
    publisher: 'Bompiani',
    pages: 512,
    tags: ['mystery', 'monastery', 'semiotics'],
    shelf: 'to-read',
    addedOn: '2026-05-02',
  },
  {
    id: 'invisible-cities',
    title: 'Invisible Cities',
    authors: ['Italo Calvino'],
    year: 1972,
    genre: 'fiction',
    publisher: 'Einaudi',
    pages: 165,
    tags: ['cities', 'memory', 'venice'],
    shelf: null,
    addedOn: '2026-11-02',
  },
  {
    id: 'invisible-cities-en',
    title: 'Invisible Cities',
    authors: ['Italo Calvino'],
    year: 1974,
    genre: 'fiction',
    publisher: 'Harcourt Brace Jovanovich',
    pages: 165,
    tags: ['cities', 'translation'],
    shelf: 'finished',
    addedOn: '2026-04-18',
  },
  {
    id: 'periodic-table',
    title: 'The Periodic Table',
    authors: ['Primo Levi'],
    year: 1975,
    genre: 'biography',
    publisher: 'Einaudi',
    pages: 233,
    tags: ['chemistry', 'memoir', 'elements'],
    shelf: 'finished',
    rating: 5,
    addedOn: '2026-01-30',
  },
  {
    id: 'guns-of-august',
    title: 'The Guns of August',
    authors: ['Barbara W. Tuchman'],
    year: 1962,
    genre: 'history',
    publisher: 'Macmillan',
    pages: 511,
    tags: ['first-world-war', '1914', 'diplomacy'],
    shelf: null,
    addedOn: '2026-11-09',
  },
  {
    id: 'structure-of-scientific-revolutions',
    title: 'The Structure of Scientific Revolutions',
    authors: ['Thomas S. Kuhn'],
    year: 1962,
    genre: 'philosophy',
    publisher: 'University of Chicago Press',
    pages: 172,
    tags: ['paradigms', 'history-of-science'],
    shelf: 'reference',
    addedOn: '2026-02-14',
  },
  {
    id: 'meditations',
    title: 'Meditations',
    authors: ['Marcus Aurelius'],
    year: 180,
    genre: 'philosophy',
    pages: 254,
    tags: ['stoicism', 'ethics'],
    shelf: 'reference',
    addedOn: '2026-01-05',
  },
  {
    id: 'godel-escher-bach',
    title: 'Gödel, Escher, Bach',
    authors: ['Douglas R. Hofstadter'],
    year: 1979,
    genre: 'science',
    publisher: 'Basic Books',
    pages: 777,
    tags: ['recursion', 'consciousness', 'logic'],
    shelf: 'reading',
    addedOn: '2026-03-01',
    startedOn: '2026-06-11',
  },
  {
    id: 'selfish-gene',
    title: 'The Selfish Gene',
    authors: ['Richard Dawkins'],
    year: 1976,
    genre: 'science',
    publisher: 'Oxford University Press',
    pages: 224,
    tags: ['evolution', 'genetics'],
    shelf: 'finished',
    addedOn: '2026-06-25',
  },
  {
    id: 'sicp',
    title: 'Structure and Interpretation of Computer Programs',
    authors: ['Harold Abelson', 'Gerald Jay Sussman'],
    year: 1985,
    genre: 'technology',
    publisher: 'MIT Press',
    pages: 542,
    tags: ['programming', 'scheme', 'abstraction'],
    shelf: 'reference',
    addedOn: '2026-01-05',
  },
  {
    id: 'mythical-man-month',
    title: 'The Mythical Man-Month',
    authors: ['Frederick P. Brooks Jr.'],
    year: 1975,
    genre: 'technology',
    publisher: 'Addison-Wesley',
    pages: 195,
    tags: ['software-engineering', 'management'],
    shelf: 'finished',
    rating: 4,
    addedOn: '2026-07-08',
  },
  {
    id: 'leaves-of-grass',
    title: 'Leaves of Grass',
    authors: ['Walt Whitman'],
    year: 1855,
    genre: 'poetry',
    pages: 95,
    tags: ['america', 'free-verse'],
    shelf: null,
    addedOn: '2026-11-20',
  },
];
