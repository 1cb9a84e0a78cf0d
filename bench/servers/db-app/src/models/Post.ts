import { derives, Form, Resource, type Id, type LongText } from "fw";
import type { tags } from "typia";
import type { Author } from "./Author.js";

/** A post by an author (a reference: a foreign key, a link on Index and Show); its Show lists its comments. */
export interface Post {
  id: Id<Post>;
  title: string & tags.MaxLength<120>;
  author: Id<Author>;
  body: LongText;
  published: boolean;
}

export const Post = derives<Post>(Form, Resource, { table: "posts" });
