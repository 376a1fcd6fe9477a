#!/usr/bin/env node
// `npm create abgen [DIR]`: runs `abgen init [DIR]` of the `abgen` package this one depends on
// (exactly its version), so both paths write the same project.
'use strict';

const { spawnSync } = require('node:child_process');

const shim = require.resolve('abgen/bin/abgen.js');
const result = spawnSync(process.execPath, [shim, 'init', ...process.argv.slice(2)], { stdio: 'inherit' });
if (result.error) {
  process.stderr.write(`create-abgen: cannot run abgen: ${result.error.message}\n`);
  process.exit(1);
}
if (result.signal) process.kill(process.pid, result.signal);
process.exit(result.status ?? 1);
