import { derives, Form, Resource, type Id } from "fw";
import type { tags } from "typia";

/** A tag on posts (many-to-many): a post's Index and Show list its tags as links labelled with their names. */
export interface Tag {
  id: Id<Tag>;
  name: string & tags.MaxLength<40>;
}

export const Tag = derives<Tag>(Form, Resource, { table: "tags" });
