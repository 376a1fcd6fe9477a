// The curator's shelf viewer behind the plugin's own host, `abgen-host web`, run as installed
// from a built curator with its opening call `show_shelf { shelf: 'reading' }` and `--allow
// call-tool`: the steps of curator-steps.mjs, the same ones curator.mjs takes behind ext-apps'
// AppBridge. Writes a screenshot of the host page when a path is given. Prints a JSON summary.
//
// Usage: node curator-in-web-host.mjs <artifact dir> [<screenshot.png>]
import assert from 'node:assert/strict';

import { driveShelfViewer } from './curator-steps.mjs';
import { startWebHost } from './web-host-harness.mjs';

const [artifact, screenshot] = process.argv.slice(2);
assert.ok(artifact, 'usage: node curator-in-web-host.mjs <artifact dir> [<screenshot.png>]');

const host = await startWebHost(artifact, ['library/shelf_viewer', '--input', '{"shelf":"reading"}', '--allow', 'call-tool']);
let summary;
try {
  const frame = await host.open(() => document.querySelector('h2') !== null);
  summary = await driveShelfViewer(frame);
  assert.match(host.log(), /the App calls show_shelf/);
  if (screenshot) await host.page.screenshot({ path: screenshot });
} finally {
  await host.close();
}
process.stdout.write(`${JSON.stringify(summary)}\n`);
