/** The test app's database as the test's own process reaches it (fw/db's engines loaded only when used). */
import type { Database } from "../db/database.js";
import { LazyDatabase } from "../db/lazy-database.js";

/** Where the test app's database is: its embedded directory, or its server URL. */
export type AppDatabaseAt = { readonly engine: "pglite"; readonly directory: string } | { readonly engine: "postgres"; readonly url: string };

/**
 * The database a test app started by `startApp` uses, opened from the test's process on first
 * use: on PostgreSQL a connection to the test's own database; embedded, the PGlite the app holds
 * and serves (DbApp does when started with `FW_SERVE_DATABASE=1`), since one process opens a
 * PGlite directory at a time. An app that serves none (not a DbApp, or started in production) is
 * said plainly on the first statement (and again on the next: a failed open is tried again).
 */
export class TestAppDatabase extends LazyDatabase {
  constructor(private readonly at: AppDatabaseAt) {
    super(at.engine, at.engine === "pglite" ? `the test app's PGlite at ${at.directory}` : "the test app's PostgreSQL database");
  }

  protected async openNow(): Promise<Database> {
    if (this.at.engine === "postgres") return (await import("../db/open.js")).openDatabase({ url: this.at.url });
    const served = await (await import("../db/pglite-served.js")).servedPglite(this.at.directory);
    if (served !== undefined) return served;
    throw new Error(
      `fw/testing: the test app serves no embedded database at ${this.at.directory}: the test reaches the app's database only while the app (a DbApp from fw/db, started by startApp in dev, the default) runs and holds it. Start it with startApp() without args, or set DATABASE_URL to a PostgreSQL server.`,
    );
  }
}
