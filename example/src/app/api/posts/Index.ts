import { Json, type ApiRequest, type Store } from "fw";
import { Guarded } from "fw/auth";
import { Post } from "../../../models/Post.js";

/** Open to everyone (with the auth module on, every page says so). */
export const guarded = Guarded.public;

/**
 * The published posts as JSON (the first 100), and how many there are. An API route: no
 * session, no cookie. It reads through the model's read scope as nobody (an API call names no
 * user): drafts stay with their authors, as on /posts.
 */
export async function index(_request: ApiRequest, { posts }: { posts: Store<Post> }) {
  const { rows, total } = await Post.readable(posts, undefined).list({ offset: 0, limit: 100 });
  // The return type is inferred: `JsonResponse<{ total; posts }>`, which types the answer's
  // writer (typia's), the OpenAPI document and fw/client's calls.
  return Json({ total, posts: rows });
}
