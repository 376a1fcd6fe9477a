/**
 * `agent-bundle/app`: how an MCP App (a browser view compiled into `mcp-apps/<name>.html`) talks
 * to its host. {@link createAppClient} owns the MCP Apps handshake, request ids, timeouts,
 * cancellation and result decoding; `call('tool:<server>/<name>', input)` resolves to the tool's
 * structured result, typed from the generated `.agent-bundle/routes.d.ts`.
 *
 * Browser-safe: no zod, Node built-in or compiler code. React Apps may use `useTool` from
 * `agent-bundle/app/react`.
 */

export {
  APP_PROTOCOL_VERSION,
  DEFAULT_TIMEOUT_MS,
  ROUTE_ID_META,
  createAppClient,
  toolName,
} from './client.js';
export type {
  AbortSignalLike,
  AppClient,
  AppClientOptions,
  AppContentBlock,
  AppDisplayMode,
  AppInfo,
  AppInitializeResult,
  AppMessageEvent,
  AppMessageTarget,
  AppWindow,
  RequestOptions,
} from './client.js';
export { AppClientError } from './errors.js';
export type { AppClientErrorCode } from './errors.js';

// The route types live here, in the module `.agent-bundle/routes.d.ts` augments.

/** Filled in by the generated `.agent-bundle/routes.d.ts` (`readonly routes: …`). */
export interface AppRegister {}

/** One callable route: what a caller sends and what its result holds. */
export type AppRouteContract = Readonly<{ input: unknown; result: unknown }>;

/** The registered tool routes, or any route when nothing is registered. */
export type AppRoutes = AppRegister extends { readonly routes: infer Routes }
  ? Routes
  : Readonly<Record<string, AppRouteContract>>;

/** A tool route id an App can call (`tool:<server>/<name>`). */
export type AppRouteId = Extract<keyof AppRoutes, string>;

/** What a call of `Id` sends. */
export type AppRouteInput<Id extends AppRouteId> = AppRoutes[Id] extends { readonly input: infer Input }
  ? Input
  : never;

/** What a call of `Id` resolves to. */
export type AppRouteResult<Id extends AppRouteId> = AppRoutes[Id] extends { readonly result: infer Result }
  ? Result
  : never;
