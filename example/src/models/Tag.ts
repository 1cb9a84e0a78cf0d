import { Actions, derives, Form, Index, Resource, Show, type Id, type Unique } from "fw";
import type { tags } from "typia";
import { auth } from "../auth.js";

/**
 * A tag a post may carry (issue 43, item 9): a post lists several (`Post.tags`), a tag many posts.
 * Its pages live at /tags, derived from this type; its rows, in the `tags` table (and the links,
 * in the join table `posts_tags` the build derives from `Post.tags`).
 */
export interface Tag {
  id: Id<Tag>;
  /** What the tag says ("release", "tutorial"): one tag per name. */
  name: string & Unique & tags.MinLength<1> & tags.MaxLength<40>;
}

/**
 * Everyone reads the tags (Index and Show are public: a tag's page lists its posts, as far as
 * the reader may read them); only admins make, rename or delete one (anyone else gets a 404 on
 * those pages, as the guestbook's delete). Deleting a tag takes it off every post.
 */
export const Tag = derives<Tag>(Form, Resource, {
  guarded: auth.role("admin", Actions.except(Index, Show)),
  table: "tags",
  sort: "name",
});
