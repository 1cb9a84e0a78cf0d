import { Json, type ApiRequest, type Response } from "fw";
import { POSTS } from "../../../posts.js";

/** GET /api/posts-untyped: the same 50 posts, the return type declared a plain `Response`, so they are written by JSON.stringify (fw before issue 31). */
export function index(_request: ApiRequest): Response {
  return Json(POSTS);
}
