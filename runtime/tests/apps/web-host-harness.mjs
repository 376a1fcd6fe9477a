// `abgen-host web` as a browser driver sees it: the built artifact's own host, run as installed
// (its `bin/abgen-host`, the artifact's folder as working directory), started with `args`; its
// `--json` address line; headless Chromium (playwright-core; $ABGEN_CHROMIUM, else
// /usr/bin/chromium from scripts/browser/install); and a foreign page (foreign-page.mjs) on a
// loopback origin of its own, opened from the host page. `open()` loads the host page in a fresh tab, whose App is the inner
// frame of the host's sandbox proxy.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

import { build } from 'esbuild';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));

export async function startWebHost(artifact, args) {
  const chromiumPath = process.env.ABGEN_CHROMIUM || '/usr/bin/chromium';
  assert.ok(existsSync(chromiumPath), `no Chromium at ${chromiumPath}: run scripts/browser/install or set ABGEN_CHROMIUM`);
  const web = spawn(path.join(artifact, 'bin', 'abgen-host'), ['web', '--json', ...args], {
    cwd: path.dirname(artifact),
    env: { ...process.env, ABGEN_ARTIFACT: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  web.stderr.on('data', (chunk) => { log += chunk; });
  const exited = new Promise((resolve) => web.on('exit', (code, signal) => resolve({ code, signal })));
  const firstLine = createInterface({ input: web.stdout })[Symbol.asyncIterator]().next();
  const timer = new Promise((_, reject) => setTimeout(() => reject(new Error(`abgen-host web printed no address:\n${log}`)), 90_000).unref());
  const { value } = await Promise.race([firstLine, timer]);
  const address = JSON.parse(value);

  const foreignPage = (await build({ entryPoints: [path.join(here, 'foreign-page.mjs')], bundle: true, write: false, format: 'esm', platform: 'browser', logLevel: 'silent' })).outputFiles[0].text;
  const foreign = createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(`<!doctype html><html><body><script>${foreignPage}</script></body></html>`);
  });
  await new Promise((resolve) => foreign.listen(0, '127.0.0.1', resolve));
  // `localhost`, not 127.0.0.1: an origin neither the host page nor the sandbox has.
  const foreignUrl = `http://localhost:${foreign.address().port}/foreign`;

  const browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'], headless: true });
  const context = await browser.newContext({ viewport: { width: 900, height: 640 } });
  let page = null;

  /** The App's frame: the inner frame of the sandbox proxy that `ready` finds ready. */
  const appFrame = async (ready) => {
    for (let i = 0; i < 300; i += 1) {
      for (const frame of page.frames()) {
        if (frame.parentFrame()?.parentFrame() !== page.mainFrame()) continue;
        if (await frame.evaluate(ready).catch(() => false)) return frame;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.fail(`the App did not load in the host page:\n${log}`);
  };

  return {
    address,
    context,
    get page() {
      return page;
    },
    log: () => log,
    exited,
    /** A fresh tab on the host page; resolves with the App's frame once `ready` holds there. */
    async open(ready) {
      await page?.close();
      page = await context.newPage();
      page.on('pageerror', (error) => console.error(`page error: ${error.message}`));
      await page.goto(address.url);
      return appFrame(ready);
    },
    /** A window of another origin, opened by the host page, posts `message` to the App (the
     * host page's Content-Security-Policy lets no foreign frame in). */
    async forge(message) {
      const [popup] = await Promise.all([
        context.waitForEvent('page'),
        page.evaluate((url) => { window.open(url, 'foreign'); }, foreignUrl),
      ]);
      await popup.waitForFunction(() => typeof window.forge === 'function');
      // The host page's first frame is the sandbox proxy, whose only frame is the App.
      await popup.evaluate((forged) => window.forge(forged, [0, 0]), message);
      await popup.close();
    },
    /** SIGTERM: the host ends (143) and its page tears the App down. */
    async stop() {
      web.kill('SIGTERM');
      const end = await exited;
      assert.deepEqual(end, { code: 143, signal: null }, log);
      await page.locator('#status').filter({ hasText: 'stopped: the host stopped' }).waitFor({ timeout: 10_000 });
      return end;
    },
    async close() {
      await browser.close();
      foreign.close();
      if (web.exitCode === null && web.signalCode === null) web.kill('SIGKILL');
    },
  };
}
