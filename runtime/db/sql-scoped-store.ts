import type { FromPath } from "../routing/from-path.js";
import { ScopedStore } from "../resource/scoped-store.js";
import type { Draft } from "../resource/store.js";
import { SqlRows } from "./sql-rows.js";
import type { SqlStore } from "./sql-store.js";
import type { ColumnEquals, SqlTable, Versioned } from "./sql-table.js";
import type { Joined } from "./joined.js";

/**
 * The store of an owned model on a database: a `ScopedStore` (so the resource layer treats it
 * as one) whose narrowing `for(owner)` filters in SQL (`WHERE owner = $n`) instead of reading
 * the whole table. Updates never touch the owner column, in one statement.
 */
export class SqlScopedStore<A> extends ScopedStore<A> {
  private readonly rows: SqlTable<A>;
  private readonly ownerColumn: string;

  /** @param ownerDecoder reads a user key as the session spells it (`"7"`) into the owner field's type. */
  constructor(
    whole: SqlStore<A>,
    private readonly ownerDecoder: FromPath<unknown>,
  ) {
    const owner = whole.table.owner;
    const column = whole.table.columns.find((c) => c.field === owner);
    if (owner === undefined || column === undefined) {
      throw new Error(`fw/db: SqlScopedStore needs a table with an owner field; the table ${whole.table.name} names none (TableSpec.owner).`);
    }
    super(whole, owner, ownerDecoder);
    this.rows = whole.rows;
    this.ownerColumn = column.column;
  }

  /** The same rows, every statement sent through `joined`'s transaction (SqlStore's `within`); undefined for another database's. */
  within(joined: Joined): SqlScopedStore<A> | undefined {
    const whole = (this.whole as SqlStore<A>).within(joined);
    return whole === undefined ? undefined : new SqlScopedStore<A>(whole, this.ownerDecoder);
  }

  /** The whole table's update keeps each row's owner (a form never carries it). */
  override update(key: unknown, draft: Draft<A>, expected?: number): Promise<A | undefined> {
    return this.rows.update(key, draft, { keep: this.ownerColumn, ...(expected === undefined ? {} : { expected }) });
  }

  read(key: unknown): Promise<Versioned<A> | undefined> {
    return this.rows.read(key);
  }

  /** One owner's rows, filtered by the database. */
  override for(ownerKey: string): OwnedSqlRows<A> {
    super.for(ownerKey); // refuses a key the owner field cannot hold, with ScopedStore's message
    const decoded = this.ownerDecoder.read(ownerKey);
    return new OwnedSqlRows(this.rows, { column: this.ownerColumn, value: decoded?.value });
  }
}

/** One owner's rows of an owned table: every statement carries `AND owner = $n`, inserts are stamped with the owner. */
export class OwnedSqlRows<A> extends SqlRows<A> {
  constructor(rows: SqlTable<A>, owner: ColumnEquals) {
    super(rows, { where: [[owner]], stamp: owner }, owner.column);
  }
}
