import { derives, Form, Resource, type Id, type LongText } from "fw";
import type { tags } from "typia";

/** The bench's table model: its seven derived pages read and write the "posts" table. */
export interface Post {
  id: Id<Post>;
  title: string & tags.MaxLength<120>;
  author: string & tags.MaxLength<80>;
  body: LongText;
  rating: number;
  published: boolean;
}

export const Post = derives<Post>(Form, Resource, { table: "posts" });
