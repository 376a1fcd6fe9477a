// The artifact digest as a render worker reads it at every cold start. The worker's loader
// (code-cache.mjs, which carries this function's text) and its entry (templates/worker-entry.mjs.j2,
// which imports it as `@agent-bundle/runtime/manifest-digest`) both need it before the hello.

import { closeSync, openSync, readFileSync, readSync } from 'node:fs';

/**
 * The `digest` of the artifact manifest at `manifestPath`, or undefined when it cannot be read.
 * The manifest abgen writes is canonical (keys sorted, two spaces of indent, one member a line),
 * so its top-level `digest` stands on a line of its own near the top, before `files` and the
 * routes, which make a large plugin's manifest megabytes long: only the head is read, up to that
 * line. A manifest in any other layout is read whole.
 * @param {string} manifestPath
 * @returns {string | undefined}
 */
export function manifestDigest(manifestPath) {
  // No JSON string holds a raw line break, and only the document's own members stand two
  // spaces in: neither line can come from inside a value.
  const digestLine = '\n  "digest": "';
  const filesLine = '\n  "files": ';
  let fd;
  try {
    fd = openSync(manifestPath, 'r');
  } catch {
    return undefined;
  }
  try {
    const chunk = Buffer.alloc(16384);
    let head = '';
    for (;;) {
      const read = readSync(fd, chunk, 0, chunk.length, null);
      // Latin-1 keeps every byte one character, so a UTF-8 text split between two reads is
      // never misread; the lines looked for are ASCII.
      head += chunk.toString('latin1', 0, read);
      const at = head.indexOf(digestLine);
      const end = at < 0 ? -1 : head.indexOf('"', at + digestLine.length);
      if (end >= 0) return head.slice(at + digestLine.length, end);
      if (read === 0 || (at < 0 && head.includes(filesLine))) break;
    }
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
  try {
    const digest = JSON.parse(readFileSync(manifestPath, 'utf8')).digest;
    return typeof digest === 'string' ? digest : undefined;
  } catch {
    return undefined;
  }
}
