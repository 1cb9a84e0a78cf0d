import { Actions, derives, Destroy, Edit, Form, Index, Resource, Show, Update, type Id, type Image, type LongText } from "fw";
import type { tags } from "typia";
import { auth, type User } from "../auth.js";
import type { Tag } from "./Tag.js";

/** A blog post. Its seven pages live at /posts, derived from this type; its rows, in the `posts` table. */
export interface Post {
  id: Id<Post>;
  /**
   * Who wrote it: set from the signed-in user on Create, never part of the form. Optional: when
   * its author deletes their account the post stays, anonymised (`onDelete` below, issue 41).
   */
  author?: Id<User>;
  title: string & tags.MinLength<1>;
  body: LongText;
  published: boolean;
  summary?: string;
  category: "news" | "howto" | "misc";
  /**
   * An image shown above the post (PNG, JPEG, GIF, WebP or AVIF, 5 MB at most): a thumbnail on
   * /posts, a larger one on the post's page, served by the post's read rule (a draft's cover is
   * its author's alone). Its metadata (EXIF, GPS) is removed before anyone sees it.
   */
  cover?: Image<{ maxBytes: 5_000_000 }>;
  /**
   * Its tags (issue 43, item 9), kept in the join table `posts_tags`: the form picks them in a
   * multi-select, /posts and the post's page show them, and `/posts?tags=3` lists a tag's posts.
   */
  tags: Id<Tag>[];
  /**
   * When it was written: stamped by the server on Create (a server-set field, never in the form),
   * kept on Update. /posts lists the newest first and filters by it (`?createdAt.from=2026-01-01`).
   */
  createdAt: Date;
}

/**
 * Everyone reads published posts (Index and Show are public); a draft (`published` unchecked) is
 * read by its author alone (`publicWhen`). Writing one needs a signed-in user, and only its
 * author may edit or delete it (Edit, Update and Destroy are covered by ownership). When its
 * author deletes their account, the post stays with no author (nobody can edit it then).
 */
export const Post = derives<Post>(Form, Resource, {
  owned: auth.owned<Post, User>(Actions.only(Edit, Update, Destroy), Actions.except(Index, Show)),
  publicWhen: "published",
  // A deleted account's posts stay, their author cleared (its comments go with it: Comment.ts).
  onDelete: { author: "set null" },
  table: "posts",
  // Full-text search of the title and body (issue 43): /posts?q=… ranks the posts a title's match first.
  search: ["title", "body"],
  // Newest first, on /posts and the derived pages (the table gets an index on (created_at, id)).
  sort: "-createdAt",
});
