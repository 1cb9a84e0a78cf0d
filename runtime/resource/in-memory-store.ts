import { sortedRows } from "./order.js";
import type { ListPage, Page } from "./query.js";
import type { Draft, Store } from "./store.js";

/**
 * The in-memory store (spec 2.14): for a model with no table, so the seven routes mount and
 * serve without a database. Keys are 1, 2, 3, … in insertion order; rows live as long as the
 * process. Rows are copied in and out, so callers cannot change what is stored by accident.
 */
export class InMemoryStore<A> implements Store<A> {
  private readonly rows = new Map<number, A>();
  private next = 1;

  /** @param key the model's key field (`id`). */
  constructor(private readonly key: string) {}

  async list(page: ListPage<A>): Promise<Page<A>> {
    const all = sortedRows([...this.rows.values()], page.order);
    return { rows: all.slice(page.offset, page.offset + page.limit).map(copy), total: all.length };
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
