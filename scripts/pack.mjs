// Builds abgen's npm packages as tarballs, the way they would be published (nothing is
// published from here): `abgen` (the bin shim, with esbuild as an exact dependency), the
// platform package of this machine (`@abgen/linux-x64-gnu`: stripped `abgen` and `abgen-host`,
// `os`/`cpu`/`libc` fields), and `agent-bundle` and `@agent-bundle/runtime` compiled to
// JavaScript with declarations, their exports mapped to `dist/`, React and zod as peers (and
// @rsbuild/core as an optional one, for `agent-bundle/rsbuild`), and `create-abgen` (`npm
// create abgen`, which runs `abgen init`).
//
//   node scripts/pack.mjs [--out DIR] [--profile release|debug] [--abgen PATH --abgen-host PATH]
//
// Without `--abgen`/`--abgen-host` it builds both binaries with cargo in the profile (default
// release). Writes DIR/stage/ (rebuilt each run) and DIR/*.tgz (default DIR: target/npm), and
// prints one tarball path per line. `ABGEN_PLATFORMS` (comma-separated) names every platform
// package of a release, for the `abgen` package's optional dependencies; default: this one.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values: options } = parseArgs({
  options: {
    out: { type: 'string', default: join(repo, 'target/npm') },
    profile: { type: 'string', default: 'release' },
    abgen: { type: 'string' },
    'abgen-host': { type: 'string' },
  },
});
const out = resolve(options.out);
const stage = join(out, 'stage');

/** One version for every package: the cargo workspace's. */
const version = /^version\s*=\s*"([^"]+)"/m.exec(readFileSync(join(repo, 'Cargo.toml'), 'utf8'))[1];
const rootManifest = readJson(join(repo, 'package.json'));
const REACT = '19.3.1';
/** The zod versions the schema translator reads as zod 4.6.7 prints them. */
const ZOD_RANGE = '^4.6.7';
const TYPES_REACT_RANGE = '^19.3.3';
/** The Rsbuild major `agent-bundle/rsbuild` is written against. */
const RSBUILD_RANGE = '^2';

function readJson(path) {
  return JSON.parse(readFileSync(path, 'utf8'));
}

function writeJson(path, value) {
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}

function run(command, args, cwd = repo) {
  return execFileSync(command, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
}

/** This machine's platform key, as the shim computes it (`npm/abgen/bin/abgen.js`). */
function platformKey() {
  const { platform, arch } = process;
  if (platform === 'linux') {
    return `linux-${arch}-${process.report.getReport().header.glibcVersionRuntime ? 'gnu' : 'musl'}`;
  }
  return platform === 'win32' ? `win32-${arch}-msvc` : `${platform}-${arch}`;
}

/** The npm `os`, `cpu` and `libc` fields of a platform key. */
function platformFields(key) {
  const [os, cpu, abi] = key.split('-');
  const fields = { os: [os], cpu: [cpu] };
  if (os === 'linux') fields.libc = [abi === 'musl' ? 'musl' : 'glibc'];
  return fields;
}

function binaries() {
  if (options.abgen && options['abgen-host']) {
    return { abgen: resolve(options.abgen), host: resolve(options['abgen-host']) };
  }
  run('cargo', ['build', '--locked', '--profile', options.profile, '-p', 'abgen', '-p', 'abgen-runtime']);
  const dir = join(repo, 'target', options.profile === 'dev' ? 'debug' : options.profile);
  return { abgen: join(dir, 'abgen'), host: join(dir, 'abgen-host') };
}

function packPlatform(key, { abgen, host }) {
  const dir = join(stage, `platform-${key}`);
  mkdirSync(join(dir, 'bin'), { recursive: true });
  for (const [from, name] of [[abgen, 'abgen'], [host, 'abgen-host']]) {
    const to = join(dir, 'bin', name);
    copyFileSync(from, to);
    run('strip', ['--strip-all', to]);
    chmodSync(to, 0o755);
  }
  writeJson(join(dir, 'package.json'), {
    name: `@abgen/${key}`,
    version,
    description: `The abgen compiler and its abgen-host runtime for ${key}`,
    license: 'MIT',
    ...platformFields(key),
    files: ['bin'],
    preferUnplugged: true,
  });
  return dir;
}

function packShim(platforms) {
  const dir = join(stage, 'abgen');
  cpSync(join(repo, 'npm/abgen'), dir, { recursive: true });
  writeJson(join(dir, 'platforms.json'), platforms);
  writeJson(join(dir, 'package.json'), {
    name: 'abgen',
    version,
    description: 'Compile TypeScript agent plugins into native plugins for Claude Code, Codex and Cursor',
    license: 'MIT',
    bin: { abgen: 'bin/abgen.js' },
    files: ['bin', 'platforms.json'],
    engines: { node: '>=20' },
    // abgen requires esbuild from this package's own resolution, never the project's.
    dependencies: { esbuild: rootManifest.devDependencies.esbuild },
    optionalDependencies: Object.fromEntries(platforms.map((key) => [`@abgen/${key}`, version])),
  });
  return dir;
}

/** `npm create abgen`: `abgen init` through the `abgen` package of the same version. */
function packCreate() {
  const dir = join(stage, 'create-abgen');
  cpSync(join(repo, 'npm/create-abgen'), dir, { recursive: true });
  writeJson(join(dir, 'package.json'), {
    name: 'create-abgen',
    version,
    description: 'Start an abgen agent plugin: npm create abgen my-plugin',
    license: 'MIT',
    bin: { 'create-abgen': 'bin/create-abgen.js' },
    files: ['bin'],
    engines: { node: '>=20' },
    dependencies: { abgen: version },
  });
  return dir;
}

/**
 * `./src/x.ts` → `./dist/x.js` (or `.d.ts` for types); a hand-written `.mjs` or `.d.ts` keeps
 * its name (`copyHandWritten` puts it there).
 */
function distPath(source, types) {
  const moved = source.replace(/^\.\/src\//, './dist/');
  if (/\.(d\.ts|mjs)$/.test(moved)) return moved;
  return moved.replace(/\.tsx?$/, types ? '.d.ts' : '.js');
}

/**
 * The entries written as plain JavaScript with their own declarations (`agent-bundle/test`,
 * `agent-bundle/rsbuild`, what they import), which tsc neither compiles nor emits: copied from
 * `src/` to `dist/` as they are.
 */
function copyHandWritten(from, to) {
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    if (entry.isDirectory()) {
      copyHandWritten(source, join(to, entry.name));
    } else if (entry.name.endsWith('.mjs') || entry.name.endsWith('.d.ts')) {
      mkdirSync(to, { recursive: true });
      copyFileSync(source, join(to, entry.name));
    }
  }
}

/** A workspace package compiled to `dist/`, its manifest rewritten for publishing. */
function packLibrary(folder, { peers, optionalPeers }) {
  const source = join(repo, 'packages', folder);
  const dir = join(stage, folder);
  mkdirSync(dir, { recursive: true });
  const tsconfig = join(stage, `tsconfig.${folder}.json`);
  writeJson(tsconfig, {
    extends: join(source, 'tsconfig.json'),
    compilerOptions: {
      noEmit: false,
      declaration: true,
      rewriteRelativeImportExtensions: true,
      rootDir: join(source, 'src'),
      // The stage may be outside the repository, where no node_modules/@types is above it.
      typeRoots: [join(repo, 'node_modules/@types')],
      outDir: join(dir, 'dist'),
    },
    include: [join(source, 'src')],
  });
  execFileSync(process.execPath, [join(repo, 'node_modules/typescript/bin/tsc'), '-p', tsconfig], { stdio: ['ignore', 2, 2] });
  copyHandWritten(join(source, 'src'), join(dir, 'dist'));
  const manifest = readJson(join(source, 'package.json'));
  const exports = {};
  for (const [subpath, target] of Object.entries(manifest.exports)) {
    if (typeof target === 'string') {
      exports[subpath] = target;
      continue;
    }
    exports[subpath] = Object.fromEntries(
      Object.entries(target).map(([condition, path]) => [condition, distPath(path, condition === 'types')]),
    );
  }
  exports['./package.json'] = './package.json';
  const files = ['dist'];
  // Scripts an export names ship as they are (abgen's bundler imports the code-cache rules),
  // with the scripts beside them that they import.
  const scripts = Object.values(manifest.exports).filter((target) => typeof target === 'string' && target.startsWith('./scripts/'));
  for (const target of scripts) {
    if (existsSync(join(dir, target))) continue;
    mkdirSync(join(dir, 'scripts'), { recursive: true });
    copyFileSync(join(source, target), join(dir, target));
    if (!files.includes('scripts')) files.push('scripts');
    for (const [, sibling] of readFileSync(join(source, target), 'utf8').matchAll(/^import [^;]*? from '\.\/([\w.-]+\.mjs)';$/gm)) {
      scripts.push(`./scripts/${sibling}`);
    }
  }
  for (const extra of ['README.md']) {
    if (existsSync(join(source, extra))) copyFileSync(join(source, extra), join(dir, extra));
  }
  const dependencies = { ...manifest.dependencies };
  for (const name of [...Object.keys(peers), ...Object.keys(optionalPeers)]) delete dependencies[name];
  const published = {
    name: manifest.name,
    version,
    description: manifest.description,
    license: 'MIT',
    type: 'module',
    sideEffects: manifest.sideEffects,
    exports,
    files,
    engines: { node: '>=20' },
    ...(Object.keys(dependencies).length > 0 ? { dependencies } : {}),
    peerDependencies: { ...peers, ...optionalPeers },
    peerDependenciesMeta: Object.fromEntries(Object.keys(optionalPeers).map((name) => [name, { optional: true }])),
  };
  writeJson(join(dir, 'package.json'), published);
  return dir;
}

rmSync(stage, { recursive: true, force: true });
mkdirSync(stage, { recursive: true });
const key = platformKey();
const platforms = (process.env.ABGEN_PLATFORMS ?? key).split(',').filter(Boolean);
const dirs = [
  packShim(platforms),
  packPlatform(key, binaries()),
  packCreate(),
  packLibrary('agent-bundle', {
    peers: { react: REACT, zod: ZOD_RANGE },
    optionalPeers: { '@types/react': TYPES_REACT_RANGE, '@modelcontextprotocol/sdk': '^1.32.2', '@rsbuild/core': RSBUILD_RANGE },
  }),
  packLibrary('runtime', {
    peers: { react: REACT, 'react-dom': REACT, 'react-server-dom-webpack': REACT, zod: ZOD_RANGE },
    optionalPeers: { '@types/react': TYPES_REACT_RANGE },
  }),
];
for (const dir of dirs) {
  const packed = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', out], dir));
  process.stdout.write(`${join(out, packed[0].filename)}\n`);
}
