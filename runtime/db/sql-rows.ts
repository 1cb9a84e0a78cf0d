import type { KeysOf, ListPage, Page, Query, RowFilter, SearchPage, SearchResults } from "../resource/query.js";
import { isNoRows } from "../resource/read-scope.js";
import { ScopedStore } from "../resource/scoped-store.js";
import type { Draft, Store } from "../resource/store.js";
import { SqlTable, type ColumnCondition, type Scope, type Versioned } from "./sql-table.js";

/**
 * Some rows of a table, as a `Store`: every statement carries the scope's conditions in SQL
 * (`WHERE published = $3 OR author_id = $4`), so nothing is read only to be thrown away.
 * What `SqlStore.where(filter)` (the read scope) and an owner's narrowing return.
 */
export class SqlRows<A> implements Store<A> {
  constructor(
    /** @internal */
    readonly rows: SqlTable<A>,
    /** @internal */
    readonly scope: Scope,
    /** A column updates never touch (the owner, which a form never carries). */
    private readonly keep?: string,
  ) {}

  list(page: ListPage<A>): Promise<Page<A>> {
    return this.rows.list(page, this.scope);
  }

  count(query?: Query<A>): Promise<number> {
    return this.rows.count(query, this.scope);
  }

  search(text: string, page?: SearchPage<A>): Promise<SearchResults<A>> {
    return this.rows.search(text, page, this.scope);
  }

  get(key: unknown): Promise<A | undefined> {
    return this.rows.get(key, this.scope);
  }

  /** The row, if in scope, and the version it is at. */
  read(key: unknown): Promise<Versioned<A> | undefined> {
    return this.rows.read(key, this.scope);
  }

  insert(draft: Draft<A>): Promise<A> {
    return this.rows.insert(draft, this.scope);
  }

  update(key: unknown, draft: Draft<A>, expected?: number): Promise<A | undefined> {
    return this.rows.update(key, draft, { scope: this.scope, ...(this.keep === undefined ? {} : { keep: this.keep }), ...(expected === undefined ? {} : { expected }) });
  }

  delete(key: unknown): Promise<boolean> {
    return this.rows.delete(key, this.scope);
  }

  /** These rows narrowed further: both this scope and `filter` must hold. */
  where(filter: RowFilter): Store<A> {
    return new SqlRows<A>(this.rows, { ...this.scope, where: [...this.scope.where, filterGroup(this.rows, filter)] }, this.keep);
  }
}

/**
 * A row filter as one group of alternatives: `column = value`, and for an `in` condition
 * `column IN (SELECT key FROM … WHERE …)` over the named rows' own scope, so a `readableWith`
 * read stays one query. Throws naming a field the table lacks.
 */
export function filterGroup<A>(rows: SqlTable<A>, filter: RowFilter): ColumnCondition[] {
  return filter.anyOf.flatMap((condition): ColumnCondition[] => {
    const column = rows.columnOf(condition.field);
    if (!("in" in condition)) return [{ column, value: condition.equals }];
    const source = sqlSource(condition.in);
    // Rows that hold none (a covered read with nobody signed in): no key, so this alternative never holds.
    if (source === undefined) return [];
    if (source.table.db !== rows.db) {
      throw new Error(`fw/db: ${rows.spec.name}.${condition.field} is filtered by the rows of ${source.table.spec.name}, a table of another database: both models' stores must be on the app's one database.`);
    }
    return [{ column, in: source }];
  });
}

/**
 * The table and scope behind the rows an `in` names: a table's store (`SqlStore`), some of its
 * rows (`SqlRows`, an owner's rows), or an owned model's `ScopedStore` over one; undefined for
 * rows that hold none. Any other store cannot be a subquery of this database: an error naming it.
 */
function sqlSource(keys: KeysOf): { readonly table: SqlTable<unknown>; readonly scope: Scope } | undefined {
  const rows: unknown = keys.rows instanceof ScopedStore ? keys.rows.whole : keys.rows;
  if (isNoRows(rows)) return undefined;
  if (rows instanceof SqlRows) return { table: rows.rows as SqlTable<unknown>, scope: rows.scope };
  const table = (rows as { readonly rows?: unknown }).rows;
  if (table instanceof SqlTable) return { table: table as SqlTable<unknown>, scope: { where: [] } };
  throw new Error(`fw/db: a row filter names (in \`in\`) rows that are not in a table of this database (a ${(rows as object).constructor?.name ?? "store"}): a readableWith reference must point at a model with a table.`);
}
