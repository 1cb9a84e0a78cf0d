import { derives, Form, Resource, type Id, type LongText } from "fw";
import type { tags } from "typia";

/** The bench's plain table model (no references): its seven derived pages read and write the "articles" table. */
export interface Article {
  id: Id<Article>;
  title: string & tags.MaxLength<120>;
  author: string & tags.MaxLength<80>;
  body: LongText;
  rating: number;
  published: boolean;
}

export const Article = derives<Article>(Form, Resource, { table: "articles" });
