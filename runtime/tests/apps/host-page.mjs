// The test host page: the official MCP Apps host bridge (`AppBridge` from
// @modelcontextprotocol/ext-apps 2.x) around one sandboxed App iframe. Bundled for the browser
// by browser.mjs. Tool calls go to the built plugin's real MCP server through the test process
// (`relayCall`, `relayCancel`, exposed by playwright); an App's cancellation aborts the relayed
// call, which the SDK client turns into notifications/cancelled to the server.
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

let seq = 0;
let current;
window.hostEvents = [];

window.openApp = async ({ html, tool, input, result, hostCapabilities }) => {
  current?.iframe.remove();
  const iframe = document.createElement('iframe');
  iframe.name = 'app';
  // An opaque origin: the App's frames are authenticated by window identity, not by origin.
  iframe.setAttribute('sandbox', 'allow-scripts');
  iframe.srcdoc = html;
  const loaded = new Promise((resolve) => iframe.addEventListener('load', resolve, { once: true }));
  document.body.prepend(iframe);
  await loaded;
  const bridge = new AppBridge(null, { name: 'ext-apps-test-host', version: '1' }, hostCapabilities, {
    hostContext: tool === undefined ? {} : { toolInfo: { tool } },
  });
  bridge.oncalltool = async (params, extra) => {
    const key = String(++seq);
    // SDK 2.x: the request's context carries its AbortSignal, aborted by the App's cancellation.
    const signal = extra.mcpReq.signal;
    const onAbort = () => {
      window.hostEvents.push(['cancelled', params.name]);
      void window.relayCancel(key);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      return await window.relayCall(key, params);
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  };
  bridge.onopenlink = async ({ url }) => {
    window.hostEvents.push(['open-link', url]);
    return {};
  };
  bridge.onsizechange = ({ width, height }) => window.hostEvents.push(['size', width, height]);
  bridge.oninitialized = () => {
    window.hostEvents.push(['initialized']);
    if (input !== undefined) void bridge.sendToolInput({ arguments: input });
    if (result !== undefined) void bridge.sendToolResult(result);
  };
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  current = { iframe, bridge };
};

window.teardownApp = () => current.bridge.teardownResource({});

window.addForeignFrame = async (url) => {
  const frame = document.createElement('iframe');
  frame.name = 'foreign';
  frame.src = url;
  const loaded = new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));
  document.body.append(frame);
  await loaded;
};
