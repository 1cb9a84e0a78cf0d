import type { Connection, Database, QueryResult, Queryable, Row } from "./database.js";
import { appDatabase, type AppDatabase } from "./open.js";

let current: Database | undefined;

/**
 * The database the generated module's stores use: the one `DbApp` was given (it installs it
 * when constructed), or one set by `setProcessDatabase` (tests), else — on first use — the
 * default `appDatabase()` (`DATABASE_URL`, else the embedded `.fw/db`). Stores hold this
 * delegate, not a database, so the choice can be made after the route table is built.
 */
class ProcessDatabase implements Database {
  private target(): Database {
    current ??= appDatabase();
    return current;
  }

  get engine(): Database["engine"] {
    return this.target().engine;
  }

  get description(): string {
    return this.target().description;
  }

  query<R extends Row = Row>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
    return this.target().query<R>(sql, params);
  }

  script(sql: string): Promise<void> {
    return this.target().script(sql);
  }

  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.target().transaction(work);
  }

  withConnection<T>(work: (connection: Connection) => Promise<T>): Promise<T> {
    return this.target().withConnection(work);
  }

  /** Closes the database behind it; the next use opens the default again. */
  async close(): Promise<void> {
    const closing = current;
    current = undefined;
    await closing?.close();
  }
}

const shared = new ProcessDatabase();

/** The process's app database, as the generated stores reach it (see `ProcessDatabase`). */
export function processDatabase(): Database {
  return shared;
}

/**
 * Makes `database` the one the generated stores use from now on (`DbApp` does it with its
 * own; a test may point an app at a fresh database). Does not close the previous one.
 */
export function setProcessDatabase(database: Database | AppDatabase): void {
  current = database;
}
