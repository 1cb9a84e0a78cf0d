import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "../../runtime/db/index.js";
import { isConnectionError } from "../../runtime/db/faults.js";
import { migrate } from "../../runtime/db/migrations.js";
import { holdPglite, type HeldPglite } from "../../runtime/db/pglite-host.js";
import { LOCK_FILE } from "../../runtime/db/pglite-lock.js";
import { SERVED_FILE } from "../../runtime/db/pglite-served.js";

// Issue 30 item 3: `fw dev`'s supervisor holds the app's embedded database across the app's
// restarts and serves it (pglite-host.ts); the app and the `db …` commands run beside fw dev
// open the directory as usual and reach it through the holder (pglite-served.ts). Here the holder
// and its clients share this process (each client has its own socket, as another process would);
// spec/dev/drift.test.ts runs the real fw dev.
let dir = "";
let held: HeldPglite | undefined;
const clients: Database[] = [];

/** A new client of the held database, as another process opens it. */
async function client(): Promise<Database> {
  const db = await openDatabase({ directory: dir, env: {} });
  clients.push(db);
  return db;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "fw-served-"));
  held = await holdPglite(dir);
}, 120_000);

afterAll(async () => {
  await Promise.all(clients.map((db) => db.close().catch(() => undefined)));
  await held?.close();
  rmSync(dir, { recursive: true, force: true });
});

const VALUES = `SELECT 'é'::text AS t, 7::int AS i, 9007199254740993::int8 AS big, 1.5::float8 AS f, true AS b, NULL::text AS n,
  '{"a":[1,"x"]}'::jsonb AS j, '\\x00ff'::bytea AS bytes, '2024-02-29'::date AS d, '2024-02-29T10:00:00Z'::timestamptz AS ts, $1::text AS p`;

describe("an embedded database held by another process", () => {
  let rowsServed: unknown[] = [];

  it("is reached by opening its directory: statements, parameters and every type come back as PGlite gives them", async () => {
    const a = await client();
    const b = await client();
    expect(a.engine).toBe("pglite");
    expect(a.description).toBe(`PGlite at ${dir}`);
    await a.script("CREATE TABLE items (id serial PRIMARY KEY, name text UNIQUE NOT NULL)");
    await a.query("INSERT INTO items (name) VALUES ($1), ($2)", ["one", "two"]);
    expect((await b.query("SELECT name FROM items ORDER BY id")).rows).toEqual([{ name: "one" }, { name: "two" }]);
    expect((await b.query("UPDATE items SET name = name || '!' WHERE id > $1", [0])).rowCount).toBe(2);
    rowsServed = (await a.query(VALUES, ["param"])).rows;
    expect(rowsServed[0]).toMatchObject({ t: "é", i: 7, b: true, n: null, j: { a: [1, "x"] }, d: "2024-02-29", p: "param" });
    expect((rowsServed[0] as { bytes: unknown }).bytes).toEqual(new Uint8Array([0, 255]));
  }, 60_000);

  it("a failed statement rejects with PostgreSQL's fields (what fw's store errors read), and the client goes on", async () => {
    const a = await client();
    const failed = await a.query("INSERT INTO items (name) VALUES ($1)", ["one!"]).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(Error);
    expect(failed).toMatchObject({ code: "23505", constraint: "items_name_key", table: "items" });
    expect((failed as Error).message).toContain("duplicate key value violates unique constraint");
    expect((await a.query("SELECT count(*)::int AS n FROM items")).rows).toEqual([{ n: 2 }]);
  });

  it("a transaction is the client's alone: another client's statement waits for its end, and a throw rolls it back", async () => {
    const a = await client();
    const b = await client();
    let counted: Promise<unknown> | undefined;
    await a.transaction(async (tx) => {
      await tx.query("INSERT INTO items (name) VALUES ('three')");
      counted = b.query("SELECT count(*)::int AS n FROM items").then((result) => result.rows);
      await tx.query("INSERT INTO items (name) VALUES ('four')");
    });
    expect(await counted).toEqual([{ n: 4 }]); // after the commit, never between the two inserts
    await expect(
      a.transaction(async (tx) => {
        await tx.query("INSERT INTO items (name) VALUES ('five')");
        throw new Error("changed my mind");
      }),
    ).rejects.toThrow("changed my mind");
    expect((await b.query("SELECT count(*)::int AS n FROM items")).rows).toEqual([{ n: 4 }]);
  });

  it("a client that goes away mid-transaction has it rolled back; the others go on", async () => {
    const quitter = await openDatabase({ directory: dir, env: {} });
    const b = await client();
    const lost = await quitter
      .transaction(async (tx) => {
        await tx.query("INSERT INTO items (name) VALUES ('half done')");
        await quitter.close();
        await tx.query("INSERT INTO items (name) VALUES ('never')");
      })
      .catch((error: unknown) => error);
    expect(isConnectionError(lost)).toBe(true); // a 503 for a request, not a 500
    expect((await b.query("SELECT count(*)::int AS n FROM items WHERE name IN ('half done', 'never')")).rows).toEqual([{ n: 0 }]);
    await b.transaction(async (tx) => void (await tx.query("INSERT INTO items (name) VALUES ('after')")));
  });

  it("two clients migrating at once: each migration is applied once, the second migrator finds nothing to do", async () => {
    const migrations = mkdtempSync(join(tmpdir(), "fw-served-migrations-"));
    try {
      writeFileSync(join(migrations, "0001_a.sql"), "CREATE TABLE a (id int);\n");
      writeFileSync(join(migrations, "0002_b.sql"), "CREATE TABLE b (id int);\n");
      const [one, two] = await Promise.all([migrate(await client(), migrations), migrate(await client(), migrations)]);
      expect([...one, ...two].sort()).toEqual(["0001_a", "0002_b"]);
      expect([one.length, two.length].sort()).toEqual([0, 2]);
    } finally {
      rmSync(migrations, { recursive: true, force: true });
    }
  });

  it("once the holder closes: its clients get a connection error, and the directory opens here as usual, with the data", async () => {
    const a = await client();
    await held?.close();
    held = undefined;
    const lost = await a.query("SELECT 1").catch((error: unknown) => error);
    expect(isConnectionError(lost)).toBe(true);
    expect((lost as Error).message).toContain(`lost the embedded database served by process ${process.pid} (fw dev)`);
    expect(readdirSync(dir)).not.toContain(SERVED_FILE);
    expect(readdirSync(dir)).not.toContain(LOCK_FILE);
    const local = await openDatabase({ directory: dir, env: {} });
    try {
      expect((await local.query("SELECT name FROM items ORDER BY id")).rows.map((row) => row["name"])).toEqual(["one!", "two!", "three", "four", "after"]);
      // The same values as through the holder: a client sees what the process holding it would.
      expect((await local.query(VALUES, ["param"])).rows).toEqual(rowsServed);
    } finally {
      await local.close();
    }
  }, 60_000);

  it("a fw.served left by a holder that is gone (killed) is ignored: the directory opens as usual", async () => {
    writeFileSync(join(dir, SERVED_FILE), JSON.stringify({ pid: 999_999, address: join(dir, "gone.sock") }));
    const local = await openDatabase({ directory: dir, env: {} });
    try {
      expect((await local.query("SELECT count(*)::int AS n FROM items")).rows).toEqual([{ n: 5 }]);
    } finally {
      await local.close();
    }
  }, 60_000);
});
