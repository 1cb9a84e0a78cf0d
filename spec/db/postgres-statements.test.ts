// fw/db on a PostgreSQL server names its statements (runtime/db/statement-names.ts): each
// connection has the server parse and plan a text once, then runs it by name, as the embedded
// engine's driver does (spec/db/pglite-engine.test.ts). On a throwaway cluster.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "../../runtime/db/index.js";
import { CannotOpenDatabase } from "../../runtime/db/open-error.js";
import { openPostgres } from "../../runtime/db/postgres-engine.js";
import { PREPARE_ENV, STATEMENT_NAME_BUDGET } from "../../runtime/db/statement-names.js";
import { noPostgresNotice, postgresBin, startCluster, type PostgresCluster } from "../support/postgres.js";

const bin = postgresBin();
if (bin === undefined) noPostgresNotice();

/** The statements the connection running this has prepared, by text. */
const PREPARED = "SELECT name, statement FROM pg_prepared_statements ORDER BY prepare_time";

describe.skipIf(bin === undefined)("fw/db on PostgreSQL: statements prepared once a connection, run by name", () => {
  let cluster: PostgresCluster;
  /** Opened for one test: a pool of one connection, so every statement meets the same session. */
  let opened: Database[] = [];
  const one = async (prepare?: boolean): Promise<Database> => {
    const db = await openPostgres({ url: cluster.url, max: 1, log: () => undefined, ...(prepare === undefined ? {} : { prepare }) });
    opened.push(db);
    return db;
  };

  beforeAll(async () => {
    cluster = await startCluster(bin as string);
  }, 120_000);
  afterAll(async () => {
    await cluster?.destroy();
  });
  const closeAll = async (): Promise<void> => {
    for (const db of opened) await db.close();
    opened = [];
  };

  it("prepares a text once on its connection and runs it by name after", async () => {
    try {
      const db = await one();
      const text = "SELECT $1::int + 1 AS n";
      for (const n of [1, 2, 3]) expect((await db.query(text, [n])).rows).toEqual([{ n: n + 1 }]);
      const prepared = (await db.query<{ name: string; statement: string }>(PREPARED)).rows.filter((row) => row.statement === text);
      expect(prepared).toHaveLength(1);
      expect(prepared[0]?.name).toMatch(/^fw_\d+$/);
      // A failing statement keeps PostgreSQL's fields, named or not, and leaves the connection usable.
      await expect(db.query("SELECT * FROM no_such_table WHERE id = $1", [1])).rejects.toMatchObject({ code: "42P01" });
      await expect(db.query("SELEC 1")).rejects.toMatchObject({ code: "42601" });
      expect((await db.query(text, [9])).rows).toEqual([{ n: 10 }]);
    } finally {
      await closeAll();
    }
  });

  it("a connection kept for a transaction names its statements too; FW_PG_PREPARE=off sends them unnamed", async () => {
    const text = "SELECT $1::text || '!' AS s";
    const preparedIn = async (db: Database): Promise<string[]> =>
      db.transaction(async (tx) => {
        expect((await tx.query(text, ["a"])).rows).toEqual([{ s: "a!" }]);
        expect((await tx.query(text, ["b"])).rows).toEqual([{ s: "b!" }]);
        return (await tx.query<{ statement: string }>(PREPARED)).rows.map((row) => row.statement);
      });
    const named = await openDatabase({ url: cluster.url, env: {}, log: () => undefined });
    const unnamed = await openDatabase({ url: cluster.url, env: { [PREPARE_ENV]: "off" }, log: () => undefined });
    try {
      expect(await preparedIn(named)).toContain(text);
      expect(await preparedIn(unnamed)).toEqual([]);
    } finally {
      await named.close();
      await unnamed.close();
    }
  });

  it("refuses a FW_PG_PREPARE that is neither on nor off, naming it, before connecting", async () => {
    const failure = await openDatabase({ url: "postgres://nobody@127.0.0.1:1/none", env: { [PREPARE_ENV]: "yes" } }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(CannotOpenDatabase);
    expect((failure as Error).message).toContain('FW_PG_PREPARE="yes" is neither "on" nor "off"');
  });

  it("a table another process changed under a statement: run again at once outside a transaction, the next time inside one", async () => {
    try {
      const db = await one();
      const other = await one(false);
      await db.script("CREATE TABLE t (id int PRIMARY KEY, name varchar(10)); INSERT INTO t VALUES (1, 'one')");
      const read = "SELECT * FROM t WHERE id = $1";
      expect((await db.query(read, [1])).rows).toEqual([{ id: 1, name: "one" }]);
      // Not through db: its names are not renewed by a script of its own.
      await other.query("ALTER TABLE t ADD COLUMN extra int DEFAULT 7");
      expect((await db.query(read, [1])).rows).toEqual([{ id: 1, name: "one", extra: 7 }]);
      await other.query("ALTER TABLE t DROP COLUMN extra");
      // In a transaction the failure aborted it: refused once, prepared afresh for the next.
      await expect(db.transaction((tx) => tx.query(read, [1]))).rejects.toMatchObject({ code: "0A000" });
      expect((await db.transaction((tx) => tx.query(read, [1]))).rows).toEqual([{ id: 1, name: "one" }]);
      // A script of db's own (how fw changes tables) has every text prepared afresh.
      await db.script("ALTER TABLE t ADD COLUMN later int DEFAULT 8");
      expect((await db.transaction((tx) => tx.query(read, [1]))).rows).toEqual([{ id: 1, name: "one", later: 8 }]);
    } finally {
      await closeAll();
    }
  });

  it(`names at most ${STATEMENT_NAME_BUDGET} texts a pool; the ones after run unnamed`, async () => {
    try {
      const db = await one();
      for (let i = 0; i < STATEMENT_NAME_BUDGET + 20; i++) expect((await db.query(`SELECT ${i} + $1::int AS n`, [1])).rows).toEqual([{ n: i + 1 }]);
      const count = (await db.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_prepared_statements")).rows[0]?.n;
      expect(count).toBe(STATEMENT_NAME_BUDGET);
      expect((await db.query("SELECT 0 + $1::int AS n", [5])).rows).toEqual([{ n: 5 }]);
    } finally {
      await closeAll();
    }
  }, 60_000);
});
