// A process-lifetime provider: the module is evaluated once per worker, so `instance` names the
// worker's one copy and `visits` counts every render that asked for it on that worker. Each
// visit also records what the factory was given and whether it ran inside the render's context.
import { randomUUID } from 'node:crypto';
import { agent, type AgentProviderContext } from '@agent-bundle/runtime';

const instance = randomUUID();
let visits = 0;

export default function visitsProvider(request: AgentProviderContext) {
  visits += 1;
  let insideRender = true;
  try {
    agent();
  } catch {
    insideRender = false;
  }
  return {
    instance,
    visits,
    invocation: request.invocation.kind,
    host: request.host,
    plugin: request.plugin,
    signal: request.signal instanceof AbortSignal,
    insideRender,
  };
}
