// The environment the SDK client starts `abgen-host mcp` with: the SDK's safe default set, plus
// the test's XDG_RUNTIME_DIR, so the server's warm socket and its lock live in the test's own
// directory and never in a shared /tmp.
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';

export function serverEnvironment() {
  const runtime = process.env.XDG_RUNTIME_DIR;
  return runtime ? { ...getDefaultEnvironment(), XDG_RUNTIME_DIR: runtime } : getDefaultEnvironment();
}
