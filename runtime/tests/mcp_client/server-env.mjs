// The environment the SDK client starts `abgen-host mcp` with: the SDK's safe default set, plus
// the test's XDG_RUNTIME_DIR and XDG_STATE_HOME, so the server's warm socket and its lock, and
// its workers' framework state (V8's code cache), live in the test's own directories and never
// in a shared /tmp or in HOME.
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';

export function serverEnvironment() {
  const environment = getDefaultEnvironment();
  for (const name of ['XDG_RUNTIME_DIR', 'XDG_STATE_HOME']) {
    const value = process.env[name];
    if (value) environment[name] = value;
  }
  return environment;
}
