import { sortedRows } from "./order.js";
import type { ListPage, Page, RowFilter } from "./query.js";
import type { Draft, Store } from "./store.js";

/** Rows are read from the whole table this many at a time when a store cannot filter itself. */
const SCAN_PAGE = 500;

export function matches(row: unknown, filter: RowFilter): boolean {
  const record = row as Record<string, unknown>;
  return filter.anyOf.some((condition) => record[condition.field] === condition.equals);
}

/**
 * The rows of `store` that `filter` matches, as a `Store`: the store's own `where` when it has
 * one (a database answers with a query), else a scan of the whole table.
 */
export function narrowed<A>(store: Store<A>, filter: RowFilter): Store<A> {
  return store.where?.(filter) ?? new ScannedRows(store, filter);
}

/** Every row of a store (or those a `where` and `search` keep, the store filtering them), in key order. */
export async function allRows<A>(store: Store<A>, query: Pick<ListPage<A>, "where" | "search"> = {}): Promise<A[]> {
  const rows: A[] = [];
  for (let offset = 0; ; offset += SCAN_PAGE) {
    const page = await store.list({ ...query, offset, limit: SCAN_PAGE });
    rows.push(...page.rows);
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

  /** The page's `where` and `search` go to the store below (which checks their fields), the filter is applied here. */
  async list(page: ListPage<A>): Promise<Page<A>> {
    const query = { ...(page.where === undefined ? {} : { where: page.where }), ...(page.search === undefined ? {} : { search: page.search }) };
    const rows = sortedRows((await allRows(this.store, query)).filter((row) => matches(row, this.filter)), page.order);
    return { rows: rows.slice(page.offset, page.offset + page.limit), total: rows.length };
  }

  async get(key: unknown): Promise<A | undefined> {
    const row = await this.store.get(key);
    return row !== undefined && matches(row, this.filter) ? row : undefined;
  }

  insert(draft: Draft<A>): Promise<A> {
    return this.store.insert(draft);
  }

  async update(key: unknown, draft: Draft<A>): Promise<A | undefined> {
    return (await this.get(key)) === undefined ? undefined : this.store.update(key, draft);
  }

  async delete(key: unknown): Promise<boolean> {
    return (await this.get(key)) !== undefined && this.store.delete(key);
  }

  where(filter: RowFilter): Store<A> {
    // Both must hold: narrow the narrowing (the conditions of one filter are alternatives).
    return new ScannedRows<A>(this, filter);
  }
}
