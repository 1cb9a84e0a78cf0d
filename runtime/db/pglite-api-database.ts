import type { Connection, Database, QueryResult, Queryable, Row } from "./database.js";
import { withValues } from "./faults.js";

/** PGlite's own query API (`query`, `exec`), as one process's PGlite or a served one answers it. */
export interface PgliteQueryable {
  query<R>(sql: string, params?: unknown[]): Promise<{ rows: R[]; affectedRows?: number }>;
  exec(sql: string): Promise<unknown>;
}

/** PGlite's API: what `fw dev`'s host calls on the PGlite it holds, and what a served client (pglite-served.ts) offers. */
export interface PgliteApi extends PgliteQueryable {
  transaction<T>(work: (tx: PgliteQueryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /**
   * A PGlite another process holds and serves (pglite-served.ts): runs `work` while no other
   * client of that process starts a statement, so a sequence of statements that relies on its
   * session (a migrator's advisory lock) is not shared with them. Absent on PGlite itself.
   */
  lease?<T>(work: () => Promise<T>): Promise<T>;
}

/**
 * fw's `Database` over PGlite's API: the database another process holds and serves to this one
 * (`fw dev`'s, pglite-served.ts). A process's own PGlite is driven by pglite-engine.ts instead,
 * through the engine's protocol (one exchange per statement, prepared once).
 */
export class PgliteApiDatabase implements Database {
  readonly engine = "pglite" as const;

  constructor(
    private readonly pglite: PgliteApi,
    readonly description: string,
    private readonly unlock: () => void,
  ) {}

  query<R extends Row = Row>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<R>> {
    return run<R>(this.pglite, sql, params);
  }

  async script(sql: string): Promise<void> {
    await this.pglite.exec(sql);
  }

  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.pglite.transaction((tx) =>
      work({
        query: <R extends Row>(sql: string, params: readonly unknown[] = []) => run<R>(tx, sql, params),
        script: async (sql: string) => void (await tx.exec(sql)),
      }),
    );
  }

  /** The one connection is every connection (held for `work` alone when another process serves it). */
  withConnection<T>(work: (connection: Connection) => Promise<T>): Promise<T> {
    return this.pglite.lease === undefined ? work(this) : this.pglite.lease(() => work(this));
  }

  async close(): Promise<void> {
    try {
      await this.pglite.close();
    } finally {
      this.unlock();
    }
  }
}

async function run<R extends Row>(target: PgliteQueryable, sql: string, params: readonly unknown[]): Promise<QueryResult<R>> {
  const result = await withValues(params, () => target.query<R>(sql, params.map((value) => value ?? null)));
  return { rows: result.rows, rowCount: result.affectedRows || result.rows.length };
}
