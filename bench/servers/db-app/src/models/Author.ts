import { derives, Form, Resource, type Id } from "fw";
import type { tags } from "typia";

/** Who wrote a post: a post's reference shows as a link labelled with the author's name (the first text field). */
export interface Author {
  id: Id<Author>;
  name: string & tags.MaxLength<80>;
  email: string & tags.MaxLength<120>;
}

export const Author = derives<Author>(Form, Resource, { table: "authors" });
