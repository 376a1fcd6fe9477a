/**
 * The few lines of the MCP Apps protocol the shelf viewer needs: the View announces itself to the
 * host with `ui/initialize`, confirms with `ui/notifications/initialized`, and then receives the
 * linked tool's result as `ui/notifications/tool-result`. JSON-RPC 2.0 over `postMessage`.
 *
 * Browser code: only the App bundle imports it.
 */

import { useEffect, useState } from 'react';

const PROTOCOL_VERSION = '2026-01-26';

/** A message from the host: a response to `ui/initialize` or a notification. */
interface HostMessage {
  jsonrpc: '2.0';
  id?: number;
  method?: string;
  params?: { structuredContent?: unknown };
  result?: unknown;
}

/**
 * The `structuredContent` of the latest result of the tool this App is linked to, or `undefined`
 * until the host has sent one.
 */
export function useToolResult(appName: string): unknown {
  const [result, setResult] = useState<unknown>(undefined);

  useEffect(() => {
    const host = window.parent;
    const initializeId = 1;
    const send = (message: { jsonrpc: '2.0'; id?: number; method: string; params?: object }) =>
      host.postMessage(message, '*');

    const onMessage = (event: MessageEvent<HostMessage>) => {
      if (event.source !== host || event.data?.jsonrpc !== '2.0') return;
      const message = event.data;
      if (message.id === initializeId && message.result !== undefined) {
        send({ jsonrpc: '2.0', method: 'ui/notifications/initialized' });
      } else if (message.method === 'ui/notifications/tool-result') {
        setResult(message.params?.structuredContent);
      }
    };

    window.addEventListener('message', onMessage);
    send({
      jsonrpc: '2.0',
      id: initializeId,
      method: 'ui/initialize',
      params: { appInfo: { name: appName, version: '0.1.0' }, appCapabilities: {}, protocolVersion: PROTOCOL_VERSION },
    });
    return () => window.removeEventListener('message', onMessage);
  }, [appName]);

  return result;
}
