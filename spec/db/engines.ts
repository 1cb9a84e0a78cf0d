import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe } from "vitest";
import { openDatabase, type Database } from "../../runtime/db/index.js";
import { noPostgresNotice, postgresBin, startCluster, type PostgresCluster } from "../support/postgres.js";

/** One engine a suite runs on: the database is open inside the `describe`'s tests. */
export interface EngineHandle {
  readonly name: "PGlite" | "PostgreSQL";
  db(): Database;
  /** The PostgreSQL cluster (stop/start for fault tests); undefined on PGlite. */
  cluster(): PostgresCluster | undefined;
}

/**
 * Runs `suite` once on PGlite (a temp directory) and once on a throwaway PostgreSQL cluster;
 * without PostgreSQL on the machine, says so in one line and runs PGlite alone.
 */
export function onEveryEngine(suite: (engine: EngineHandle) => void): void {
  onPglite(suite);
  onPostgres(suite);
}

export function onPglite(suite: (engine: EngineHandle) => void): void {
  describe("on PGlite", () => {
    let db: Database | undefined;
    let dir = "";
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "fw-pglite-"));
      // A throwaway database: PGlite's own fsync-off start (spec/db/durability.test.ts tests the durable one).
      db = await openDatabase({ directory: dir, env: {}, durable: false });
    });
    afterAll(async () => {
      await db?.close();
      rmSync(dir, { recursive: true, force: true });
    });
    suite({ name: "PGlite", db: () => db as Database, cluster: () => undefined });
  });
}

export function onPostgres(suite: (engine: EngineHandle) => void): void {
  const bin = postgresBin();
  if (bin === undefined) {
    noPostgresNotice();
    return;
  }
  describe("on PostgreSQL", () => {
    let cluster: PostgresCluster | undefined;
    let db: Database | undefined;
    beforeAll(async () => {
      cluster = await startCluster(bin);
      db = await openDatabase({ url: cluster.url, log: () => undefined });
    }, 120_000);
    afterAll(async () => {
      await db?.close();
      await cluster?.destroy();
    });
    suite({ name: "PostgreSQL", db: () => db as Database, cluster: () => cluster });
  });
}
