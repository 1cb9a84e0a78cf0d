import { BadRequest, type Fields, type Order, type Where } from "fw";
import type { Post } from "../../models/Post.js";
import { CATEGORIES, readCursor, SORTABLE, type Boundary, type SortField } from "./list-cursor.js";

/**
 * What /posts shows, read from its URL: all of it is there (a GET form sends it), so a list is
 * shareable, back-button safe and works without JavaScript. The parameters are spelled as fw's
 * derived Index spells them (`?category=news`, `?tags=3`, `?createdAt.from=2026-01-01`,
 * `?sort=-title`, `?after=…`), so a link to one works on the other. A value it cannot read, or one
 * given twice, is a 400 naming the parameter and what it takes; parameters it does not know
 * (`utm_source`) are left alone, as a handler's typed query parameters leave them.
 */
export interface ListQuery {
  /** `?q=`: the search text, trimmed; its hits come ranked, so the list's sort and cursor are not used. */
  readonly search?: string;
  /** `?sort=`: the field and direction; absent, the model's own order (newest first). */
  readonly sort?: Order & { readonly field: SortField };
  /** The filters: `?category=`, `?tags=` (a tag's key), `?createdAt.from=` / `?createdAt.to=` (days, both included). */
  readonly category?: Post["category"];
  readonly tag?: number;
  readonly from?: string;
  readonly to?: string;
  /** `?after=` / `?before=`: where a keyset page starts. */
  readonly after?: Boundary;
  readonly before?: Boundary;
  /** `?page=`: a search's page (its hits are ranked), or an offset page of a link written before keyset paging. */
  readonly page: number;
}

/** The longest search the page takes (characters); longer is a 400 saying so. */
export const MAX_SEARCH = 200;

/** The order the list has without `?sort=`: the model's own (`sort: "-createdAt"`). */
export const NEWEST_FIRST: Order & { readonly field: SortField } = { field: "createdAt", descending: true };

/** The URL's query as /posts reads it. */
export function readListQuery(query: Fields): ListQuery {
  const one = (name: string): string | undefined => {
    const all = query.getAll(name);
    if (all.length > 1) throw new BadRequest(`The parameter ?${name}= of /posts is given ${all.length} times; it takes one value.`);
    // An empty form field is sent as `name=`: no filter.
    return all[0] === "" ? undefined : all[0];
  };
  const search = searchOf(one("q"));
  const sort = sortOf(one("sort"));
  const field = (sort ?? NEWEST_FIRST).field;
  const after = cursor(one("after"), field, "after");
  const before = cursor(one("before"), field, "before");
  if (after !== undefined && before !== undefined) throw new BadRequest("The list of posts takes ?after= or ?before=, not both.");
  if (search !== undefined && (after !== undefined || before !== undefined)) {
    throw new BadRequest(`The search of posts pages by ?page=, not by ?${after === undefined ? "before" : "after"}= (its results are ranked, not sorted).`);
  }
  const from = dayOf(one("createdAt.from"), "createdAt.from");
  const to = dayOf(one("createdAt.to"), "createdAt.to");
  if (from !== undefined && to !== undefined && from > to) throw new BadRequest(`The posts' date range ends (?createdAt.to=${to}) before it starts (?createdAt.from=${from}).`);
  const category = categoryOf(one("category"));
  const tag = tagOf(one("tags"));
  return {
    page: pageOf(one("page")),
    ...(search === undefined ? {} : { search }),
    ...(sort === undefined ? {} : { sort }),
    ...(category === undefined ? {} : { category }),
    ...(tag === undefined ? {} : { tag }),
    ...(from === undefined ? {} : { from }),
    ...(to === undefined ? {} : { to }),
    ...(after === undefined ? {} : { after }),
    ...(before === undefined ? {} : { before }),
  };
}

/** The query's filters as a store's `where` (every one must hold; the date range from the start of its first day to the end of its last, UTC). */
export function whereOf(query: ListQuery): Where<Post> {
  const createdAt = {
    ...(query.from === undefined ? {} : { gte: new Date(`${query.from}T00:00:00Z`) }),
    ...(query.to === undefined ? {} : { lt: new Date(Date.parse(`${query.to}T00:00:00Z`) + 86_400_000) }),
  };
  return {
    ...(query.category === undefined ? {} : { category: query.category }),
    ...(query.tag === undefined ? {} : { tags: { has: query.tag } }),
    ...(query.from === undefined && query.to === undefined ? {} : { createdAt }),
  };
}

/** Whether the query filters the list (or searches it). */
export function filtered(query: ListQuery): boolean {
  return query.search !== undefined || query.category !== undefined || query.tag !== undefined || query.from !== undefined || query.to !== undefined;
}

function searchOf(text: string | undefined): string | undefined {
  const trimmed = text?.trim();
  if (trimmed === undefined || trimmed === "") return undefined;
  if (trimmed.length > MAX_SEARCH) throw new BadRequest(`A search of the posts takes at most ${MAX_SEARCH} characters; this one has ${trimmed.length}.`);
  return trimmed;
}

/** `?sort=`: a sortable field, `-` before it for descending; anything else is a 400 naming the choices. */
function sortOf(text: string | undefined): ListQuery["sort"] {
  if (text === undefined) return undefined;
  const descending = text.startsWith("-");
  const field = SORTABLE.find((one) => one === (descending ? text.slice(1) : text));
  if (field === undefined) {
    throw new BadRequest(`The posts cannot be sorted by ${JSON.stringify(text.slice(0, 40))} (?sort=): sort by one of ${SORTABLE.join(", ")}, with "-" before it for descending order (?sort=-title).`);
  }
  return { field, descending };
}

function cursor(text: string | undefined, field: SortField, parameter: "after" | "before"): Boundary | undefined {
  return text === undefined ? undefined : readCursor(text, field, parameter);
}

/** `?createdAt.from=` / `.to=`: a real day, `YYYY-MM-DD`, from year 1 to 9999. */
function dayOf(text: string | undefined, parameter: string): string | undefined {
  if (text === undefined) return undefined;
  const date = /^\d{4}-\d{2}-\d{2}$/.test(text) && !text.startsWith("0000") ? new Date(`${text}T00:00:00Z`) : undefined;
  if (date === undefined || Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== text) {
    throw new BadRequest(`The posts are filtered by date (?${parameter}=) with a day written YYYY-MM-DD (2026-01-31), not ${JSON.stringify(text.slice(0, 40))}.`);
  }
  return text;
}

function categoryOf(text: string | undefined): Post["category"] | undefined {
  if (text === undefined) return undefined;
  const category = CATEGORIES.find((one) => one === text);
  if (category === undefined) throw new BadRequest(`The posts are filtered by category (?category=) with one of ${CATEGORIES.join(", ")}, not ${JSON.stringify(text.slice(0, 40))}.`);
  return category;
}

/** `?tags=`: a tag's key, a whole number from 1 written in digits alone (whether the tag exists is the page's to ask). */
function tagOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const key = /^[1-9][0-9]{0,9}$/.test(text) ? Number(text) : 0;
  if (key < 1 || key > 4_294_967_295) throw new BadRequest(`The posts are filtered by tag (?tags=) with the number of a tag (a whole number from 1: /posts?tags=3), not ${JSON.stringify(text.slice(0, 40))}.`);
  return key;
}

/** `?page=`: absent is 1, anything but a whole number from 1 is a 400. */
function pageOf(text: string | undefined): number {
  if (text === undefined) return 1;
  if (!/^[1-9][0-9]{0,8}$/.test(text)) throw new BadRequest(`The page number ?page=${JSON.stringify(text.slice(0, 40))} is not a whole number from 1 up.`);
  return Number(text);
}
