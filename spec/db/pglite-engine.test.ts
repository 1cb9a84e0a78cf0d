import fs, { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { openDatabase, type Database } from "../../runtime/db/index.js";
import { installedPgliteVersion, startFromTemplate, templateFile } from "../../runtime/db/pglite-template.js";
import { packDirectory, tarEntries, unpackInto } from "../../runtime/db/tar.js";

let dir = "";
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "fw-pglite-engine-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function systemIdentifier(db: Database): Promise<string> {
  return (await db.query<{ id: string }>("SELECT system_identifier::text AS id FROM pg_control_system()")).rows[0]?.id ?? "";
}

// Issue 30 items 1 and 2: the embedded engine's memory (fw's settings) and its first open (a
// copy of the template made by the build instead of initdb's run in WebAssembly).
describe("issue 30: the embedded engine's settings and its new databases", () => {
  it("the build made the template of a new database for the installed PGlite", () => {
    const version = installedPgliteVersion();
    expect(version).toBe(JSON.parse(readFileSync("node_modules/@electric-sql/pglite/package.json", "utf8")).version);
    const file = templateFile(version as string);
    expect(file, "npm run build:fw writes dist/runtime/db/pglite-template-<version>.tar.gz").toBeDefined();
    const paths = [...tarEntries(gunzipSync(readFileSync(file as string)))].map((entry) => entry.path);
    expect(paths).toContain("PG_VERSION");
    expect(paths).toContain("global/pg_control");
    expect(paths.some((path) => path.includes("lock"))).toBe(false);
    expect(templateFile("0.0.0-none")).toBeUndefined();
  });

  it("a new database is a copy of the template (all copies share its system identifier), started with shared_buffers at 8MB and 10 connections at most (durable or not); a copy cut short is completed", async () => {
    // Durable (production's start, issue 28) and fw's settings together.
    const first = await openDatabase({ directory: join(dir, "first"), env: {} });
    let id: string;
    try {
      id = await systemIdentifier(first);
      // PGlite's default is PostgreSQL's 128MB, all of it resident from the start.
      expect((await first.query<{ shared_buffers: string }>("SHOW shared_buffers")).rows[0]?.shared_buffers).toBe("8MB");
      // PostgreSQL's 100 size lock tables and per-backend arrays for connections PGlite never has.
      expect((await first.query<{ max_connections: string }>("SHOW max_connections")).rows[0]?.max_connections).toBe("10");
      expect((await first.query<{ fsync: string }>("SHOW fsync")).rows[0]?.fsync).toBe("on");
      await first.script("CREATE TABLE kept (n int); INSERT INTO kept VALUES (1)");
    } finally {
      await first.close();
    }
    // A copy cut short: some files there, PG_VERSION (written last) missing.
    const second = join(dir, "second");
    mkdirSync(join(second, "global"), { recursive: true });
    writeFileSync(join(second, "global", "pg_control"), "torn");
    const db = await openDatabase({ directory: second, env: {}, durable: false });
    try {
      // initdb would have given this database an identifier of its own.
      expect(await systemIdentifier(db)).toBe(id);
      expect((await db.query("SELECT 1 FROM pg_tables WHERE tablename = 'kept'")).rows).toEqual([]);
      await db.script("CREATE TABLE mine (n int)");
    } finally {
      await db.close();
    }
    // Reopened, it is the same database (the template is copied into a new one only).
    const again = await openDatabase({ directory: second, env: {}, durable: false });
    try {
      expect((await again.query("SELECT 1 FROM pg_tables WHERE tablename = 'mine'")).rows).toHaveLength(1);
    } finally {
      await again.close();
    }
  }, 120_000);

  it("durable (production's first open): every file of the copy is on disk before PG_VERSION is written, and PG_VERSION after; relaxed (dev, tests): no sync", () => {
    const original = fs.fsyncSync;
    const versionThere: boolean[] = [];
    const spy = vi.spyOn(fs, "fsyncSync").mockImplementation((fd) => {
      versionThere.push(existsSync(join(dir, "durable", "PG_VERSION")));
      original(fd);
    });
    try {
      expect(startFromTemplate(join(dir, "durable"), true)).toBe(true);
      const entries = [...tarEntries(gunzipSync(readFileSync(templateFile(installedPgliteVersion() as string) as string)))];
      const synced = entries.filter((entry) => entry.kind === "folder" || (entry.data.length > 0 && entry.path !== "PG_VERSION")).length;
      // Every file with bytes and every folder, the data directory itself, then PG_VERSION and its folder.
      expect(versionThere).toHaveLength(synced + 1 + 2);
      expect(versionThere.slice(0, -2).every((there) => !there)).toBe(true);
      expect(versionThere.slice(-2)).toEqual([true, true]);
      spy.mockClear();
      expect(startFromTemplate(join(dir, "relaxed"), false)).toBe(true);
      expect(spy).not.toHaveBeenCalled();
    } finally {
      spy.mockRestore();
    }
  });
});

describe("issue 30: the template's archive (ustar, files and folders)", () => {
  it("packs a folder and unpacks it the same, the named file last", () => {
    const from = join(dir, "from");
    mkdirSync(join(from, "base", "1"), { recursive: true });
    mkdirSync(join(from, "empty"));
    writeFileSync(join(from, "PG_VERSION"), "18\n");
    writeFileSync(join(from, "base", "1", "1259"), Buffer.alloc(8192 + 3, 7));
    writeFileSync(join(from, "zero"), "");
    const archive = packDirectory(from);
    expect(archive.length % 512).toBe(0);
    expect(packDirectory(from).equals(archive)).toBe(true);
    const order = [...tarEntries(archive)].map((entry) => `${entry.kind} ${entry.path}`);
    expect(order).toEqual(["file PG_VERSION", "folder base", "folder base/1", "file base/1/1259", "folder empty", "file zero"]);
    const to = join(dir, "to");
    unpackInto(archive, to, { last: "PG_VERSION", sync: true });
    expect(readFileSync(join(to, "PG_VERSION"), "utf8")).toBe("18\n");
    expect(readFileSync(join(to, "base", "1", "1259")).equals(Buffer.alloc(8192 + 3, 7))).toBe(true);
    expect(readdirSync(join(to, "empty"))).toEqual([]);
    expect(readFileSync(join(to, "zero"), "utf8")).toBe("");
  });

  it("refuses an entry outside its folder, and a link", () => {
    const entry = (name: string, type: string): Buffer => {
      const head = Buffer.alloc(512);
      head.write(name, 0);
      head.write("00000000000\0", 124);
      head.write(type, 156);
      return Buffer.concat([head, Buffer.alloc(1024)]);
    };
    expect(() => unpackInto(entry("../escape", "0"), join(dir, "x"))).toThrow('an entry outside its folder: "../escape"');
    expect(() => unpackInto(entry("a/../../b", "0"), join(dir, "x"))).toThrow("an entry outside its folder");
    expect(() => unpackInto(entry("link", "2"), join(dir, "x"))).toThrow("neither a file nor a folder");
    expect(existsSync(join(dir, "escape"))).toBe(false);
  });
});

// Issue 30 item 5: fw speaks to the embedded engine itself (runtime/db/pglite-session.ts): each
// statement prepared once, each execution one exchange, values read with PGlite's own codecs.
describe("issue 30: fw's driver for the embedded engine", () => {
  const ROWS_SQL = `SELECT $1::bigint AS big, $2::int AS small, $3::double precision AS real, $4::boolean AS yes, $5::text AS words,
    $6::date AS day, $7::timestamptz AS moment, $8::jsonb AS doc, $9::numeric AS exact, $10::text AS nothing, $11::bytea AS bytes, ARRAY[$2::int, 3] AS list`;
  const VALUES = [9007199254740993n, 42, 1.5, true, "zéro \u00e9 'quoted'", "2026-11-26", "2026-11-26T10:00:00Z", { a: [1, "b"] }, "12.50", null, new Uint8Array([0, 255]), 42];

  it("reads every type as PGlite's own query does, dates as text", async () => {
    const { PGlite } = await import("@electric-sql/pglite");
    // PGlite's own query on a database started from the template too (its initdb is the slow part).
    expect(startFromTemplate(join(dir, "raw"))).toBe(true);
    const pglite = await PGlite.create(join(dir, "raw"), { parsers: { 1082: (t: string) => t, 1114: (t: string) => t, 1184: (t: string) => t } });
    const db = await openDatabase({ directory: join(dir, "fw"), env: {}, durable: false });
    try {
      const theirs = (await pglite.query(ROWS_SQL, VALUES.slice(0, 11))).rows;
      const ours = (await db.query(ROWS_SQL, VALUES.slice(0, 11))).rows;
      expect(ours).toEqual(theirs);
      expect(ours[0]).toMatchObject({ big: 9007199254740993n, small: 42, yes: true, day: "2026-11-26", doc: { a: [1, "b"] }, exact: "12.50", nothing: null, list: [42, 3] });
      // Twice: the second time from the prepared statement.
      expect((await db.query(ROWS_SQL, VALUES.slice(0, 11))).rows).toEqual(theirs);
    } finally {
      await db.close();
      await pglite.close();
    }
  }, 120_000);

  it("prepares a statement once and runs it by name; counts written rows; a failure carries PostgreSQL's fields", async () => {
    const db = await openDatabase({ directory: join(dir, "db"), env: {}, durable: false });
    try {
      await db.script("CREATE TABLE notes (id int PRIMARY KEY, body text NOT NULL)");
      const insert = "INSERT INTO notes (id, body) VALUES ($1, $2)";
      expect((await db.query(insert, [1, "a"])).rowCount).toBe(1);
      expect((await db.query(insert, [2, "b"])).rowCount).toBe(1);
      expect((await db.query("UPDATE notes SET body = body || '!'")).rowCount).toBe(2);
      const prepared = await db.query<{ statement: string }>("SELECT statement FROM pg_prepared_statements ORDER BY prepare_time");
      expect(prepared.rows.filter((row) => row.statement === insert)).toHaveLength(1);
      const duplicate = await db.query(insert, [1, "again"]).catch((error: unknown) => error);
      expect(duplicate).toMatchObject({ code: "23505", constraint: "notes_pkey", detail: "Key (id)=(1) already exists.", table: "notes" });
      expect((duplicate as Error).message).toBe('duplicate key value violates unique constraint "notes_pkey"');
      await expect(db.query("SELEC 1")).rejects.toMatchObject({ code: "42601" });
      expect((await db.query("SELECT count(*)::int AS n FROM notes")).rows).toEqual([{ n: 2 }]);
    } finally {
      await db.close();
    }
  }, 120_000);

  it("a table changed under a prepared statement: prepared again (outside a transaction at once; inside, the next time)", async () => {
    const db = await openDatabase({ directory: join(dir, "db"), env: {}, durable: false });
    try {
      await db.script("CREATE TABLE t (id int PRIMARY KEY, name varchar(10)); INSERT INTO t VALUES (1, 'one')");
      const read = "SELECT * FROM t WHERE id = $1";
      expect((await db.query(read, [1])).rows).toEqual([{ id: 1, name: "one" }]);
      // Through query, not a script: the statement's result gains a column it was not prepared with.
      await db.query("ALTER TABLE t ADD COLUMN extra int DEFAULT 7");
      expect((await db.query(read, [1])).rows).toEqual([{ id: 1, name: "one", extra: 7 }]);
      await db.query("ALTER TABLE t DROP COLUMN extra");
      await expect(db.transaction((tx) => tx.query(read, [1]))).rejects.toMatchObject({ code: "0A000" });
      expect((await db.transaction((tx) => tx.query(read, [1]))).rows).toEqual([{ id: 1, name: "one" }]);
      // A script (how fw changes tables) makes every statement prepared again.
      await db.script("ALTER TABLE t ADD COLUMN later int DEFAULT 8");
      expect((await db.transaction((tx) => tx.query(read, [1]))).rows).toEqual([{ id: 1, name: "one", later: 8 }]);
    } finally {
      await db.close();
    }
  }, 120_000);

  it("keeps at most 200 statements prepared, closing the least recently used", async () => {
    const db = await openDatabase({ directory: join(dir, "db"), env: {}, durable: false });
    try {
      for (let i = 0; i < 230; i++) expect((await db.query(`SELECT ${i} + $1::int AS n`, [1])).rows).toEqual([{ n: i + 1 }]);
      const count = (await db.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_prepared_statements")).rows[0]?.n ?? 0;
      expect(count).toBeGreaterThan(150);
      expect(count).toBeLessThanOrEqual(201);
      expect((await db.query("SELECT 0 + $1::int AS n", [5])).rows).toEqual([{ n: 5 }]);
    } finally {
      await db.close();
    }
  }, 120_000);

  it("a transaction: its statements one after another, committed or rolled back whole; a statement outside it waits; its tx refuses once it ended", async () => {
    const db = await openDatabase({ directory: join(dir, "db"), env: {}, durable: false });
    try {
      await db.script("CREATE TABLE n (v int)");
      const order: string[] = [];
      let kept: Parameters<Parameters<Database["transaction"]>[0]>[0] | undefined;
      const outside = (async () => {
        await new Promise((resolve) => setImmediate(resolve));
        await db.query("INSERT INTO n VALUES (3)");
        order.push("outside");
      })();
      await db.transaction(async (tx) => {
        kept = tx;
        await Promise.all([tx.query("INSERT INTO n VALUES ($1)", [1]), tx.query("INSERT INTO n VALUES ($1)", [2])]);
        await new Promise((resolve) => setTimeout(resolve, 20));
        order.push("transaction");
      });
      await outside;
      expect(order).toEqual(["transaction", "outside"]);
      await expect(db.transaction(async (tx) => {
        await tx.query("INSERT INTO n VALUES (4)");
        throw new Error("no");
      })).rejects.toThrow("no");
      await expect(kept?.query("SELECT 1")).rejects.toThrow("a transaction that has ended");
      expect((await db.query("SELECT v FROM n ORDER BY v")).rows).toEqual([{ v: 1 }, { v: 2 }, { v: 3 }]);
    } finally {
      await db.close();
    }
  }, 120_000);
});
