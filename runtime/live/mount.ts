import type { QueryDecoder } from "../http/query-params.js";
import type { Request } from "../http/request.js";
import type { ModelSpec } from "../resource/model.js";
import type { ParamDecoders } from "../routing/from-path.js";

/** What the generated table tells a live page about where and how it is mounted. */
export interface LiveMount<C> {
  /** The page's id, the last segment of its socket: the route file's path under the app folder, `/` → `.`, no extension (`chat.Index`, `posts._id.Show`). */
  readonly id: string;
  /** The page's path pattern (`/posts/:id`). */
  readonly path: string;
  /** Decoders for the path parameters, as the page's GET row has. */
  readonly params?: ParamDecoders;
  /** The query parameters `mount` declares (`Request<P, { page?: number }>`), decoded as a handler's are. */
  readonly query?: QueryDecoder;
  /** The capabilities `mount` asks for. */
  readonly capabilities: C;
  /**
   * The capabilities of one request, when some depend on who asks (a `Store<Model>` of a model
   * with read rules is its viewer's rows: runtime/resource/viewer-stores.ts); else `capabilities`.
   */
  readonly capabilitiesOf?: (request: Request<unknown>) => C | Promise<C>;
  /** Per form event, the model its payload (`FormInput<M>`) is read with. */
  // biome-ignore lint/suspicious/noExplicitAny: one map holds forms of different models
  readonly forms?: Readonly<Record<string, ModelSpec<any>>>;
  /** The route file, for `routes` and messages. */
  readonly source: string;
}

/** The capabilities a request of the page gets: `capabilitiesOf`'s, else the table's. */
export function capabilitiesFor<C>(mount: LiveMount<C>, request: Request<unknown>): C | Promise<C> {
  return mount.capabilitiesOf === undefined ? mount.capabilities : mount.capabilitiesOf(request);
}

/** `then` on the capabilities, without a promise when they are the table's (every page but one asking for a viewer's store). */
export function withMountCapabilities<C, R>(mount: LiveMount<C>, request: Request<unknown>, use: (capabilities: C) => R): R | Promise<Awaited<R>> {
  const capabilities = capabilitiesFor(mount, request);
  return capabilities instanceof Promise ? (capabilities.then(use) as Promise<Awaited<R>>) : use(capabilities);
}
