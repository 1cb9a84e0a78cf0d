import { derives, Form, Resource, type Id, type LongText } from "fw";
import type { tags } from "typia";
import type { Post } from "./Post.js";

/** A comment on a post: the post's Show lists them, 20 a page, with "Add a comment". Deleting a post deletes its comments. */
export interface Comment {
  id: Id<Comment>;
  post: Id<Post>;
  name: string & tags.MaxLength<80>;
  body: LongText;
}

export const Comment = derives<Comment>(Form, Resource, { table: "comments", onDelete: { post: "cascade" } });
