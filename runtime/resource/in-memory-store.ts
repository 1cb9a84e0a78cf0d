import type { FieldSpec } from "./model.js";
import { effectiveOrders } from "./keyset.js";
import { rowComparator, sortedRows } from "./order.js";
import { checkOrder, checkQuery, queryFields, queryMatches, type QueryFields } from "./query-match.js";
import { cappedTotal } from "./page-count.js";
import type { Hit, ListPage, Page, Query, SearchPage, SearchResults } from "./query.js";
import { MAX_RANKED, parseQuery, rankOf, searchFieldsOf, searchText, snippetOf, type TextQuery } from "./text-search.js";
import type { Draft, Store } from "./store.js";

/** What an in-memory store knows of its model when made from its spec: the fields a query may name. */
export interface InMemoryModel {
  readonly name: string;
  readonly fields: readonly FieldSpec[];
  readonly owner?: string | undefined;
  /** Its searchable fields and their language (`ModelSpec.search`). */
  readonly search?: { readonly fields: readonly string[]; readonly language: string } | undefined;
}

/**
 * The in-memory store (spec 2.14): for a model with no table, so the seven routes mount and
 * serve without a database. Keys are 1, 2, 3, … in insertion order; rows live as long as the
 * process. Rows are copied in and out, so callers cannot change what is stored by accident.
 *
 * Made with the model (`new InMemoryStore(model.key, model)`), a `where` or `search` naming a
 * field the model lacks throws, naming it, as a database store's does; made with the key alone
 * it cannot tell, and such a field matches no row. It checks no reference and no unique: the
 * stores of an `InMemoryDatabase` do.
 */
export class InMemoryStore<A> implements Store<A> {
  /** @internal the rows by key: an `InMemoryDatabase` reads and changes them to keep references. */
  readonly rows = new Map<number, A>();
  private next = 1;
  private readonly fields: QueryFields | undefined;
  private readonly spec: InMemoryModel | undefined;
  /** The model's list fields (`tags: Id<Tag>[]`): copied in and out with their rows. */
  private readonly lists: readonly string[];

  /**
   * @param key the model's key field (`id`).
   * @param model the model's spec (its name and fields), so a query naming another field is refused.
   */
  constructor(
    private readonly key: string,
    model?: InMemoryModel,
  ) {
    this.spec = model;
    this.fields = model === undefined ? undefined : queryFields({ ...model, key });
    this.lists = (model?.fields ?? []).filter((field) => field.input === "references").map((field) => field.name);
  }

  /**
   * The rows matching `text` in the model's searchable fields (text-search.ts: web-search syntax,
   * English endings trimmed, no dictionary), best first, then key order; each with its snippets.
   */
  async search(text: string, page: SearchPage<A> = {}): Promise<SearchResults<A>> {
    const { fields, language } = searchFieldsOf(this.spec?.name ?? "This store", this.spec?.search);
    const query = parseQuery(searchText(text), language);
    const found = this.matching({ ...(page.where === undefined ? {} : { where: page.where }) }).flatMap((row) => {
      const rank = rankOf(row, fields, query, language);
      return rank === undefined ? [] : [{ row, rank, key: Number((row as Record<string, unknown>)[this.key]) }];
    });
    // The newest `rankUpTo` matches are ranked (as on fw/db); ties in key order.
    const cap = typeof page.rankUpTo === "number" && Number.isSafeInteger(page.rankUpTo) && page.rankUpTo >= 1 ? page.rankUpTo : MAX_RANKED;
    const ranked = [...found].sort((a, b) => b.key - a.key).slice(0, cap);
    ranked.sort((a, b) => b.rank - a.rank || a.key - b.key);
    const offset = page.offset ?? 0;
    const hits = ranked.slice(offset, offset + (page.limit ?? 20)).map(({ row, rank }) => ({ row: copy(row), rank, snippets: snippetsOf(row, fields, query, language) }));
    return { hits, total: cappedTotal(found.length, page) };
  }

  async list(page: ListPage<A>): Promise<Page<A>> {
    if (this.fields !== undefined) checkOrder(page.order, this.fields);
    const all = sortedRows(this.matching(page), page.order);
    const total = cappedTotal(all.length, page);
    if (page.after !== undefined || page.before !== undefined) return { ...keysetPage(all, page, this.key), total };
    const offset = page.offset ?? 0;
    return { rows: all.slice(offset, offset + page.limit).map(copy), total };
  }

  async count(query: Query<A> = {}): Promise<number> {
    return this.matching(query).length;
  }

  /** The rows a query's `where` and `search` keep, in key order (its fields checked first, when the model is known). */
  private matching(query: Query<A>): A[] {
    if (this.fields !== undefined) checkQuery(query, this.fields);
    return query.where === undefined && query.search === undefined ? [...this.rows.values()] : [...this.rows.values()].filter((row) => queryMatches(row, query));
  }

  async get(key: unknown): Promise<A | undefined> {
    const row = typeof key === "number" ? this.rows.get(key) : undefined;
    return row === undefined ? undefined : copy(row);
  }

  async insert(draft: Draft<A>): Promise<A> {
    const key = this.next++;
    const row = copyWithLists({ ...draft, [this.key]: key } as A, this.lists);
    this.rows.set(key, row);
    return copy(row);
  }

  async update(key: unknown, draft: Draft<A>): Promise<A | undefined> {
    if (typeof key !== "number" || !this.rows.has(key)) return undefined;
    const row = copyWithLists({ ...draft, [this.key]: key } as A, this.lists);
    this.rows.set(key, row);
    return copy(row);
  }

  async delete(key: unknown): Promise<boolean> {
    return typeof key === "number" && this.rows.delete(key);
  }
}

/** A keyset page of rows sorted as `page.order` says: those past its cursor, `offset` and `limit` counted from it (copies). */
function keysetPage<A>(sorted: readonly A[], page: ListPage<A>, key: string): { rows: A[]; more: boolean } {
  const compare = rowComparator(effectiveOrders(page.order, key), key);
  const offset = page.offset ?? 0;
  if (page.after !== undefined) {
    const cursor = page.after;
    const start = sorted.findIndex((row) => compare(row, cursor) > 0);
    const from = (start === -1 ? sorted.length : start) + offset;
    return { rows: sorted.slice(from, from + page.limit).map(copy), more: sorted.length > from + page.limit };
  }
  const cursor = page.before as Readonly<Record<string, unknown>>;
  const found = sorted.findIndex((row) => compare(row, cursor) >= 0);
  const end = (found === -1 ? sorted.length : found) - offset;
  const from = Math.max(0, end - page.limit);
  return { rows: sorted.slice(from, Math.max(0, end)).map(copy), more: from > 0 };
}

/** A row's snippets: one per searched field holding a match. */
function snippetsOf<A>(row: A, fields: readonly string[], query: TextQuery, language: string): Hit<A>["snippets"] {
  const snippets: Record<string, string> = {};
  for (const field of fields) {
    const value = (row as Record<string, unknown>)[field];
    const snippet = typeof value === "string" ? snippetOf(value, query, language) : undefined;
    if (snippet !== undefined) snippets[field] = snippet;
  }
  return snippets as Hit<A>["snippets"];
}

/** A row's copy, its lists copied too: a caller changing one cannot change what is stored. */
function copy<A>(row: A): A {
  const out = { ...row } as Record<string, unknown>;
  for (const [field, value] of Object.entries(out)) if (Array.isArray(value)) out[field] = [...(value as unknown[])];
  return out as A;
}

/**
 * A row's copy with its lists (`tags: Id<Tag>[]`) copied too, in key order without repeats, and
 * a list left out as the empty list: as a join table reads them back.
 */
function copyWithLists<A>(row: A, lists: readonly string[]): A {
  const out = { ...row } as Record<string, unknown>;
  for (const field of lists) {
    const value = out[field];
    out[field] = Array.isArray(value) ? [...new Set(value as number[])].sort((a, b) => a - b) : [];
  }
  return out as A;
}
