/**
 * What a layout (`src/layout.tsx`, `src/mcp/<server>/layout.tsx`) receives (seed 002 §Shared
 * layouts): the route's rendered element as `children`, the route's compile-time identity and the
 * request's abort signal.
 */
import type { ReactNode } from 'react';

/** The compile-time identity of the route a layout wraps. */
export interface AgentRouteIdentity {
  /** The route id, e.g. `tool:library/search_books`. */
  id: string;
  /** The route kind: `tool`, `resource`, `prompt`, … */
  kind: string;
  /** The route's own name, e.g. `search_books`. */
  name: string;
  /** The MCP server, for an MCP route. */
  serverId?: string;
}

/** The props of a layout's default-exported component. */
export interface AgentLayoutProps {
  children?: ReactNode;
  route: AgentRouteIdentity;
  signal: AbortSignal;
}

/** The route kinds an MCP server owns: their id's first path segment is the server. */
const MCP_KINDS = new Set(['tool', 'resource', 'prompt', 'app']);

/**
 * `tool:library/search_books` → kind `tool`, server `library`, name `search_books`; a command
 * `cli:library/audit` or a script `script:report` has no server, its name the whole path.
 */
export function routeIdentity(id: string): AgentRouteIdentity {
  const [kind = '', path = ''] = id.split(/:(.*)/s);
  const slash = path.indexOf('/');
  return slash < 0 || !MCP_KINDS.has(kind)
    ? { id, kind, name: path }
    : { id, kind, serverId: path.slice(0, slash), name: path.slice(slash + 1) };
}
