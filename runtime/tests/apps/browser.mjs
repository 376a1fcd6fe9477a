// Proves `agent-bundle/app` in real headless Chromium against the official MCP Apps host bridge
// (ext-apps' AppBridge in host-page.mjs), wired to the built plugin's real MCP server
// (`abgen-host mcp` over stdio, driven by the SDK client in this process; the page reaches it
// through playwright's exposed functions). Each case of client-cases.mjs (shared with
// in-web-host.mjs, which runs them behind `abgen-host web`) opens the App document the server
// serves for ui://desk/probe in a fresh sandboxed iframe and drives clients inside it. Prints a
// JSON summary.
//
// Usage: node browser.mjs <artifact dir> <scratch dir>
// Chromium: $ABGEN_CHROMIUM, else /usr/bin/chromium (scripts/browser/install).

import assert from 'node:assert/strict';

import { runClientCases } from './client-cases.mjs';
import { startHarness } from './harness.mjs';

const [artifact, scratch] = process.argv.slice(2);
assert.ok(artifact && scratch, 'usage: node browser.mjs <artifact dir> <scratch dir>');

const harness = await startHarness(artifact, 'desk');
const { mcp, sentToServer, page, port, hostOrigin, inApp } = harness;
const html = (await mcp.readResource({ uri: 'ui://desk/probe' })).contents[0].text;
const echoTool = (await mcp.listTools()).tools.find((tool) => tool.name === 'echo');
const opening = await mcp.callTool({ name: 'echo', arguments: { text: 'opening' } });
let afterTeardown;
const torn = new Promise((resolve) => { afterTeardown = resolve; });
await page.exposeFunction('reportAfterTeardown', (code) => afterTeardown(code));

let summary;
try {
  summary = await runClientCases(
    {
      name: 'ext-apps-test-host',
      open: (extra) => harness.open(html, { tool: echoTool, ...extra }),
      opening: { input: { text: 'opening' }, result: opening },
      inApp,
      async forge(message) {
        await page.evaluate((url) => window.addForeignFrame(url), `http://localhost:${port}/foreign`);
        const foreign = await (await page.$('iframe[name=foreign]')).contentFrame();
        await foreign.evaluate((forged) => window.forge(forged, ['app']), message);
      },
      parentOrigin: hostOrigin,
      otherOrigin: `http://localhost:${port}`,
      framesAtServer: () => sentToServer,
      async hostFeatures(openLink) {
        await openLink();
        await new Promise((resolve) => setTimeout(resolve, 100));
        return page.evaluate(() => window.hostEvents);
      },
      teardown: () => page.evaluate(() => window.teardownApp().then(() => 'acknowledged', (error) => String(error))),
      afterTeardown: () => torn,
    },
    scratch,
  );
  assert.equal(summary.teardown, 'acknowledged');
} finally {
  await harness.close();
}
process.stdout.write(`${JSON.stringify(summary)}\n`);
