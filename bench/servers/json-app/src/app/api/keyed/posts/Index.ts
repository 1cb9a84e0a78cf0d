import { Json, type ApiRequest } from "fw";
import { POSTS } from "../../../../posts.js";
import { service } from "../../../../auth.js";

export const guarded = service;

/** GET /api/keyed/posts: the 50 posts, behind fw/auth's apiKey (no statement). */
export function index(_request: ApiRequest) {
  return Json(POSTS);
}
