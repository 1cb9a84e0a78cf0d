import type { ModelSpec } from "./model.js";

/** The words a model's pages use: "Blog post", "blog post", "Blog posts". */
export interface Words {
  readonly one: string;
  readonly lower: string;
  readonly many: string;
}

/** A model's words, from its name (one) and its derived path (many: `/blog-posts` → "Blog posts"). */
export function wordsOf(model: Pick<ModelSpec<unknown>, "name" | "path">): Words {
  // Asked on every page (a Show's lists, a label's fallback): worked out once per name and path.
  let byPath = known.get(model.name);
  if (byPath === undefined) known.set(model.name, (byPath = new Map()));
  let words = byPath.get(model.path);
  if (words === undefined) byPath.set(model.path, (words = wordsFrom(model)));
  return words;
}

/** The models' words already worked out, by name then path: as many as the app has models. */
const known = new Map<string, Map<string, Words>>();

function wordsFrom(model: Pick<ModelSpec<unknown>, "name" | "path">): Words {
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
