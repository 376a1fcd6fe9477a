// The curator's own command line through agent-bundle/test: `invokeCli` runs `bin/curator` as
// `abgen-host cli` does (the same code) and `runScript` its rendered scripts, on the harness's
// kernel, with the terminal the `tty` knob shapes. Piped, a command prints its final document as
// Markdown; on the knob's terminal it draws the live progress line first.

import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createHarness } from 'agent-bundle/test';

const harness = createHarness({ root: new URL('..', import.meta.url) });
after(() => harness.dispose());

/** Where a terminal's line is erased for a redraw. */
const REDRAW = '\r\x1b[2K';

describe('invokeCli', () => {
  it('runs the src/cli command `shelf list` with flags from its input schema', async () => {
    const piped = await harness.invokeCli(['shelf', 'list', '--shelf', 'finished']);
    assert.equal(piped.exitCode, 0, piped.stderr);
    assert.match(piped.stdout, /^5 books on finished\.\n\n- \*\*Invisible Cities\*\*/);
    assert.equal(piped.stderr, '');
    const json = await harness.invokeCli(['shelf', 'list', '--shelf', 'reference', '--json']);
    const value = JSON.parse(json.stdout);
    assert.equal(value.shelf, 'reference');
    assert.equal(value.books.length, 3);
  });

  it('runs search_books as `find`, its search_books.cli.ts projection, with the tool’s flags', async () => {
    const projected = await harness.invokeCli(['find', '--query', 'le guin', '--limit', '1', '--json']);
    assert.equal(projected.exitCode, 0, projected.stderr);
    const direct = await harness.invokeCli(['library', 'search_books', '--query', 'le guin', '--limit', '1', '--json']);
    assert.deepEqual(JSON.parse(projected.stdout), JSON.parse(direct.stdout), 'one operation, two commands');
    const help = await harness.invokeCli(['find', '--help']);
    assert.match(help.stdout, /^Usage: curator find \[flags\]\n\nFind books in the catalog/);
    assert.match(help.stdout, /--query <text>/);
  });

  it('draws the progress line only on the tty knob’s terminal', async () => {
    const args = ['library', 'catalog_audit', '--checks', 'unrated'];
    const piped = await harness.invokeCli(args);
    assert.equal(piped.exitCode, 0, piped.stderr);
    assert.ok(!piped.stdout.includes('Auditing the catalog'), piped.stdout);
    assert.ok(!piped.stdout.includes('\x1b'), piped.stdout);
    const tty = await harness.invokeCli(args, { tty: { columns: 60 } });
    assert.equal(tty.exitCode, 0, tty.stderr);
    assert.ok(tty.stdout.includes(`${REDRAW}… Auditing the catalog (0/1)`), JSON.stringify(tty.stdout));
    const final = tty.stdout.split(REDRAW).at(-1);
    assert.match(final, /^# Catalog audit\n/, 'the document follows the last erase');
  });

  it('is a usage error (exit 2) for a flag value the schema refuses, one JSON line under --json', async () => {
    const plain = await harness.invokeCli(['shelf', 'list', '--shelf', 'attic']);
    assert.equal(plain.exitCode, 2);
    assert.equal(plain.stdout, '');
    assert.match(plain.stderr, /Invalid value for --shelf: expected one of to-read, reading, finished, reference, unshelved; received "attic"/);
    const json = await harness.invokeCli(['shelf', 'list', '--shelf', 'attic', '--json']);
    assert.equal(json.exitCode, 2);
    assert.equal(JSON.parse(json.stderr).error.code, 'CLI_INPUT_INVALID');
  });

  it('asks before a tool that changes things: --yes without a terminal, the answer with one', async () => {
    const args = ['library', 'shelve_book', '--book-id', 'dispossessed', '--shelf', 'finished'];
    const unasked = await harness.invokeCli(args);
    assert.equal(unasked.exitCode, 2);
    assert.match(unasked.stderr, /pass --yes/);
    const declined = await harness.invokeCli(args, { tty: true, confirm: false });
    assert.equal(declined.exitCode, 1);
    assert.match(declined.stderr, /not run/);
    assert.equal(declined.stdout, '');
  });

  it('lists the command, the scripts and web in --help', async () => {
    const help = await harness.invokeCli(['--help']);
    assert.equal(help.exitCode, 0);
    assert.match(help.stdout, /\n {2}shelf list +List the books on one shelf\n/);
    assert.match(help.stdout, /\n {2}run <script> /);
    assert.match(help.stdout, /\n {2}web /);
  });
});

describe('runScript', () => {
  it('renders the rendered script `reading-report` as Markdown, JSON and on the knob’s terminal', async () => {
    const piped = await harness.runScript('reading-report');
    assert.equal(piped.exitCode, 0, piped.stderr);
    assert.match(piped.stdout, /^# Reading report\n\n16 books in the catalog\.\n/);
    const json = await harness.runScript('reading-report', ['--json']);
    assert.deepEqual(Object.keys(JSON.parse(json.stdout).shelves), ['to-read', 'reading', 'finished', 'reference']);
    const tty = await harness.runScript('reading-report', [], { tty: true });
    assert.equal(tty.exitCode, 0, tty.stderr);
    assert.ok(tty.stdout.includes('# Reading report'), tty.stdout);
  });

  it('runs the plain script `export-ids` with node: its own stdout, arguments and exit code', async () => {
    const finished = await harness.runScript('export-ids', ['finished']);
    assert.equal(finished.exitCode, 0, finished.stderr);
    assert.equal(finished.stdout, 'dispossessed\ninvisible-cities-en\nperiodic-table\nselfish-gene\nmythical-man-month\n');
    const attic = await harness.runScript('export-ids', ['attic'], { tty: true });
    assert.equal(attic.exitCode, 1);
    assert.equal(attic.stdout, '');
    assert.equal(attic.stderr, 'no book is on the shelf `attic`\n');
  });

  it('is a usage error for a script the plugin does not have', async () => {
    const missing = await harness.runScript('weekly-report');
    assert.equal(missing.exitCode, 2);
    assert.match(missing.stderr, /unknown script `weekly-report`; the scripts are: export-ids, reading-report/);
  });
});
