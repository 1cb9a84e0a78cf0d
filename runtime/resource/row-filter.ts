import { cappedTotal } from "./page-count.js";
import type { Hit, KeysOf, ListPage, Page, Query, RowFilter, SearchPage, SearchResults } from "./query.js";
import type { Draft, Store } from "./store.js";
import type { Id } from "./types.js";

/** Rows are read from the whole table this many at a time when a store cannot filter itself. */
const SCAN_PAGE = 500;

/** A row filter whose `in` conditions were read: each the set of keys it names. */
type ReadFilter = readonly ({ readonly field: string; readonly equals: unknown } | { readonly field: string; readonly keys: ReadonlySet<unknown> })[];

/**
 * Whether `row` matches a filter of equalities (an `in` condition names other rows, whose keys
 * are read first: `ScannedRows` does).
 */
export function matches(row: unknown, filter: RowFilter): boolean {
  return matchesRead(
    row,
    filter.anyOf.map((condition) => {
      if ("in" in condition) throw new Error(`matches: the condition on ${condition.field} names other rows (\`in\`): read their keys first.`);
      return condition;
    }),
  );
}

/** Whether `row` matches a filter read by `readFilter`: any of its conditions holds. */
function matchesRead(row: unknown, filter: ReadFilter): boolean {
  const record = row as Record<string, unknown>;
  return filter.some((condition) => {
    const value = record[condition.field];
    return "keys" in condition ? value !== undefined && value !== null && condition.keys.has(value) : value === condition.equals;
  });
}

/** A filter's `in` conditions as the keys of the rows they name, read from their stores (once per read). */
async function readFilter(filter: RowFilter): Promise<ReadFilter> {
  return Promise.all(filter.anyOf.map(async (condition) => ("in" in condition ? { field: condition.field, keys: await keysOf(condition.in) } : condition)));
}

async function keysOf(source: KeysOf): Promise<ReadonlySet<unknown>> {
  return new Set((await allRows(source.rows)).map((row) => (row as Record<string, unknown>)[source.key]));
}

/**
 * The rows of `store` that `filter` matches, as a `Store`: the store's own `where` when it has
 * one (a database answers with a query), else a scan of the whole table.
 */
export function narrowed<A>(store: Store<A>, filter: RowFilter): Store<A> {
  return store.where?.(filter) ?? new ScannedRows(store, filter);
}

/**
 * Every row of a store (or those a `where` and `search` keep, the store filtering them), in key
 * order (or the query's `order`); with `after` or `before`, those past that row, in order (a
 * `before` page is the rows nearest it, so each one read goes in front of the others).
 */
export async function allRows<A>(store: Pick<Store<A>, "list">, query: Pick<ListPage<A>, "where" | "search" | "order" | "after" | "before"> = {}): Promise<A[]> {
  let rows: A[] = [];
  for (let offset = 0; ; offset += SCAN_PAGE) {
    const page = await store.list({ ...query, offset, limit: SCAN_PAGE });
    rows = query.before === undefined ? rows.concat(page.rows) : [...page.rows, ...rows];
    if (page.rows.length < SCAN_PAGE) return rows;
  }
}

/**
 * A store narrowed by a filter, read by scanning (stores without `where`): lists and gets only
 * matching rows, changes and deletes only matching rows; inserts go to the whole table.
 */
class ScannedRows<A> implements Store<A> {
  constructor(
    private readonly store: Store<A>,
    private readonly filter: RowFilter,
  ) {}

  /** The page's `where`, `search` and `order` go to the store below (which checks their fields), the filter is applied here. */
  async list(page: ListPage<A>): Promise<Page<A>> {
    const offset = page.offset ?? 0;
    if (page.after === undefined && page.before === undefined) {
      const rows = await this.matching(page);
      return { rows: rows.slice(offset, offset + page.limit), total: cappedTotal(rows.length, page) };
    }
    // Keyset: the store below finds the rows past the cursor; the whole list is counted apart.
    const whole = { ...(page.where === undefined ? {} : { where: page.where }), ...(page.search === undefined ? {} : { search: page.search }) };
    const [past, total] = await Promise.all([this.matching(page), this.count(whole)]);
    if (page.after !== undefined) return { rows: past.slice(offset, offset + page.limit), total: cappedTotal(total, page), more: past.length > offset + page.limit };
    const end = Math.max(0, past.length - offset);
    const from = Math.max(0, end - page.limit);
    return { rows: past.slice(from, end), total: cappedTotal(total, page), more: from > 0 };
  }

  async count(query: Query<A> = {}): Promise<number> {
    return (await this.matching(query)).length;
  }

  /** The rows the store below keeps for the query's `where` and `search` that the filter matches, in key order. */
  private async matching(page: Query<A> & Pick<ListPage<A>, "order" | "after" | "before">): Promise<A[]> {
    const query: Pick<ListPage<A>, "where" | "search" | "order" | "after" | "before"> = {
      ...(page.where === undefined ? {} : { where: page.where }),
      ...(page.search === undefined ? {} : { search: page.search }),
      ...(page.order === undefined ? {} : { order: page.order }),
      ...(page.after === undefined ? {} : { after: page.after }),
      ...(page.before === undefined ? {} : { before: page.before }),
    };
    const filter = await readFilter(this.filter);
    return (await allRows(this.store, query)).filter((row) => matchesRead(row, filter));
  }

  /**
   * The store below's hits that the filter matches, read a page at a time, in its order. Its
   * `rankUpTo` applies to every match below, before the filter (a scanned store is a small,
   * in-memory one); `total` counts every match the filter keeps.
   */
  async search(text: string, page: SearchPage<A> = {}): Promise<SearchResults<A>> {
    const filter = await readFilter(this.filter);
    const kept = async (rankUpTo: number | undefined): Promise<Hit<A>[]> => {
      const hits: Hit<A>[] = [];
      for (let offset = 0; ; offset += SCAN_PAGE) {
        const found = await this.store.search(text, { ...(page.where === undefined ? {} : { where: page.where }), ...(rankUpTo === undefined ? {} : { rankUpTo }), offset, limit: SCAN_PAGE });
        hits.push(...found.hits.filter((hit) => matchesRead(hit.row, filter)));
        if (found.hits.length < SCAN_PAGE) return hits;
      }
    };
    const ranked = await kept(page.rankUpTo);
    // Counted apart: the ranked hits stop at the store below's rank cap, the count does not.
    const all = await kept(Number.MAX_SAFE_INTEGER);
    const offset = page.offset ?? 0;
    return { hits: ranked.slice(offset, offset + (page.limit ?? 20)), total: cappedTotal(all.length, page) };
  }

  async get(key: Id<A>): Promise<A | undefined> {
    const row = await this.store.get(key);
    return row !== undefined && matchesRead(row, await readFilter(this.filter)) ? row : undefined;
  }

  insert(draft: Draft<A>): Promise<A> {
    return this.store.insert(draft);
  }

  async update(key: Id<A>, draft: Draft<A>): Promise<A | undefined> {
    return (await this.get(key)) === undefined ? undefined : this.store.update(key, draft);
  }

  async delete(key: Id<A>): Promise<boolean> {
    return (await this.get(key)) !== undefined && this.store.delete(key);
  }

  where(filter: RowFilter): Store<A> {
    // Both must hold: narrow the narrowing (the conditions of one filter are alternatives).
    return new ScannedRows<A>(this, filter);
  }
}
