import { Json, type JsonRequest, type LongText, type ScopedStore } from "fw";
import type { tags } from "typia";
import { auth } from "../../../auth.js";
import type { Post } from "../../../models/Post.js";

/**
 * A program with a per-user API token that has the scope `posts:write` (made on /account) may
 * call this; a browser's session never does, and a token without the scope is refused with 403.
 * The build checks the scope against the app's (src/auth.ts).
 */
export const guarded = auth.token({ scope: "posts:write" });

/** What a program sends to write a post: the form's rules (a title, a category). */
interface NewPost {
  title: string & tags.MinLength<1> & tags.MaxLength<200>;
  body: LongText & tags.MaxLength<10000>;
  published: boolean;
  category: "news" | "howto" | "misc";
}

/**
 * `POST /api/posts`: writes a post as the token's owner (its author), untagged and stamped now (the
 * derived Create stamps `createdAt`; a handler writing through the store sets it itself), 201 with
 * the post as stored.
 * A body of another shape is fw's 400, naming each failing place.
 */
export async function create(request: JsonRequest<NewPost>, { posts }: { posts: ScopedStore<Post> }) {
  const author = guarded.callerOf(request);
  if (author === undefined) throw new Error("the token guard let a call through without naming its caller");
  const { title, body, published, category } = request.json();
  return Json(await posts.for(author).insert({ title: title.trim(), body, published, category, tags: [], createdAt: new Date() }), 201);
}
