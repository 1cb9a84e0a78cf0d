import type { Connection, Database, QueryResult, Queryable, Row } from "./database.js";

/**
 * A transaction that other writes join: fw/admin's audited write, where a change and its record
 * in the audit log are both written or neither. Its database (a store of another database cannot
 * join it), the transaction, and what runs once it commits.
 */
export interface Joined {
  readonly db: Database;
  readonly tx: Queryable;
  /** Runs `work` once the transaction committed; never when it rolled back. */
  afterCommit(work: () => void): void;
}

/** A connection whose statements go through `tx`, and whose transaction is `tx` itself (a write that opens one joins it). */
export function joinedConnection(tx: Queryable): Connection {
  return {
    query: <R extends Row = Row>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>> => tx.query<R>(sql, params),
    script: (sql) => tx.script(sql),
    transaction: (work) => work(tx),
  };
}

/**
 * Runs `work` in a transaction of `db` that stores join (`within(joined)`), then, once it
 * committed, what the work asked to run after it (a live page's refresh, sessions ended in
 * every process). When `work` throws, the transaction rolls back and nothing after it runs.
 */
export async function joinedTransaction<T>(db: Database, work: (joined: Joined) => Promise<T>): Promise<T> {
  const after: (() => void)[] = [];
  const result = await db.transaction((tx) => work({ db, tx, afterCommit: (fn) => void after.push(fn) }));
  for (const fn of after) fn();
  return result;
}

/** Whether a store's `within` was handed a transaction of its own database (else it cannot join, and answers undefined). */
export function joins(joined: unknown, db: Database): joined is Joined {
  return typeof joined === "object" && joined !== null && (joined as Partial<Joined>).db === db && typeof (joined as Partial<Joined>).afterCommit === "function";
}
