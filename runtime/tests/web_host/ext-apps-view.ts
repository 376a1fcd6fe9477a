// A test App written on the official MCP Apps client (`App` from @modelcontextprotocol/ext-apps
// 2.x), so the host side is proven against the other half's reference. It shows what the host
// gave it and calls `show_shelf` when its button is pressed; every element it writes is read
// by `app-in-host.mjs`.
import { App, PostMessageTransport } from '@modelcontextprotocol/ext-apps';

const show = (id: string, value: unknown) => {
  const element = document.getElementById(id);
  if (element) element.textContent = typeof value === 'string' ? value : JSON.stringify(value);
};

const app = new App({ name: 'ext-apps-test-view', version: '1.0.0' });
app.ontoolinput = (params) => show('tool-input', params.arguments);
app.ontoolresult = (params) => show('tool-result', params.structuredContent ?? params);
app.onteardown = async () => {
  show('teardown', 'torn down');
  console.log('ext-apps view: torn down');
  return {};
};

await app.connect(new PostMessageTransport(window.parent, window.parent));
show('host', { hostInfo: app.getHostVersion(), hostContext: app.getHostContext(), capabilities: app.getHostCapabilities() });

document.getElementById('call')?.addEventListener('click', async () => {
  show('call-result', 'calling');
  try {
    const result = await app.callServerTool({ name: 'show_shelf', arguments: { shelf: 'finished' } });
    show('call-result', result.structuredContent ?? result);
  } catch (error) {
    const { code, message } = error as { code?: number; message?: string };
    show('call-result', `error ${code}: ${message}`);
  }
});
