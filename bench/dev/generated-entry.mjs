// The render worker entry of the shape `abgen build` generates (the runtime's `startWorker` with
// every module under `src/` imported lazily), for the benchmarks of this folder.
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Every `.ts`/`.tsx` module under `dir`, relative to `project`. */
function modules(project, dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return modules(project, path);
    return /\.tsx?$/.test(entry.name) ? [relative(project, path)] : [];
  });
}

/**
 * The entry's source for `project`, and `route`: the absolute path of its first tool route, the
 * file a benchmark round rewrites.
 */
export function generatedEntry(project) {
  const sources = modules(project, join(project, 'src')).sort();
  const route = join(project, sources.find((path) => path.includes('/tools/')));
  const entry = [
    "import { startWorker } from '@agent-bundle/runtime/worker';",
    'startWorker({',
    '  protocol: 7,',
    "  artifact: 'bench',",
    '  routes: {',
    ...sources.map((path) => `    ${JSON.stringify(path)}: () => import(${JSON.stringify(`./${path}`)}),`),
    '  },',
    '});',
  ].join('\n');
  return { entry, route };
}
