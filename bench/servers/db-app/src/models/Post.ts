import { derives, Form, Resource, type Id, type LongText } from "fw";
import type { tags } from "typia";
import type { Author } from "./Author.js";
import type { Tag } from "./Tag.js";

/**
 * A post by an author (a reference: a foreign key, a link on Index and Show) with its tags (a list
 * of references: the join table `posts_tags`, the tags' names as links), in a category (a union:
 * a select on the Index's filter form); its title and body are searched (the Index's search box);
 * its Show lists its comments.
 */
export interface Post {
  id: Id<Post>;
  title: string & tags.MaxLength<120>;
  author: Id<Author>;
  body: LongText;
  published: boolean;
  category: "news" | "howto" | "misc";
  tags: Id<Tag>[];
}

export const Post = derives<Post>(Form, Resource, { table: "posts", search: ["title", "body"] });
