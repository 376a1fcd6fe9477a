// The curator's shelf viewer (createAppClient + useTool, mounted by the framework) in headless
// Chromium behind ext-apps' AppBridge, on the built curator's real `library` server: the
// opening `show_shelf` result renders, and a shelf button's typed call round trip renders the
// new shelf. Writes a screenshot when a path is given. Prints a JSON summary.
//
// Usage: node curator.mjs <artifact dir> [<screenshot.png>]
import assert from 'node:assert/strict';

import { driveShelfViewer } from './curator-steps.mjs';
import { startHarness } from './harness.mjs';

const [artifact, screenshot] = process.argv.slice(2);
assert.ok(artifact, 'usage: node curator.mjs <artifact dir> [<screenshot.png>]');

const harness = await startHarness(artifact, 'library');
const summary = {};
try {
  const { mcp } = harness;
  const html = (await mcp.readResource({ uri: 'ui://curator/shelf-viewer' })).contents[0].text;
  const tool = (await mcp.listTools()).tools.find((candidate) => candidate.name === 'show_shelf');
  const opening = await mcp.callTool({ name: 'show_shelf', arguments: { shelf: 'reading' } });
  await harness.open(html, { tool, input: { shelf: 'reading' }, result: opening });
  Object.assign(summary, await driveShelfViewer(await harness.app()));
  assert.equal(summary.opening.rows, opening.structuredContent.books.length);
  const finished = await mcp.callTool({ name: 'show_shelf', arguments: { shelf: 'finished' } });
  assert.equal(summary.called.rows, finished.structuredContent.books.length);
  if (screenshot) await harness.page.screenshot({ path: screenshot });
} finally {
  await harness.close();
}
process.stdout.write(`${JSON.stringify(summary)}\n`);
