import type { RowFilter } from "./row-filter.js";

/** One page of rows, and how many there are in all. */
export interface Page<A> {
  readonly rows: readonly A[];
  readonly total: number;
}

/** A model's values without its key: what a form yields and `insert` takes. */
export type Draft<A> = Record<string, unknown> & Partial<A>;

/**
 * The service one model's routes use (spec 2.14), asynchronous so a database can stand behind
 * it. Keys are the model's `Id`s; `insert` assigns a fresh one. Every implementation passes
 * the same conformance suite (spec/resource/store-conformance.ts).
 */
export interface Store<A> {
  /** Rows in key order, `offset` and `limit` as in SQL. */
  list(page: { readonly offset: number; readonly limit: number }): Promise<Page<A>>;
  get(key: unknown): Promise<A | undefined>;
  insert(draft: Draft<A>): Promise<A>;
  /** The updated row, or undefined when there is no row with that key. */
  update(key: unknown, draft: Draft<A>): Promise<A | undefined>;
  /** True when a row was deleted. */
  delete(key: unknown): Promise<boolean>;
  /**
   * Optional: the rows `filter` matches, as a store of its own (list and get see only them;
   * update and delete touch only them; insert goes to the table). A database store answers it
   * with a WHERE clause; without it fw scans the table (`narrowed` in row-filter.ts).
   */
  where?(filter: RowFilter): Store<A>;
}
