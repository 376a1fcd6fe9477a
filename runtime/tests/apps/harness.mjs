// What the browser drivers share: the plugin's real MCP server (`abgen-host mcp` over stdio,
// driven by the SDK client in the test process, every frame it is sent recorded), headless
// Chromium (playwright-core; $ABGEN_CHROMIUM, else /usr/bin/chromium from
// scripts/browser/install), and the test host page (host-page.mjs: ext-apps' AppBridge) served
// with a foreign frame (foreign-page.mjs) on two loopback origins. The page reaches the server
// through playwright's exposed functions; an App's cancellation aborts the relayed call, which
// the SDK client sends to the server as notifications/cancelled.
//
// Why a relay rather than the SDK 2.x client in the page over `abgen-host mcp --http`: the relay
// records exactly what reached the server (the proof of cancellation) and needs no port or
// token handshake between the test and a second server process.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';

import { serverEnvironment } from '../mcp_client/server-env.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

export async function startHarness(artifact, server) {
  const chromiumPath = process.env.ABGEN_CHROMIUM || '/usr/bin/chromium';
  assert.ok(existsSync(chromiumPath), `no Chromium at ${chromiumPath}: run scripts/browser/install or set ABGEN_CHROMIUM`);
  const transport = new StdioClientTransport({
    env: serverEnvironment(),
    command: path.join(artifact, 'bin/abgen-host'),
    args: ['mcp', '--server', server, '--artifact', artifact],
    stderr: 'inherit',
  });
  const sentToServer = [];
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    sentToServer.push(message);
    return send(message, options);
  };
  const mcp = new Client({ name: 'ext-apps-test-host', version: '1' });
  await mcp.connect(transport);

  const bundle = async (file) =>
    (await build({ entryPoints: [path.join(here, file)], bundle: true, write: false, format: 'esm', platform: 'browser', logLevel: 'silent' })).outputFiles[0].text;
  const pages = {
    '/': `<!doctype html><html><head><meta charset="utf-8"><title>host</title><style>body{margin:0;font-family:system-ui}iframe{border:0;width:100%;height:420px}</style></head><body><script type="module">${await bundle('host-page.mjs')}</script></body></html>`,
    '/foreign': `<!doctype html><html><body><script>${await bundle('foreign-page.mjs')}</script></body></html>`,
  };
  const http = createServer((request, response) => {
    const page = pages[request.url];
    response.writeHead(page ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    response.end(page ?? 'not found');
  });
  await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
  const port = http.address().port;
  const hostOrigin = `http://127.0.0.1:${port}`;

  const browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'], headless: true });
  const page = await browser.newPage({ viewport: { width: 760, height: 440 } });
  page.on('pageerror', (error) => console.error(`page error: ${error.message}`));
  const calls = new Map();
  await page.exposeFunction('relayCall', async (key, params) => {
    const controller = new AbortController();
    calls.set(key, controller);
    try {
      return await mcp.callTool(params, undefined, { signal: controller.signal, timeout: 60_000 });
    } finally {
      calls.delete(key);
    }
  });
  await page.exposeFunction('relayCancel', (key) => calls.get(key)?.abort('the App cancelled the call'));
  await page.goto(`${hostOrigin}/`);

  const app = async () => (await page.$('iframe[name=app]')).contentFrame();
  return {
    mcp,
    sentToServer,
    page,
    port,
    hostOrigin,
    /** Opens `html` in a fresh App iframe behind a fresh AppBridge. */
    open: (html, extra = {}) => page.evaluate((args) => window.openApp(args), { html, hostCapabilities: { openLinks: {}, serverTools: {} }, ...extra }),
    app,
    inApp: async (body, arg) => (await app()).evaluate(body, arg),
    async close() {
      await browser.close();
      http.close();
      await mcp.close();
    },
  };
}
