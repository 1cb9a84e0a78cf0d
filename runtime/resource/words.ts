import type { ModelSpec } from "./model.js";

/** The words a model's pages use: "Blog post", "blog post", "Blog posts". */
export interface Words {
  readonly one: string;
  readonly lower: string;
  readonly many: string;
}

/** A model's words, from its name (one) and its derived path (many: `/blog-posts` → "Blog posts"). */
export function wordsOf(model: Pick<ModelSpec<unknown>, "name" | "path">): Words {
  const spaced = model.name.replace(/([a-z0-9])([A-Z])/g, "$1 $2");
  const many = model.path.slice(1).replace(/-/g, " ");
  return { one: spaced, lower: spaced.toLowerCase(), many: many.charAt(0).toUpperCase() + many.slice(1) };
}

/** "a comment", "an entry": one of something, with its article. */
export function withArticle(word: string): string {
  return `${/^[aeiou]/i.test(word) ? "an" : "a"} ${word}`;
}

/** "1 comment", "3 comments": a count of a model's rows. */
export function counted(n: number, words: Words): string {
  return `${n.toLocaleString("en-US")} ${n === 1 ? words.lower : words.many.toLowerCase()}`;
}

/** "a", "a and b", "a, b and c". */
export function listed(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}
