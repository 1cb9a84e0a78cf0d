import { Json, type ApiRequest, type Response, type Store } from "fw";
import { Guarded } from "fw/auth";
import { Post } from "../../../models/Post.js";

/** Open to everyone (with the auth module on, every page says so). */
export const guarded = Guarded.public;

/**
 * An API route: the published posts as JSON (first 100), no session, no cookie. It reads
 * through the model's read scope as nobody (an API call names no user): drafts stay with
 * their authors, as on /posts.
 */
export async function index(_request: ApiRequest, { posts }: { posts: Store<Post> }): Promise<Response> {
  const { rows, total } = await Post.readable(posts, undefined).list({ offset: 0, limit: 100 });
  return Json({ total, posts: rows });
}
