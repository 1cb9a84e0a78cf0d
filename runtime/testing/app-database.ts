/** The test app's database as the test's own process reaches it (fw/db loaded only when used). */
import type { Connection, Database, QueryResult, Queryable, Row } from "../db/database.js";

/** Where the test app's database is: its embedded directory, or its server URL. */
export type AppDatabaseAt = { readonly engine: "pglite"; readonly directory: string } | { readonly engine: "postgres"; readonly url: string };

/**
 * The database a test app started by `startApp` uses, opened from the test's process on first
 * use: on PostgreSQL a connection to the test's own database; embedded, the PGlite the app holds
 * and serves (DbApp does when started with `FW_SERVE_DATABASE=1`), since one process opens a
 * PGlite directory at a time. An app that serves none (not a DbApp, or started in production) is
 * said plainly on the first statement.
 *
 * It opens lazily as fw/db's `AppDatabase` does, without sharing its code: fw/testing loads
 * nothing of runtime/db/ until a test uses the database (spec/db/core-independence.test.ts), so
 * a test of an app without fw/db never loads it.
 */
export class TestAppDatabase implements Database {
  readonly engine: Database["engine"];
  readonly description: string;
  #opened: Promise<Database> | undefined;

  constructor(private readonly at: AppDatabaseAt) {
    this.engine = at.engine;
    this.description = at.engine === "pglite" ? `the test app's PGlite at ${at.directory}` : "the test app's PostgreSQL database";
  }

  open(): Promise<Database> {
    this.#opened ??= this.#open();
    return this.#opened;
  }

  async #open(): Promise<Database> {
    if (this.at.engine === "postgres") return (await import("../db/open.js")).openDatabase({ url: this.at.url });
    const served = await (await import("../db/pglite-served.js")).servedPglite(this.at.directory);
    if (served !== undefined) return served;
    throw new Error(
      `fw/testing: the test app serves no embedded database at ${this.at.directory}: the test reaches the app's database only while the app (a DbApp from fw/db, started by startApp in dev, the default) runs and holds it. Start it with startApp() without args, or set DATABASE_URL to a PostgreSQL server.`,
    );
  }

  async query<R extends Row = Row>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
    return (await this.open()).query<R>(sql, params);
  }

  async script(sql: string): Promise<void> {
    return (await this.open()).script(sql);
  }

  async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    return (await this.open()).transaction(work);
  }

  async withConnection<T>(work: (connection: Connection) => Promise<T>): Promise<T> {
    return (await this.open()).withConnection(work);
  }

  /** Closes the test's connection, if it opened one (the app's database stays the app's). */
  async close(): Promise<void> {
    const opened = this.#opened;
    this.#opened = undefined;
    if (opened !== undefined) await (await opened.catch(() => undefined))?.close();
  }
}
