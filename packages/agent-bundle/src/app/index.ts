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
