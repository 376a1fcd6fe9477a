// Keeps the first render of a worker from loading Node's fetch implementation.
//
// React's Flight server asks, for every plain object it serializes, whether it is a `FormData`:
// `"function" === typeof FormData && value instanceof FormData`. On Node, `FormData` is a lazy
// global: reading it loads Node's bundled `undici` (its fetch, streams and HTTP parser), 15–24 ms
// of a cold render that most routes never use. The bundle asks the value first: an instance of
// the global `FormData` (or of a subclass) carries the `FormData` string tag on its prototype, so
// a value without it cannot be one, and the global is read only for a value that has it. The
// answer is React's own for every value but one that lies about its tag, which still goes
// through React's check.
//
// Both bundlers of the worker apply it through `buildWorker` (scripts/code-cache.mjs).

import { readFile } from 'node:fs/promises';

/** React's check, as both of its server builds spell it. */
const REACT_FORM_DATA_CHECK = '"function" === typeof FormData && value instanceof FormData';

/** The same check, reading the global only for a value tagged `FormData`. */
const TAG_FIRST_CHECK = `"FormData" === value[Symbol.toStringTag] && ${REACT_FORM_DATA_CHECK}`;

/** React's server builds of react-server-dom-webpack, the files that hold the check. */
const REACT_SERVER_BUILD = /[\\/]react-server-dom-webpack[\\/]cjs[\\/]react-server-dom-webpack-server\.[a-z]+\.(production|development)\.js$/;

/**
 * The esbuild plugin that rewrites React's check in its server build. A build of React that
 * does not spell it this way fails the bundle rather than silently load `undici` again.
 * @returns {import('esbuild').Plugin}
 */
export function lazyFormDataPlugin() {
  return {
    name: 'abgen-lazy-form-data',
    setup(build) {
      build.onLoad({ filter: REACT_SERVER_BUILD }, async ({ path }) => {
        const source = await readFile(path, 'utf8');
        if (!source.includes(REACT_FORM_DATA_CHECK)) {
          return {
            errors: [
              {
                text: `React's Flight server at ${path} no longer checks for FormData as abgen's worker expects (\`${REACT_FORM_DATA_CHECK}\`); the worker is pinned to the React version it was written against`,
              },
            ],
          };
        }
        return { contents: source.replaceAll(REACT_FORM_DATA_CHECK, TAG_FIRST_CHECK), loader: 'js' };
      });
    },
  };
}
