/**
 * The `agent-bundle` root module: the names seed 002 imports from the package itself. Constants
 * and types only, so a route, a provider or an App may import it without pulling the compiler in.
 * Every export here is public API; add one only on purpose.
 */

export { pluginRootEnvAnchor } from './launch-env/operator-env.js';

/**
 * The framework ceiling of a route's render budget (`render.maxElapsedMs`), 24 hours; a larger
 * budget is AB4835 at build time (the compiler's `MAX_ELAPSED_MS`, kept equal by a test).
 */
export const MAX_ROUTE_RENDER_ELAPSED_MS = 86_400_000;

export type { AppRouteConfig, ToolConfig, ToolRouteProps } from './routes/index.js';
export type {
  AgentLayoutProps,
  AgentLineage,
  AgentProviderContext,
  AgentTerminal,
  McpCallToolResult,
  McpContentBlock,
} from '@agent-bundle/runtime';
