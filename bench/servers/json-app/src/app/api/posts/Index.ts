import { Json, type ApiRequest } from "fw";
import { POSTS } from "../../../posts.js";
import { Guarded } from "fw/auth";

/** Open to everyone (the app imports fw/auth for its token rows, so every route says who may reach it; Guarded.public passes the route unchanged). */
export const guarded = Guarded.public;

/** GET /api/posts: the 50 posts. The return type is inferred (`JsonResponse<readonly Post[]>`), so the build writes typia's typed stringify for it. */
export function index(_request: ApiRequest) {
  return Json(POSTS);
}
