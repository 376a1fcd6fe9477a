// Compiles one MCP App to one self-contained HTML document with esbuild and writes a JSON report
// to stdout. Run by `abgen build` as `node esbuild-app.mjs '<request JSON>'`; the request is
// { name, entry, mount, template, absWorkingDir, esbuildFrom, nodePaths, profile, sourcemap }:
// - esbuildFrom: the node_modules folder esbuild is required from; nodePaths: folders searched
//   after the project's own node_modules (only when ABGEN_NODE_MODULES names a fallback);
// - entry: the App module, project-relative; mount: the module default-exports a component
//   that this document mounts into #root (else the module mounts itself);
// - template: a project-relative .html file that replaces the framework shell, or null;
// - profile: 'production' (minified, no source maps) or 'development' (readable);
// - sourcemap: 'inline' for an inline source map, 'external' when the config asked for a map
//   file (refused, naming it: the document must stay one self-contained file), else false.
// The report is { ok: true, html, bytes, gzipBytes, warnings, modules } or
// { ok: false, errors, warnings }; each message is { file, line, column, text, code? }.
// The bundle is a browser bundle: no Node built-ins, the JSX automatic runtime whatever the
// entry's extension, and `agent-bundle/app` resolved to the installed package before tsconfig
// `paths` are consulted, so no mapping can replace the framework's client.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { builtinModules } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';

const request = JSON.parse(process.argv[process.argv.length - 1]);
const root = request.absWorkingDir;
const requireFromToolchain = createRequire(join(request.esbuildFrom, 'abgen-toolchain.cjs'));
const esbuild = requireFromToolchain('esbuild');

// Framework entries that carry the compiler (or Node-only code) and so never belong in a view.
const COMPILER_CARRYING = new Set([
  'agent-bundle',
  'agent-bundle/api',
  'agent-bundle/config',
  'agent-bundle/eval',
  'agent-bundle/rstest',
  'agent-bundle/test',
  'agent-bundle/test/browser',
  'agent-bundle/mcp-entry',
  'agent-bundle/launch-env',
  '@agent-bundle/runtime',
]);
// Specifiers the compiler owns: resolved from the project (or abgen's toolchain) before any
// tsconfig `paths` mapping is read.
const RESERVED = ['agent-bundle/app'];
const NODE_BUILTINS = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

const reserved = {
  name: 'abgen-app-boundary',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      const specifier = args.path;
      if (args.kind === 'entry-point') return undefined;
      if (COMPILER_CARRYING.has(specifier) || specifier.startsWith('@agent-bundle/runtime/')) {
        return {
          errors: [{
            text: `\`${specifier}\` carries compiler or Node-only code and cannot run in an MCP App [AB4837]`,
            detail: 'AB4837',
          }],
        };
      }
      if (NODE_BUILTINS.has(specifier)) {
        return {
          errors: [{
            text: `the Node built-in \`${specifier}\` is not available in an MCP App, which runs in the browser [AB4837]`,
            detail: 'AB4837',
          }],
        };
      }
      if (RESERVED.includes(specifier)) {
        for (const base of [root, ...request.nodePaths.map((path) => dirname(path))]) {
          try {
            const require = createRequire(join(base, 'package.json'));
            return { path: require.resolve(specifier, { conditions: new Set(['browser', 'import', 'default']) }) };
          } catch {
            // the next base
          }
        }
      }
      return undefined;
    });
  },
};

const production = request.profile !== 'development';
const mountSource = (specifier) => `import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
import App from ${JSON.stringify(specifier)};
const root = document.getElementById('root');
if (root === null) throw new Error('The App document has no #root mount point.');
createRoot(root).render(createElement(App));
`;

try {
  const specifier = `./${request.entry}`;
  const entry = request.mount
    ? { stdin: { contents: mountSource(specifier), resolveDir: root, sourcefile: 'abgen-app-mount.js', loader: 'js' } }
    : { entryPoints: [specifier] };
  const result = await esbuild.build({
    ...entry,
    absWorkingDir: root,
    nodePaths: request.nodePaths,
    bundle: true,
    write: false,
    outdir: join(root, '.abgen-app-out'),
    platform: 'browser',
    format: 'esm',
    target: ['es2022'],
    jsx: 'automatic',
    jsxDev: false,
    minify: production,
    sourcemap: request.sourcemap === 'inline' || request.sourcemap === 'external' ? request.sourcemap : false,
    define: { 'process.env.NODE_ENV': production ? '"production"' : '"development"' },
    legalComments: 'none',
    logLevel: 'silent',
    metafile: true,
    plugins: [reserved],
  });
  const outputs = result.outputFiles ?? [];
  const stray = outputs.filter((file) => file.path.endsWith('.map'));
  if (stray.length > 0) {
    throw {
      errors: stray.map((file) => ({
        text: `an external source map (mcp-apps/${basename(file.path)}) would sit beside the App document mcp-apps/${request.name}.html; only inline source maps are allowed`,
        detail: 'external-source-map',
      })),
    };
  }
  const script = outputs.filter((file) => file.path.endsWith('.js')).map((file) => file.text).join('\n');
  const style = outputs.filter((file) => file.path.endsWith('.css')).map((file) => file.text).join('\n');
  const html = documentHtml(script, style);
  const bytes = Buffer.byteLength(html);
  const modules = Object.entries(result.metafile.outputs)
    .flatMap(([, output]) => Object.entries(output.inputs))
    .map(([path, input]) => ({ path: modulePath(path), bytes: input.bytesInOutput }))
    .sort((a, b) => b.bytes - a.bytes || a.path.localeCompare(b.path));
  // The files esbuild read (and the template), so a watch loop can tell when this App is stale.
  const inputs = Object.keys(result.metafile.inputs);
  if (request.template !== null) inputs.push(request.template);
  process.stderr.write(`abgen-inputs:${JSON.stringify(inputs)}\n`);
  process.stdout.write(JSON.stringify({
    ok: true,
    html,
    bytes,
    gzipBytes: gzipSync(html).length,
    warnings: result.warnings.map(message),
    modules,
  }));
} catch (error) {
  process.stdout.write(JSON.stringify({
    ok: false,
    errors: (error.errors ?? [{ text: String(error?.message ?? error) }]).map(message),
    warnings: (error.warnings ?? []).map(message),
  }));
}

/** A module as a reader names it: project-relative, or from its package's `node_modules/`. */
function modulePath(path) {
  const at = path.lastIndexOf('node_modules/');
  return at >= 0 ? path.slice(at) : path;
}

/** One esbuild message as the report carries it. */
function message(entry) {
  const location = entry.location ?? null;
  return {
    file: location?.file ?? null,
    line: location?.line ?? null,
    column: location ? location.column + 1 : null,
    text: entry.text,
    code: entry.detail === 'AB4837' || /\[AB4837\]$/.test(entry.text)
      ? 'AB4837'
      : entry.detail === 'external-source-map' ? 'external-source-map' : null,
  };
}

/** The framework shell, or the App's template with the seed's lang and title rules. */
function documentHtml(script, style) {
  // `</script` inside the bundle would end the inline element early.
  const inlineScript = `<script type="module">${script.replace(/<\/(script)/gi, '<\\/$1')}</script>`;
  const inlineStyle = style.trim() === '' ? '' : `<style>${style.replace(/<\/(style)/gi, '<\\/$1')}</style>`;
  const title = escapeHtml(request.name);
  if (request.template === null) {
    return `<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>${title}</title>\n${inlineStyle}</head>\n<body>\n<div id="root"></div>\n${inlineScript}\n</body>\n</html>\n`;
  }
  let html = readFileSync(join(root, request.template), 'utf8');
  if (!/<html\b[^>]*\blang\s*=/i.test(html)) html = html.replace(/<html\b/i, '<html lang="en"');
  if (!/<title[\s>]/i.test(html)) html = insertBefore(html, /<\/head>/i, `<title>${title}</title>\n`);
  html = insertBefore(html, /<\/head>/i, inlineStyle);
  return insertBefore(html, /<\/body>/i, `${inlineScript}\n`);
}

function insertBefore(html, pattern, text) {
  const match = pattern.exec(html);
  return match ? html.slice(0, match.index) + text + html.slice(match.index) : html + text;
}

function escapeHtml(text) {
  return text.replace(/[&<>"]/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[char]);
}
