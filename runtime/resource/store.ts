import type { ListPage, Page, Query, RowFilter, SearchPage, SearchResults } from "./query.js";
import type { Id } from "./types.js";

/** A row and the version it was read at (a store with optimistic concurrency, fw/db's). */
export interface Versioned<A> {
  readonly row: A;
  readonly version: number;
}

/** A model's values without its key: what a form yields and `insert` takes. */
export type Draft<A> = Record<string, unknown> & Partial<A>;

/**
 * The service one model's routes use (spec 2.14), asynchronous so a database can stand behind
 * it. Keys are the model's `Id`s (a `Store<Post>` takes an `Id<Post>` or a number, never an
 * `Id<Note>`); `insert` assigns a fresh one. Every implementation passes
 * the same conformance suite (spec/resource/store-conformance.ts).
 *
 * A handler's `Store<Model>` capability is the model's whole table; for an owned model that is
 * every user's rows. Ask for `ScopedStore<Model>` and call `for(user)` for one user's rows.
 */
export interface Store<A> {
  /**
   * Rows in key order, `offset` and `limit` as in SQL; with `order`, sorted by its fields first
   * (absent values last, ties in key order). The derived Index sorts by a column with it.
   * With `where`, only the rows meeting its conditions (`Where`: equalities, lists, ranges,
   * `not`, `null`, `contains`, `like`, `or`), counted in `total` the same way; with `search`,
   * only rows whose text field starts with the prefix. With `countUpTo`, `total` may stop there
   * (fw's stores stop: a page of a big table need not read every matching row to count it); a
   * store that counts exactly is right too.
   */
  list(page: ListPage<A>): Promise<Page<A>>;
  /** How many rows a list with this `where` and `search` would have in all (every row without them). */
  count(query?: Query<A>): Promise<number>;
  /**
   * Full-text search of the model's searchable fields (the companion's `search: ["title",
   * "body"]`): the rows matching `text` (words in any form PostgreSQL's stemming knows, `"a
   * phrase"`, `-without`, `this or that`: web-search syntax, which never fails on what is typed),
   * ranked (a match in an earlier field counts more), with highlighted snippets. Text no search
   * can use (only stop words, punctuation) finds nothing. A model without searchable fields
   * throws, naming the fix.
   */
  search(text: string, page?: SearchPage<A>): Promise<SearchResults<A>>;
  get(key: Id<A>): Promise<A | undefined>;
  insert(draft: Draft<A>): Promise<A>;
  /**
   * The updated row, or undefined when there is no row with that key. `expected` is given only
   * to a store that has `read`: the version the change was based on; a row at another version
   * is not written and the update throws `Conflict` (store-errors.ts).
   */
  update(key: Id<A>, draft: Draft<A>, expected?: number): Promise<A | undefined>;
  /** True when a row was deleted. */
  delete(key: Id<A>): Promise<boolean>;
  /**
   * Optional: the rows `filter` matches, as a store of its own (list and get see only them;
   * update and delete touch only them; insert goes to the table). A database store answers it
   * with a WHERE clause; without it fw scans the table (`narrowed` in row-filter.ts).
   */
  where?(filter: RowFilter): Store<A>;
  /**
   * Optional: the row and its version, for a store that versions its rows (optimistic
   * concurrency). With it, the derived Edit form carries the version and Update passes it
   * back as `expected`, so a change based on a stale read answers 409 instead of overwriting.
   */
  read?(key: Id<A>): Promise<Versioned<A> | undefined>;
}

/**
 * Every row of a model, past its read rules (`owned`, `publicWhen`, a policy): what a handler
 * asks for by name when it must see them all (a job, a count, a back office), as `{ posts:
 * AllRows<Post> }`. A handler's `Store<Post>` is its viewer's rows; this is the escape hatch,
 * easy to find with `grep AllRows` (issue 41).
 */
export interface AllRows<A> extends Store<A> {}
