import { Json, type ApiRequest } from "fw";
import { POSTS } from "../../../../posts.js";
import { auth } from "../../../../auth.js";

export const guarded = auth.token({ scope: "posts:read" });

/** GET /api/token/posts: the 50 posts, behind a per-user token with the scope posts:read (one statement). */
export function index(_request: ApiRequest) {
  return Json(POSTS);
}
