/**
 * `agent-bundle/app`: the types an MCP App uses to call its plugin's tools. Types only for now;
 * the client that carries the calls comes later.
 *
 * `abgen generate` (and `abgen build`) writes `.agent-bundle/routes.d.ts`, which augments
 * {@link AppRegister} with the project's tool routes, so a call with an unknown route id or a
 * wrong input does not compile. Without that file every id and input is accepted as `unknown`.
 */

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

/** How an App calls its plugin's tools. */
export interface AppClient {
  callTool<Id extends AppRouteId>(id: Id, input: AppRouteInput<Id>): Promise<AppRouteResult<Id>>;
}

/** Options of `createAppClient` (seed 002 §The typed App client). */
export interface AppClientOptions {
  readonly appInfo: { readonly name: string; readonly version: string };
  readonly appCapabilities?: Readonly<Record<string, unknown>>;
  /** The exact origin of the host frame; without it, the exact parent window authenticates. */
  readonly targetOrigin?: string;
  /** Every request's deadline unless it names its own (default 15 000 ms). */
  readonly timeoutMs?: number;
}

/** Per-request options: an abort signal and a deadline. */
export interface AppRequestOptions {
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
}

/** Why a request of the App client failed. */
export declare class AppClientError extends Error {
  readonly code:
    | 'timeout'
    | 'aborted'
    | 'disposed'
    | 'connection-rebound'
    | 'invalid-message'
    | 'rpc'
    | 'capability-unavailable'
    | 'consent-required';
  readonly rpcCode?: number;
  readonly data?: unknown;
}

/** The App side of the MCP Apps bridge, typed by the project's tool routes. */
export interface TypedAppClient {
  connect(): Promise<unknown>;
  call<Id extends AppRouteId>(id: Id, input: AppRouteInput<Id>, options?: AppRequestOptions): Promise<AppRouteResult<Id>>;
  request(method: string, params?: Readonly<Record<string, unknown>>, options?: AppRequestOptions): Promise<unknown>;
  onToolInput<Id extends AppRouteId>(id: Id, listener: (input: AppRouteInput<Id>) => void): () => void;
  onToolResult<Id extends AppRouteId>(id: Id, listener: (result: AppRouteResult<Id>) => void): () => void;
  onToolError<Id extends AppRouteId>(id: Id, listener: (error: AppClientError) => void): () => void;
  onToolCancelled(listener: (cancelled: { readonly reason?: string }) => void): () => void;
  rebind(options?: { readonly parent?: unknown; readonly targetOrigin?: string; readonly window?: unknown }): Promise<unknown>;
  dispose(): void;
}

/**
 * Creates the App's client of its host (seed 002 §The typed App client). Declared here, with
 * the types the seed gives it; the browser implementation ships with the compiled Apps.
 */
export declare function createAppClient(options: AppClientOptions): TypedAppClient;
