import { BOOKS } from '../data/catalog';

/**
 * `curator run export-ids [shelf]`: a plain script. It never enters the renderer: node runs its
 * bundle, whatever it writes is the command's stdout and stderr as written, and the number `main`
 * returns is the exit code. `main` gets the arguments after the script's name and the terminal
 * the command line observed.
 */
export function main(args: string[], terminal?: { stdout: { kind: string } }): number {
  const [shelf] = args;
  const books = BOOKS.filter((book) => shelf === undefined || book.shelf === shelf);
  if (books.length === 0) {
    console.error(`no book is on the shelf \`${shelf}\``);
    return 1;
  }
  // One id a line: made to be piped (`| xargs`), so nothing decorates it, on a terminal or not.
  for (const book of books) process.stdout.write(`${book.id}\n`);
  if (terminal?.stdout.kind === 'tty') console.error(`${books.length} ids`);
  return 0;
}
