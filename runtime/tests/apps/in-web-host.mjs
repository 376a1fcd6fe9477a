// Proves `agent-bundle/app` in real headless Chromium behind the plugin's own host,
// `abgen-host web`, on the built `valid-app-probe`'s real MCP server: the cases of
// client-cases.mjs, the same ones browser.mjs runs behind ext-apps' AppBridge. The host is
// started as installed with its opening call (`echo { text: 'opening' }`) and `--allow
// call-tool`; each case opens the host page in a fresh tab. Prints a JSON summary.
//
// Usage: node in-web-host.mjs <artifact dir> <scratch dir>

import assert from 'node:assert/strict';

import { runClientCases } from './client-cases.mjs';
import { startWebHost } from './web-host-harness.mjs';

const [artifact, scratch] = process.argv.slice(2);
assert.ok(artifact && scratch, 'usage: node in-web-host.mjs <artifact dir> <scratch dir>');

const host = await startWebHost(artifact, ['desk/probe', '--tool', 'echo', '--input', '{"text":"opening"}', '--allow', 'call-tool']);
let afterTeardown;
const torn = new Promise((resolve) => { afterTeardown = resolve; });
await host.context.exposeFunction('reportAfterTeardown', (code) => afterTeardown(code));
let app = null;

let summary;
try {
  summary = await runClientCases(
    {
      name: 'abgen-host web',
      // The host makes its opening call once; every page carries that call's input and result.
      open: async () => {
        app = await host.open(() => typeof window.probe === 'object');
      },
      opening: {},
      inApp: (body, arg) => app.evaluate(body, arg),
      forge: (message) => host.forge(message),
      // The App's parent is the sandbox proxy; the host page's origin is another one.
      parentOrigin: host.address.sandboxOrigin,
      otherOrigin: new URL(host.address.url).origin,
      framesAtServer: () => null,
      // Opening a link asks the user first (the host's own test answers it); a size change
      // resizes the App's frame.
      async hostFeatures() {
        await host.page.waitForFunction(() => document.getElementById('app-frame')?.style.height === '240px', undefined, { timeout: 5_000 });
        return null;
      },
      teardown: async () => {
        await host.stop();
        return 'the host stopped';
      },
      afterTeardown: () => torn,
    },
    scratch,
  );
  assert.match(host.log(), /the App calls echo/);
} finally {
  await host.close();
}
process.stdout.write(`${JSON.stringify(summary)}\n`);
