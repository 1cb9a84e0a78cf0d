import { derives, Form, Resource, type Id, type LongText } from "fw";
import type { tags } from "typia";

/** A blog post. Its seven pages live at /posts, derived from this type. */
export interface Post {
  id: Id<Post>;
  title: string & tags.MinLength<1>;
  body: LongText;
  published: boolean;
  summary?: string;
  category: "news" | "howto" | "misc";
}

export const Post = derives<Post>(Form, Resource);
