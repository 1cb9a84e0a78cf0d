import { describe, expect, it } from "vitest";
import { BadRequest, FromPath } from "../../runtime/index.js";
import { Conflict, createTableSql, DuplicateValue, SqlScopedStore, SqlStore, type Database, type TableSpec } from "../../runtime/db/index.js";
import { storeConformance } from "../resource/store-conformance.js";
import { onEveryEngine } from "./engines.js";

interface Row {
  id: number;
  title: string;
  done?: boolean;
  stars?: number;
  due?: Date;
  note?: string;
  owner?: number;
}

let tables = 0;

/** A fresh `things_N` table (and for owned ones a users table holding users 7 and 8). */
async function freshTable(db: Database, options: { owned?: boolean; extra?: TableSpec["columns"] } = {}): Promise<TableSpec> {
  const n = ++tables;
  const users = `users_${n}`;
  if (options.owned === true) {
    await db.script(`CREATE TABLE ${users} (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY); INSERT INTO ${users} (id) OVERRIDING SYSTEM VALUE VALUES (7), (8);`);
  }
  const spec: TableSpec = {
    name: `things_${n}`,
    key: { field: "id", column: "id" },
    columns: [
      { field: "title", column: "title", type: "text", nullable: false },
      { field: "done", column: "done", type: "boolean", nullable: true },
      { field: "stars", column: "stars", type: "double precision", nullable: true },
      { field: "due", column: "due", type: "date", nullable: true, asDate: true },
      { field: "note", column: "note", type: "text", nullable: true },
      ...(options.owned === true ? [{ field: "owner", column: "owner_id", type: "bigint" as const, nullable: true, references: { table: users, column: "id" } }] : []),
      ...(options.extra ?? []),
    ],
    ...(options.owned === true ? { owner: "owner" } : {}),
    search: { language: "english", columns: ["title", "note"] },
  };
  await db.script(createTableSql(spec));
  return spec;
}

onEveryEngine((engine) => {
  const scoped = async (): Promise<SqlScopedStore<Row>> => new SqlScopedStore<Row>(new SqlStore<Row>(engine.db(), await freshTable(engine.db(), { owned: true })), FromPath.int);

  storeConformance(`SqlStore on ${engine.name}`, async () => new SqlStore<Row>(engine.db(), await freshTable(engine.db())));
  storeConformance(`SqlScopedStore on ${engine.name} (the whole table)`, scoped);
  storeConformance(
    `SqlScopedStore.for(owner) on ${engine.name} (one owner's rows)`,
    async () => {
      const store = await scoped();
      await store.for("8").insert({ title: "someone else's" });
      await store.insert({ title: "nobody's" });
      return store.for("7");
    },
    { owner: 7 },
  );

  describe(`issue 20: SqlStore on ${engine.name}`, () => {
    it("keys come from an identity that is never reused, and a key past 2^32 reads back as a number", async () => {
      const store = new SqlStore<Row>(engine.db(), await freshTable(engine.db()));
      const first = await store.insert({ title: "a" });
      await store.delete(first.id);
      const second = await store.insert({ title: "b" });
      expect(second.id).toBeGreaterThan(first.id);
      await engine.db().query(`ALTER TABLE ${store.table.name} ALTER COLUMN id RESTART WITH 5000000000`);
      const big = await store.insert({ title: "big" });
      expect(big.id).toBe(5_000_000_000);
      expect((await store.get(5_000_000_000))?.title).toBe("big");
    });

    it("values travel as parameters: text that looks like SQL is stored as it is", async () => {
      const store = new SqlStore<Row>(engine.db(), await freshTable(engine.db()));
      const title = `'); DROP TABLE ${store.table.name}; -- "x" $1 \\`;
      const row = await store.insert({ title });
      expect((await store.get(row.id))?.title).toBe(title);
      expect((await store.list({ offset: 0, limit: 10 })).total).toBe(1);
    });

    it("update with the version read writes and moves the version on; a stale version is a Conflict and writes nothing", async () => {
      const store = new SqlStore<Row>(engine.db(), await freshTable(engine.db()));
      const row = await store.insert({ title: "v1" });
      expect(await store.read(row.id)).toEqual({ row: { id: row.id, title: "v1" }, version: 1 });
      expect(await store.update(row.id, { title: "v2" }, 1)).toEqual({ id: row.id, title: "v2" });
      const stale = store.update(row.id, { title: "lost" }, 1);
      await expect(stale).rejects.toBeInstanceOf(Conflict);
      await expect(stale).rejects.toThrow(`The ${store.table.name} row ${row.id} changed (version 1 was read, it is now at 2)`);
      expect(await store.read(row.id)).toEqual({ row: { id: row.id, title: "v2" }, version: 2 });
      // Without a version, the last write wins (the Store contract), and still counts.
      await store.update(row.id, { title: "v3" });
      expect((await store.read(row.id))?.version).toBe(3);
      // A row deleted meanwhile: nothing to update.
      await store.delete(row.id);
      expect(await store.update(row.id, { title: "gone" }, 3)).toBeUndefined();
    });

    it("two concurrent updates from the same version: exactly one is written, the other is a Conflict", async () => {
      const store = new SqlStore<Row>(engine.db(), await freshTable(engine.db()));
      const row = await store.insert({ title: "start" });
      const results = await Promise.allSettled([store.update(row.id, { title: "left" }, 1), store.update(row.id, { title: "right" }, 1)]);
      const written = results.filter((r) => r.status === "fulfilled");
      const refused = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
      expect(written).toHaveLength(1);
      expect(refused).toHaveLength(1);
      expect(refused[0]?.reason).toBeInstanceOf(Conflict);
      expect((await store.read(row.id))?.version).toBe(2);
    });

    it("a value a unique column already holds is refused with DuplicateValue naming the field, and nothing is written", async () => {
      const db = engine.db();
      const spec = await freshTable(db, { extra: [{ field: "slugName", column: "slug_name", type: "text", nullable: true, maxLength: 40, unique: true }] });
      const store = new SqlStore<Row & { slugName?: string }>(db, spec);
      const first = await store.insert({ title: "a", slugName: "hello" });
      const again = store.insert({ title: "b", slugName: "hello" });
      await expect(again).rejects.toBeInstanceOf(DuplicateValue);
      await expect(again).rejects.toMatchObject({ field: "slugName", table: spec.name });
      const other = await store.insert({ title: "c", slugName: "other" });
      await expect(store.update(other.id, { title: "c", slugName: "hello" })).rejects.toMatchObject({ field: "slugName" });
      expect((await store.list({ offset: 0, limit: 10 })).rows.map((r) => [r.id, r.slugName])).toEqual([
        [first.id, "hello"],
        [other.id, "other"],
      ]);
    });

    it("dates stay text; a nullable field read back NULL is absent; a varchar(n) refuses a longer value", async () => {
      const db = engine.db();
      const spec = await freshTable(db, {
        extra: [
          { field: "day", column: "day", type: "date", nullable: true },
          { field: "code", column: "code", type: "text", nullable: true, maxLength: 3 },
        ],
      });
      const store = new SqlStore<Row & { day?: string; code?: string }>(db, spec);
      const row = await store.insert({ title: "t", day: "2026-11-25" });
      expect(await store.get(row.id)).toEqual({ id: row.id, title: "t", day: "2026-11-25" });
      expect(Object.keys((await store.get(row.id)) ?? {})).toEqual(["id", "title", "day"]);
      // A data exception (class 22) of a statement sent values is the request's fault: a 400.
      await expect(store.insert({ title: "t", code: "toolong" })).rejects.toThrow(new BadRequest("A value in this request cannot be stored or looked up: a text is longer than its field allows. Correct it and send the request again."));
    });

    it("the owner narrowing filters in SQL (one statement with the owner as a parameter) and updates keep the owner", async () => {
      const db = engine.db();
      const sent: string[] = [];
      const spying: Database = { ...db, query: (sql, params) => (sent.push(sql), db.query(sql, params)), transaction: (work) => db.transaction(work) } as Database;
      const store = new SqlScopedStore<Row>(new SqlStore<Row>(spying, await freshTable(db, { owned: true })), FromPath.int);
      for (let i = 0; i < 30; i++) await store.for(i % 3 === 0 ? "7" : "8").insert({ title: `r${i}` });
      sent.length = 0;
      const page = await store.for("7").list({ offset: 2, limit: 3 });
      expect(page.total).toBe(10);
      expect(page.rows.map((r) => r.title)).toEqual(["r6", "r9", "r12"]);
      expect(sent).toHaveLength(1);
      expect(sent[0]).toMatch(/WHERE "owner_id" = \$3/);
      const theirs = (await store.for("8").list({ offset: 0, limit: 1 })).rows[0] as Row;
      expect(await store.for("7").update(theirs.id, { title: "hijacked" })).toBeUndefined();
      expect(await store.for("7").delete(theirs.id)).toBe(false);
      expect(await store.update(theirs.id, { title: "edited", owner: 7 })).toEqual({ id: theirs.id, title: "edited", owner: 8 });
      expect(() => store.for("seven")).toThrow(/"seven" is not a valid integer for the owner field "owner"/);
    });
  });

  describe(`issue 28: values the database refuses are the request's fault on ${engine.name}`, () => {
    const refused = (problem: string) => new BadRequest(`A value in this request cannot be stored or looked up: ${problem}. Correct it and send the request again.`);
    const NUL = "a text contains a character the database cannot store (such as U+0000, the NUL character)";

    it("U+0000 in a text or a JSON value is a BadRequest (400), not the driver's error (a 500); nothing is written", async () => {
      const db = engine.db();
      const spec = await freshTable(db, { extra: [{ field: "meta", column: "meta", type: "jsonb", nullable: true }] });
      const store = new SqlStore<Row & { meta?: unknown }>(db, spec);
      await expect(store.insert({ title: "a\u0000b" })).rejects.toThrow(refused(NUL));
      await expect(store.insert({ title: "ok", meta: { note: "x\u0000" } })).rejects.toThrow(refused(NUL));
      const row = await store.insert({ title: "kept" });
      await expect(store.update(row.id, { title: "\u0000" }, 1)).rejects.toThrow(refused(NUL));
      await expect(db.query(`SELECT id FROM "${spec.name}" WHERE title = $1`, ["\u0000"])).rejects.toBeInstanceOf(BadRequest);
      expect((await store.list({ offset: 0, limit: 10 })).rows).toEqual([{ id: row.id, title: "kept" }]);
    });

    it("a key no row can have (past bigint, a fraction, 1e-7, negative) is no such row for the store, and a 400 for hand-written SQL", async () => {
      const db = engine.db();
      const spec = await freshTable(db);
      const store = new SqlStore<Row>(db, spec);
      await store.insert({ title: "one" });
      for (const key of [9223372036854775808, 1.5, 1e-7, -1, 0, Number.NaN, Infinity]) {
        expect(await store.get(key)).toBeUndefined();
        expect(await store.read(key)).toBeUndefined();
        expect(await store.update(key, { title: "x" }, 1)).toBeUndefined();
        expect(await store.delete(key)).toBe(false);
      }
      const find = (key: number) => db.query(`SELECT title FROM "${spec.name}" WHERE id = $1`, [key]);
      await expect(find(9223372036854775808)).rejects.toThrow(refused("a number is out of the range its field allows"));
      await expect(find(1.5)).rejects.toThrow(refused("a value is not written as its field expects (a whole number, say)"));
      await expect(find(1e-7)).rejects.toBeInstanceOf(BadRequest);
      // A version no row can be at (fw_version is an integer): the same 400, never a 500.
      await expect(store.update(1, { title: "x" }, 9_999_999_999)).rejects.toBeInstanceOf(BadRequest);
    });

    it("inside a transaction too (rolled back); a statement sent no values keeps its own error: the app's SQL, not the request", async () => {
      const db = engine.db();
      const spec = await freshTable(db);
      const writing = db.transaction(async (tx) => {
        await tx.query(`INSERT INTO "${spec.name}" (title) VALUES ($1)`, ["first"]);
        await tx.query(`INSERT INTO "${spec.name}" (title) VALUES ($1)`, ["\u0000"]);
      });
      await expect(writing).rejects.toThrow(refused(NUL));
      expect((await db.query(`SELECT count(*)::int AS n FROM "${spec.name}"`)).rows[0]).toEqual({ n: 0 });
      const own = db.query("SELECT 1 / 0 AS n");
      await expect(own).rejects.not.toBeInstanceOf(BadRequest);
      await expect(own).rejects.toMatchObject({ code: "22012" });
      expect((await db.query("SELECT $1::int + 1 AS n", [1])).rows[0]).toEqual({ n: 2 });
    });
  });

  describe(`issue 20: transactions on ${engine.name}`, () => {
    it("a transaction that throws is rolled back; concurrent transactions do not interleave their writes", async () => {
      const db = engine.db();
      const spec = await freshTable(db);
      const table = `"${spec.name}"`;
      await expect(
        db.transaction(async (tx) => {
          await tx.query(`INSERT INTO ${table} (title) VALUES ($1)`, ["rolled back"]);
          throw new Error("boom");
        }),
      ).rejects.toThrow("boom");
      expect((await db.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]).toEqual({ n: 0 });
      await db.query(`INSERT INTO ${table} (title) VALUES ('0')`);
      // Read-modify-write under a row lock: 20 concurrent increments must all land.
      await Promise.all(
        Array.from({ length: 20 }, () =>
          db.transaction(async (tx) => {
            const { rows } = await tx.query<{ title: string }>(`SELECT title FROM ${table} FOR UPDATE`);
            await tx.query(`UPDATE ${table} SET title = $1`, [String(Number(rows[0]?.title) + 1)]);
          }),
        ),
      );
      expect((await db.query(`SELECT title FROM ${table}`)).rows[0]).toEqual({ title: "20" });
    });
  });
});
