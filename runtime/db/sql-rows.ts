import type { FieldValue, ListPage, Page, RowFilter } from "../resource/query.js";
import type { Draft, Store } from "../resource/store.js";
import type { Scope, SqlTable, Versioned } from "./sql-table.js";

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

  async get(key: unknown): Promise<A | undefined> {
    return (await this.rows.read(key, this.scope))?.row;
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

/** A row filter as one group of `column = value` alternatives; throws naming a field the table lacks. */
export function filterGroup<A>(rows: SqlTable<A>, filter: RowFilter): { column: string; value: FieldValue }[] {
  return filter.anyOf.map((condition) => ({ column: rows.columnOf(condition.field), value: condition.equals }));
}
