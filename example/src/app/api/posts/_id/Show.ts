import { Json, NotFound, type ApiRequest, type Id, type Store } from "fw";
import { Guarded } from "fw/auth";
import { Post } from "../../../../models/Post.js";

/** Open to everyone (with the auth module on, every page says so). */
export const guarded = Guarded.public;

/** One published post as JSON; a draft, or a post that does not exist, is a 404. */
export async function show(request: ApiRequest<{ id: Id<Post> }>, { posts }: { posts: Store<Post> }) {
  const post = await Post.readable(posts, undefined).get(request.params.id);
  if (post === undefined) throw new NotFound(`There is no published post ${request.params.id}.`);
  return Json(post);
}
