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
  /** The capabilities `mount` asks for. */
  readonly capabilities: C;
  /** Per form event, the model its payload (`FormInput<M>`) is read with. */
  // biome-ignore lint/suspicious/noExplicitAny: one map holds forms of different models
  readonly forms?: Readonly<Record<string, ModelSpec<any>>>;
  /** The route file, for `routes` and messages. */
  readonly source: string;
}
