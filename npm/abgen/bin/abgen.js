#!/usr/bin/env node
// The `abgen` command of the npm package: runs the native `abgen` of this platform's package
// (`@abgen/<platform>`, an exact-version optional dependency that npm installs only where its
// `os`, `cpu` and `libc` match), or the binary `ABGEN_BINARY` names. No postinstall: nothing
// runs at install time, and a platform without a package is told so here, when abgen runs.
'use strict';

const { spawnSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const path = require('node:path');

/** The platform packages this version of abgen is released for. */
const RELEASED = require('../platforms.json');

/** This machine's platform key: `linux-x64-gnu`, `darwin-arm64`, `win32-x64-msvc`, … */
function platformKey() {
  const { platform, arch } = process;
  if (platform === 'linux') {
    // glibcVersionRuntime is reported only by a Node built against glibc.
    const glibc = process.report?.getReport?.().header?.glibcVersionRuntime;
    return `linux-${arch}-${glibc ? 'gnu' : 'musl'}`;
  }
  if (platform === 'win32') return `win32-${arch}-msvc`;
  return `${platform}-${arch}`;
}

function binaryPath() {
  const override = process.env.ABGEN_BINARY;
  if (override) return override;
  const key = platformKey();
  const executable = process.platform === 'win32' ? 'abgen.exe' : 'abgen';
  try {
    const manifest = require.resolve(`@abgen/${key}/package.json`);
    const binary = path.join(path.dirname(manifest), 'bin', executable);
    if (existsSync(binary)) return binary;
  } catch {
    // Not installed: said below.
  }
  const released = RELEASED.includes(key);
  process.stderr.write(
    released
      ? `abgen: the package @abgen/${key} is not installed. npm installs it with abgen as an optional dependency; reinstall without --omit=optional (or --no-optional), or set ABGEN_BINARY to an abgen binary.\n`
      : `abgen: no abgen binary is released for ${key} (released: ${RELEASED.join(', ')}). Build abgen from source (cargo build --release -p abgen -p abgen-runtime) and set ABGEN_BINARY to it.\n`,
  );
  process.exit(1);
}

const result = spawnSync(binaryPath(), process.argv.slice(2), { stdio: 'inherit' });
if (result.error) {
  process.stderr.write(`abgen: cannot run ${result.error.path ?? 'the abgen binary'}: ${result.error.message}\n`);
  process.exit(1);
}
if (result.signal) {
  // Die of the same signal, so a caller sees what the binary saw.
  process.kill(process.pid, result.signal);
}
process.exit(result.status ?? 1);
