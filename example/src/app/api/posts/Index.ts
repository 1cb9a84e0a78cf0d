import { Ok, type ApiRequest, type Response, type Store } from "fw";
import { Guarded } from "fw/auth";
import type { Post } from "../../../models/Post.js";

/** Open to everyone (with the auth module on, every page says so). */
export const guarded = Guarded.public;

/** An API route: every post as JSON (first 100), no session, no cookie. */
export async function index(_request: ApiRequest, { posts }: { posts: Store<Post> }): Promise<Response> {
  const { rows, total } = await posts.list({ offset: 0, limit: 100 });
  return Ok(JSON.stringify({ total, posts: rows }), { contentType: "application/json; charset=utf-8" });
}
