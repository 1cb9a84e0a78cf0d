import type { FieldSpec } from "./model.js";
import { sortedRows } from "./order.js";
import { checkOrder, checkQuery, queryFields, queryMatches, type QueryFields } from "./query-match.js";
import { cappedTotal } from "./page-count.js";
import type { ListPage, Page, Query } from "./query.js";
import type { Draft, Store } from "./store.js";

/** What an in-memory store knows of its model when made from its spec: the fields a query may name. */
export interface InMemoryModel {
  readonly name: string;
  readonly fields: readonly FieldSpec[];
  readonly owner?: string | undefined;
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

  /**
   * @param key the model's key field (`id`).
   * @param model the model's spec (its name and fields), so a query naming another field is refused.
   */
  constructor(
    private readonly key: string,
    model?: InMemoryModel,
  ) {
    this.fields = model === undefined ? undefined : queryFields({ ...model, key });
  }

  async list(page: ListPage<A>): Promise<Page<A>> {
    if (this.fields !== undefined) checkOrder(page.order, this.fields);
    const all = sortedRows(this.matching(page), page.order);
    const offset = page.offset ?? 0;
    return { rows: all.slice(offset, offset + page.limit).map(copy), total: cappedTotal(all.length, page) };
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
    const row = { ...draft, [this.key]: key } as A;
    this.rows.set(key, row);
    return copy(row);
  }

  async update(key: unknown, draft: Draft<A>): Promise<A | undefined> {
    if (typeof key !== "number" || !this.rows.has(key)) return undefined;
    const row = { ...draft, [this.key]: key } as A;
    this.rows.set(key, row);
    return copy(row);
  }

  async delete(key: unknown): Promise<boolean> {
    return typeof key === "number" && this.rows.delete(key);
  }
}

function copy<A>(row: A): A {
  return { ...row };
}
