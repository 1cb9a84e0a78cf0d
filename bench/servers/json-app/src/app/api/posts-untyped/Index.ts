import { Json, type ApiRequest, type Response } from "fw";
import { POSTS } from "../../../posts.js";
import { Guarded } from "fw/auth";

/** Open to everyone (the app imports fw/auth for its token rows, so every route says who may reach it; Guarded.public passes the route unchanged). */
export const guarded = Guarded.public;

/** GET /api/posts-untyped: the same 50 posts, the return type declared a plain `Response`, so they are written by JSON.stringify (fw before issue 31). */
export function index(_request: ApiRequest): Response {
  return Json(POSTS);
}
