/** A row as the database returns it: column name to value. */
export type Row = Record<string, unknown>;

export interface QueryResult<R extends Row = Row> {
  readonly rows: R[];
  /** Rows inserted, updated or deleted (or returned, for a SELECT). */
  readonly rowCount: number;
}

/**
 * Something SQL can be sent to. Values travel only as parameters (`$1`, `$2`, …), never inside
 * the SQL text; identifiers go through `quoteIdentifier`. Connection failures reject with the
 * core's `ServiceUnavailable` (a 503 page); a data exception (SQLSTATE class 22: a NUL
 * character in a text, a number out of its column's range) of a statement sent values rejects
 * with the core's `BadRequest` (a 400 page), since the values came from the request; other
 * database errors reject as they are.
 */
export interface Queryable {
  query<R extends Row = Row>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>>;
  /** Runs a script of several statements that takes no parameters (a migration file). */
  script(sql: string): Promise<void>;
}

/** One connection, kept for a sequence of statements (a migration run holds its lock on it). */
export interface Connection extends Queryable {
  /**
   * Runs `work` in a transaction: committed when it resolves, rolled back when it throws (the
   * error is rethrown). `work` must send its statements through `tx`, not through the database.
   */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
}

/** Which engine stands behind a `Database`. */
export type Engine = "pglite" | "postgres";

/**
 * A database: the embedded PGlite engine or a PostgreSQL server, one SQL dialect. `query` and
 * `transaction` take any free connection; `withConnection` keeps one for a sequence of
 * statements. On PGlite, which has a single connection, transactions are serialised: a
 * statement sent outside a running transaction waits for it to end.
 */
export interface Database extends Connection {
  readonly engine: Engine;
  /** For messages: "PGlite at /app/.fw/db", "PostgreSQL at db.example:5432/app" (never a password). */
  readonly description: string;
  withConnection<T>(work: (connection: Connection) => Promise<T>): Promise<T>;
  /** Ends the connections (PGlite flushes to disk); the database is unusable afterwards. */
  close(): Promise<void>;
}
