// React's Flight server as the worker bundles it: two rewrites that keep a cold start from
// loading Node modules most renders never use. Both bundlers of the worker apply them through
// `buildWorker` (scripts/code-cache.mjs). A React build that does not spell either place as
// written here fails the bundle rather than silently load the module again.
//
// 1. The `FormData` check. React's serializer asks, for every plain object it serializes,
//    whether it is a `FormData`: `"function" === typeof FormData && value instanceof FormData`.
//    On Node, `FormData` is a lazy global: reading it loads Node's bundled `undici` (its fetch,
//    streams and HTTP parser), 15–24 ms of a cold render. The bundle asks the value first: an
//    instance of the global `FormData` (or of a subclass) carries the `FormData` string tag on
//    its prototype, so a value without it cannot be one, and the global is read only for a value
//    that has it. The answer is React's own for every value but one that lies about its tag,
//    which still goes through React's check.
// 2. `require("crypto");`. React's Node server build loads `crypto` as a bare statement whose
//    result it never reads (its production build names nothing from it). The statement is
//    dropped; with the plugin axis's digest no longer taken by `node:crypto` (state-root.mjs),
//    a cold start loads 18 fewer built-in modules.

import { readFile } from 'node:fs/promises';

/** React's check, as both of its server builds spell it. */
const REACT_FORM_DATA_CHECK = '"function" === typeof FormData && value instanceof FormData';

/** The same check, reading the global only for a value tagged `FormData`. */
const TAG_FIRST_CHECK = `"FormData" === value[Symbol.toStringTag] && ${REACT_FORM_DATA_CHECK}`;

/** React's Node server build loads `crypto` for nothing, on a line of its own. */
const UNUSED_CRYPTO_REQUIRE = '\nrequire("crypto");\n';

/** React's server builds of react-server-dom-webpack, the files that hold the check. */
const REACT_SERVER_BUILD = /[\\/]react-server-dom-webpack[\\/]cjs[\\/]react-server-dom-webpack-server\.[a-z]+\.(production|development)\.js$/;

/** The Node builds, the ones that load `crypto`. */
const REACT_NODE_PRODUCTION_BUILD = /server\.node\.production\.js$/;

/**
 * The esbuild plugin that rewrites React's server build.
 * @returns {import('esbuild').Plugin}
 */
export function reactServerBuildPlugin() {
  return {
    name: 'abgen-react-server-build',
    setup(build) {
      build.onLoad({ filter: REACT_SERVER_BUILD }, async ({ path }) => {
        let source = await readFile(path, 'utf8');
        const unexpected = (what) => ({
          errors: [
            {
              text: `React's Flight server at ${path} no longer ${what} as abgen's worker expects; the worker is pinned to the React version it was written against`,
            },
          ],
        });
        if (!source.includes(REACT_FORM_DATA_CHECK)) {
          return unexpected(`checks for FormData (\`${REACT_FORM_DATA_CHECK}\`)`);
        }
        source = source.replaceAll(REACT_FORM_DATA_CHECK, TAG_FIRST_CHECK);
        if (REACT_NODE_PRODUCTION_BUILD.test(path)) {
          // Only the bare statement: a build that binds or reads `crypto` keeps it.
          if (!source.includes(UNUSED_CRYPTO_REQUIRE) || /\bcrypto\./.test(source)) {
            return unexpected('loads `crypto` as a bare `require("crypto");` it never reads');
          }
          source = source.replace(UNUSED_CRYPTO_REQUIRE, '\n');
        }
        return { contents: source, loader: 'js' };
      });
    },
  };
}
