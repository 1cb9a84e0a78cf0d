import type { HttpRoute, WsRoute } from "../routing/route.js";
import type { ParamDecoders } from "../routing/from-path.js";
import type { ModelSpec } from "../resource/model.js";
import type { LivePage } from "./page.js";

/** What the generated table tells a live page about where and how it is mounted. */
export interface LiveMount<C> {
  /** The page's id, the last segment of its socket: the route file's path under the app folder, `/` → `.`, no extension (`chat.Index`, `posts._id.Show`). */
  readonly id: string;
  /** The page's path pattern (`/posts/:id`). */
  readonly path: string;
  /** Decoders for the path parameters, as the page's GET row has. */
  readonly params?: ParamDecoders;
  /** The capabilities `mount` asks for. */
  readonly capabilities: C;
  /** Per form event, the model its payload (`FormInput<M>`) is read with. */
  // biome-ignore lint/suspicious/noExplicitAny: one map holds forms of different models
  readonly forms?: Readonly<Record<string, ModelSpec<any>>>;
  /** The route file, for `routes` and messages. */
  readonly source: string;
}

/** The page's own rows, at its place in the table: GET (full HTML through the layout) and POST (a live form without JavaScript). */
// biome-ignore lint/suspicious/noExplicitAny: a table holds pages of any state
export function livePageRoutes<C>(_page: LivePage<any, C, any>, _mount: LiveMount<C>): readonly HttpRoute[] {
  throw new Error("fw/live: livePageRoutes is not built yet");
}

/** The page's socket `WS /fw/live/<id>`, appended after the table (spec 4.6). */
// biome-ignore lint/suspicious/noExplicitAny: as above
export function liveSocketRoute<C>(_page: LivePage<any, C, any>, _mount: LiveMount<C>): WsRoute {
  throw new Error("fw/live: liveSocketRoute is not built yet");
}

/** `GET /fw/live.js`, the live client, appended after the table once (spec 4.6). */
export function liveClientRoute(): HttpRoute {
  throw new Error("fw/live: liveClientRoute is not built yet");
}
