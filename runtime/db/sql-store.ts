import type { ListPage, Page, Query, RowFilter, SearchPage, SearchResults } from "../resource/query.js";
import type { Draft, Store } from "../resource/store.js";
import type { Database } from "./database.js";
import { joins, type Joined } from "./joined.js";
import { filterGroup, SqlRows } from "./sql-rows.js";
import { SqlTable, type Versioned } from "./sql-table.js";
import type { TableSpec } from "./table.js";

/**
 * A model's rows in a database table (spec 2.14's database store): the same contract as
 * `InMemoryStore` (the conformance suite runs against both), on either engine.
 *
 * - Keys come from the table's identity column: assigned by the database, never reused, read
 *   back as numbers.
 * - Each write is atomic: one statement (a transaction of its own in PostgreSQL), or for a
 *   versioned update an explicit transaction. A write that would repeat a unique column's value
 *   throws `DuplicateValue` naming the field; a lost connection throws `ServiceUnavailable` (503).
 * - Optimistic concurrency: every row carries a version (1 on insert, +1 per update). `read`
 *   gives a row with its version; `update(key, draft, expected)` writes only if the row is
 *   still at `expected`, else throws `Conflict` and writes nothing. Without `expected` the
 *   last write wins, as with `InMemoryStore`.
 */
export class SqlStore<A> implements Store<A> {
  /** @internal the SQL, shared with the owner narrowing. */
  readonly rows: SqlTable<A>;

  /** @param joined @internal a transaction its statements go through (`within`). */
  constructor(db: Database, table: TableSpec, joined?: Joined) {
    this.rows = new SqlTable<A>(db, table, joined);
  }

  /**
   * The same rows, every statement sent through `joined`'s transaction (fw/admin writes a change
   * and its audit record in one); undefined when that transaction is another database's.
   */
  within(joined: Joined): SqlStore<A> | undefined {
    return joins(joined, this.rows.db) ? new SqlStore<A>(this.rows.db, this.rows.spec, joined) : undefined;
  }

  get table(): TableSpec {
    return this.rows.spec;
  }

  list(page: ListPage<A>): Promise<Page<A>> {
    return this.rows.list(page);
  }

  count(query?: Query<A>): Promise<number> {
    return this.rows.count(query);
  }

  search(text: string, page?: SearchPage<A>): Promise<SearchResults<A>> {
    return this.rows.search(text, page);
  }

  get(key: unknown): Promise<A | undefined> {
    return this.rows.get(key);
  }

  /** The row and the version it is at: what an edit form carries back as `expected`. */
  read(key: unknown): Promise<Versioned<A> | undefined> {
    return this.rows.read(key);
  }

  insert(draft: Draft<A>): Promise<A> {
    return this.rows.insert(draft);
  }

  update(key: unknown, draft: Draft<A>, expected?: number): Promise<A | undefined> {
    return this.rows.update(key, draft, expected === undefined ? {} : { expected });
  }

  delete(key: unknown): Promise<boolean> {
    return this.rows.delete(key);
  }

  /**
   * The rows `filter` matches (the read scope: `published = true OR author = 7`), filtered by
   * the database: list and get see only them, update and delete touch only them, insert goes
   * to the table. A field the table has no column for throws, naming it.
   */
  where(filter: RowFilter): SqlRows<A> {
    return new SqlRows<A>(this.rows, { where: [filterGroup(this.rows, filter)] });
  }
}
