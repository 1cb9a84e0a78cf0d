import { Json, type ApiRequest } from "fw";
import { POSTS } from "../../../posts.js";

/** GET /api/posts: the 50 posts. The return type is inferred (`JsonResponse<readonly Post[]>`), so the build writes typia's typed stringify for it. */
export function index(_request: ApiRequest) {
  return Json(POSTS);
}
