/**
 * What the derived Index shows, read from its URL (issue 43, item 4), and the URLs of its links:
 * the sort (`?sort=-title`), the filters derived from the model's fields (`?category=news`,
 * `?post=7`, `?published=true`, `?createdAt.from=2026-01-01&createdAt.to=2026-01-31`), the page
 * size (`?size=25`), the keyset cursor (`?after=…`, `?before=…`) and the search (`?q=`). All of
 * it is in the URL, so a page is shareable and back-button safe, and works without JavaScript.
 * A parameter the Index does not take, a value of the wrong type or given twice, is a 400 naming it.
 */
import { BadRequest } from "../http/failure.js";
import type { Fields } from "../http/fields.js";
import { pageNumber } from "./page-number.js";
import { cursorOf, readCursor } from "./cursor.js";
import type { Field } from "./form.js";
import type { ModelSpec } from "./model.js";
import { keyText } from "./picker.js";
import type { Order, Where } from "./query.js";
import { withArticle, wordsOf } from "./words.js";

/** Rows per index page unless `?size=` says otherwise. */
export const PAGE_SIZE = 50;

/** The page sizes `?size=` takes (the Index offers them). */
export const PAGE_SIZES: readonly number[] = [10, 25, 50, 100];

/** The longest search text the Index reads (`?q=`); longer is a 400 saying so. */
export const MAX_SEARCH = 200;

/** One filter the Index applies: a field and what it keeps. */
export type IndexFilter =
  | { readonly field: Field; readonly kind: "reference"; readonly value: number }
  | { readonly field: Field; readonly kind: "select"; readonly value: string }
  | { readonly field: Field; readonly kind: "checkbox"; readonly value: boolean }
  | { readonly field: Field; readonly kind: "date"; readonly from?: string; readonly to?: string };

/** What an Index shows. */
export interface IndexQuery {
  /** The sort asked for (`?sort=`), undefined for the model's own. */
  readonly sort: Order | undefined;
  readonly filters: readonly IndexFilter[];
  readonly size: number;
  /** The search text (`?q=`), when the model has searchable fields and one was given. */
  readonly search?: string;
  readonly after?: Record<string, unknown>;
  readonly before?: Record<string, unknown>;
  /** An offset page (`?page=`), for links written before keyset paging. */
  readonly page: number;
}

/** The kinds of field the Index filters by, and how. */
export function filterKind(field: Field): IndexFilter["kind"] | undefined {
  if (field.input === "reference" || field.input === "select" || field.input === "checkbox" || field.input === "date") return field.input;
  // A list (many-to-many) is filtered by one row it holds: `/posts?tags=3`, the posts tagged 3.
  if (field.input === "references") return "reference";
  return undefined;
}

/** The model's fields an Index filters by, in order. */
export function filterFields(fields: readonly Field[]): Field[] {
  return fields.filter((field) => filterKind(field) !== undefined);
}

/** What reading an Index's URL needs to know of its model. */
export interface IndexModel {
  readonly model: ModelSpec<unknown>;
  /** The fields it shows (each sortable). */
  readonly shown: readonly Field[];
  /** Its plural, for messages ("posts"). */
  readonly many: string;
  /** Whether it takes `?q=` (a model with searchable fields). */
  readonly searchable: boolean;
}

/**
 * The Index's query: every parameter read and checked (a 400 naming the first that is not what
 * it takes, listing what the Index takes); the cursor read against the sort it is for.
 */
export function readIndexQuery(query: Fields, index: IndexModel): IndexQuery {
  const known = knownParameters(index);
  for (const name of query.names) {
    if (!known.has(name)) {
      throw new BadRequest(`The index of ${index.many} takes no parameter ${JSON.stringify(name.slice(0, 40))}: it takes ${[...known].join(", ")}.`);
    }
    if (query.getAll(name).length > 1) throw new BadRequest(`The parameter ?${name}= of the index of ${index.many} is given ${query.getAll(name).length} times; it takes one value.`);
  }
  const sort = sortOf(query.get("sort"), index);
  const filters = filterFields(index.shown).flatMap((field) => filterOf(query, field, index));
  const size = sizeOf(query.get("size"), index);
  const search = searchOf(query.get("q"), index);
  const orders = indexOrders(sort, index.model);
  const cursor = (name: "after" | "before"): Record<string, unknown> | undefined => {
    const text = query.get(name);
    return text === undefined ? undefined : readCursor(text, orders, index.model.fields, index.model.key, name);
  };
  const after = cursor("after");
  const before = cursor("before");
  if (after !== undefined && before !== undefined) throw new BadRequest(`The index of ${index.many} takes ?after= or ?before=, not both.`);
  // A search's hits are ranked, not sorted: they page by number (?page=), never by a sort key.
  if (search !== undefined && (after !== undefined || before !== undefined)) {
    throw new BadRequest(`The search of ${index.many} pages by ?page=, not by ?${after === undefined ? "before" : "after"}= (its results are ranked, not sorted).`);
  }
  return {
    sort,
    filters,
    size,
    page: pageNumber(query.get("page")),
    ...(search === undefined ? {} : { search }),
    ...(after === undefined ? {} : { after }),
    ...(before === undefined ? {} : { before }),
  };
}

/** Every parameter an Index takes. */
function knownParameters(index: IndexModel): Set<string> {
  const names = ["sort", "size", "after", "before", "page", ...(index.searchable ? ["q"] : [])];
  for (const field of filterFields(index.shown)) {
    if (field.input === "date") names.push(`${field.name}.from`, `${field.name}.to`);
    else names.push(field.name);
  }
  return new Set(names);
}

/**
 * The rows an Index lists, sorted: the sort asked for (else the model's own, `ModelSpec.sort`,
 * else key order), its ties broken by the key in the same direction, so a descending list is
 * the exact reverse of the ascending one and one index on (field, key) serves both.
 */
export function indexOrders(sort: Order | undefined, model: ModelSpec<unknown>): readonly Order[] {
  const chosen = sort ?? model.sort;
  if (chosen === undefined) return [{ field: model.key, descending: false }];
  return chosen.field === model.key ? [chosen] : [chosen, { field: model.key, descending: chosen.descending }];
}

/** `?sort=`: a field the Index shows, `-` before it for descending; anything else is a 400 naming the choices. */
function sortOf(text: string | undefined, index: IndexModel): Order | undefined {
  if (text === undefined) return undefined;
  const descending = text.startsWith("-");
  const field = descending ? text.slice(1) : text;
  const sortable = (f: Field): boolean => f.input !== "file" && f.input !== "references";
  if (index.shown.some((f) => f.name === field && sortable(f))) return { field, descending };
  const names = index.shown.filter(sortable).map((f) => f.name).join(", ");
  throw new BadRequest(`The index of ${index.many} cannot be sorted by ${JSON.stringify(text.slice(0, 40))}: sort by one of ${names}, with "-" before it for descending order (?sort=-${index.shown[0]?.name ?? "field"}).`);
}

/** `?size=`: one of the page sizes the Index offers (50 when absent). */
function sizeOf(text: string | undefined, index: IndexModel): number {
  if (text === undefined) return PAGE_SIZE;
  const size = PAGE_SIZES.find((one) => String(one) === text);
  if (size === undefined) throw new BadRequest(`The index of ${index.many} shows ${PAGE_SIZES.join(", ")} rows a page (?size=25), not ${JSON.stringify(text.slice(0, 40))}.`);
  return size;
}

/** `?q=`: the search text, trimmed (absent when empty); too long is a 400. */
function searchOf(text: string | undefined, index: IndexModel): string | undefined {
  if (text === undefined || !index.searchable) return undefined;
  const trimmed = text.trim();
  if (trimmed.length > MAX_SEARCH) throw new BadRequest(`The search of ${index.many} takes at most ${MAX_SEARCH} characters; this one has ${trimmed.length}.`);
  return trimmed === "" ? undefined : trimmed;
}

/** One field's filter as the URL gives it (none when its parameters are absent or empty, as an empty form field sends them). */
function filterOf(query: Fields, field: Field, index: IndexModel): IndexFilter[] {
  const refuse = (name: string, text: string, takes: string): never => {
    throw new BadRequest(`The index of ${index.many} is filtered by ${field.label.toLowerCase()} (?${name}=) with ${takes}, not ${JSON.stringify(text.slice(0, 40))}.`);
  };
  if (field.input === "date") {
    const day = (name: string): string | undefined => {
      const text = query.get(name);
      if (text === undefined || text === "") return undefined;
      return isDay(text) ? text : refuse(name, text, "a date (YYYY-MM-DD)");
    };
    const from = day(`${field.name}.from`);
    const to = day(`${field.name}.to`);
    return from === undefined && to === undefined ? [] : [{ field, kind: "date", ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }) }];
  }
  const text = query.get(field.name);
  if (text === undefined || text === "") return [];
  switch (field.input) {
    case "reference":
    case "references": {
      const key = keyText(text);
      const target = withArticle(field.reference === undefined ? field.label.toLowerCase() : wordsOf({ name: field.reference.model, path: field.reference.path }).lower);
      return key === undefined ? refuse(field.name, text, `the number of ${target} (a whole number from 1: ${index.model.path}?${field.name}=7)`) : [{ field, kind: "reference", value: key }];
    }
    case "select":
      return (field.options ?? []).includes(text) ? [{ field, kind: "select", value: text }] : refuse(field.name, text, `one of ${(field.options ?? []).join(", ")}`);
    case "checkbox":
      return text === "true" || text === "false" ? [{ field, kind: "checkbox", value: text === "true" }] : refuse(field.name, text, "true or false");
    default:
      return [];
  }
}

/** `YYYY-MM-DD`, a real day from year 1 to 9999. */
function isDay(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text) || text.startsWith("0000")) return false;
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === text;
}

/** The filters as a where: each must hold; a date range from the start of its first day to the end of its last. */
export function filtersWhere(filters: readonly IndexFilter[]): Where<unknown> {
  const where: Record<string, unknown> = {};
  for (const filter of filters) {
    if (filter.kind !== "date") {
      where[filter.field.name] = filter.field.input === "references" ? { has: filter.value } : filter.value;
      continue;
    }
    where[filter.field.name] = {
      ...(filter.from === undefined ? {} : { gte: new Date(`${filter.from}T00:00:00Z`) }),
      ...(filter.to === undefined ? {} : { lt: new Date(new Date(`${filter.to}T00:00:00Z`).getTime() + 86_400_000) }),
    };
  }
  return where as Where<unknown>;
}

/** What a link changes of the current query: its cursor (none: the first page), sort, size or filters. */
export interface IndexChange {
  readonly sort?: Order | undefined;
  readonly after?: unknown;
  readonly before?: unknown;
  /** An offset page (a search's results, ranked, page by page). */
  readonly page?: number;
}

/**
 * The query text of an Index link: the filters, search, sort and size kept (each left out at its
 * default), and the cursor of the page it goes to (a row of this page, written for the sort).
 */
export function indexQueryText(query: IndexQuery, model: ModelSpec<unknown>, change: IndexChange = {}): string {
  const params = new URLSearchParams();
  for (const filter of query.filters) {
    if (filter.kind !== "date") params.append(filter.field.name, String(filter.value));
    else {
      if (filter.from !== undefined) params.append(`${filter.field.name}.from`, filter.from);
      if (filter.to !== undefined) params.append(`${filter.field.name}.to`, filter.to);
    }
  }
  if (query.search !== undefined) params.append("q", query.search);
  const sort = "sort" in change ? change.sort : query.sort;
  if (sort !== undefined) params.append("sort", `${sort.descending ? "-" : ""}${sort.field}`);
  if (query.size !== PAGE_SIZE) params.append("size", String(query.size));
  const orders = indexOrders(sort, model);
  if (change.after !== undefined) params.append("after", cursorOf(change.after, orders));
  if (change.before !== undefined) params.append("before", cursorOf(change.before, orders));
  if (change.page !== undefined && change.page > 1) params.append("page", String(change.page));
  const text = params.toString();
  return text === "" ? "" : `?${text}`;
}
