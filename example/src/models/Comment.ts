import { Actions, derives, Destroy, Edit, Form, Index, Resource, Show, Update, type Id, type Upload } from "fw";
import type { tags } from "typia";
import { auth, type User } from "../auth.js";
import type { Post } from "./Post.js";

/** A comment on a post, in the `comments` table: its pages live at /comments, and a post's page lists its comments. */
export interface Comment {
  id: Id<Comment>;
  /** The post it is about: a reference, so the form picks one of the posts you may read. */
  post: Id<Post>;
  /** Who wrote it: set from the signed-in user on Create, never part of the form. */
  author: Id<User>;
  body: string & tags.MinLength<1> & tags.MaxLength<2000>;
  /** A PDF or a text file (10 MB at most), offered as a download: read by who may read the comment. */
  attachment?: Upload<{ accept: "application/pdf" | "text/plain"; maxBytes: 10_000_000 }>;
  createdAt?: Date;
}

/**
 * Everyone reads the comments of the posts they may read (a draft's comments are read only by
 * who may read the draft); writing one needs a signed-in user, and only its author may edit or
 * delete it. Deleting a post deletes its comments, and deleting an account the comments it wrote.
 */
export const Comment = derives<Comment>(Form, Resource, {
  owned: auth.owned<Comment, User>(Actions.only(Edit, Update, Destroy), Actions.except(Index, Show)),
  readableWith: "post",
  // Deleting a post deletes its comments; deleting an account deletes the comments it wrote (issue 41).
  onDelete: { post: "cascade", author: "cascade" },
  table: "comments",
});
