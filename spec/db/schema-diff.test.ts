import { beforeEach, describe, expect, it } from "vitest";
import { createTableSql, type ColumnSpec, type TableSpec } from "../../runtime/db/index.js";
import { schemaDrift, type SchemaDrift } from "../../runtime/db/schema-diff.js";
import { onEveryEngine } from "./engines.js";

// Issue 21, the drift page: the tables the models derive compared with the database's schema,
// and the SQL that brings the database in line; the same on PGlite and PostgreSQL.
const title: ColumnSpec = { field: "title", column: "title", type: "text", nullable: false, maxLength: 80 };
const rating: ColumnSpec = { field: "rating", column: "rating", type: "integer", nullable: false };
const POSTS: TableSpec = { name: "posts", key: { field: "id", column: "id" }, columns: [title, rating] };
const withColumns = (...columns: ColumnSpec[]): TableSpec => ({ ...POSTS, columns });
const HOSTILE = "x'); DROP TABLE posts; --";

onEveryEngine((engine) => {
  describe(`issue 21: the schema diff (${engine.name})`, () => {
    const db = () => engine.db();
    const drift = (tables: readonly TableSpec[]): Promise<SchemaDrift> => schemaDrift(db(), tables);
    /** Applies the drift's SQL in a transaction, as Sync does, and says the drift is gone after. */
    const applied = async (tables: readonly TableSpec[]): Promise<SchemaDrift> => {
      const found = await drift(tables);
      await db().transaction((tx) => tx.script(found.sql));
      expect((await drift(tables)).changes).toEqual([]);
      return found;
    };

    beforeEach(async () => {
      await db().script("DROP SCHEMA public CASCADE; CREATE SCHEMA public;");
    });

    it("a missing table is created (and the users table an owned model references first); then there is no drift", async () => {
      const owner: ColumnSpec = { field: "owner", column: "owner_id", type: "bigint", nullable: false, references: { table: "users", column: "id" } };
      const notes: TableSpec = { name: "notes", key: { field: "id", column: "id" }, columns: [owner], owner: "owner" };
      const found = await applied([POSTS, notes]);
      expect(found.changes.map((c) => `${c.kind} ${c.table}`)).toEqual(["create table users", "create table posts", "create table notes"]);
      expect(found.destructive).toBe(false);
      expect(found.sql).toContain(createTableSql(POSTS).trimEnd());
    });

    it("a field the model gained: ADD COLUMN, NOT NULL with a fill value for the rows already there", async () => {
      await db().script(createTableSql(POSTS));
      await db().query("INSERT INTO posts (title, rating) VALUES ($1, $2)", [HOSTILE, 3]);
      const body: ColumnSpec = { field: "body", column: "body", type: "text", nullable: false };
      const note: ColumnSpec = { field: "note", column: "note", type: "text", nullable: true };
      const found = await applied([withColumns(title, rating, body, note)]);
      expect(found.changes.map((c) => `${c.kind} ${c.column}`)).toEqual(["add column body", "add column note"]);
      expect(found.changes[0]?.sql).toBe(`ALTER TABLE "posts" ADD COLUMN "body" text NOT NULL DEFAULT '';\nALTER TABLE "posts" ALTER COLUMN "body" DROP DEFAULT;\n`);
      expect(found.destructive).toBe(false);
      expect(found.sql).not.toContain("DROP TABLE posts"); // no value of a row ever enters the SQL
      const { rows } = await db().query("SELECT title, body, note FROM posts");
      expect(rows).toEqual([{ title: HOSTILE, body: "", note: null }]);
    });

    it("a column no field stores is dropped: destructive when rows hold values in it, not when none does", async () => {
      await db().script(createTableSql(withColumns(title, rating, { field: "old", column: "old", type: "text", nullable: true })));
      await db().query("INSERT INTO posts (title, rating) VALUES ($1, $2)", ["a", 1]);
      const empty = await drift([POSTS]);
      expect(empty.changes).toMatchObject([{ kind: "drop column", column: "old", sql: `ALTER TABLE "posts" DROP COLUMN "old";\n` }]);
      expect(empty.destructive).toBe(false);
      await db().query("UPDATE posts SET old = $1", ["kept"]);
      const full = await drift([POSTS]);
      expect(full.changes[0]?.destructive).toMatch(/deletes the values rows hold in old/);
      expect(full.destructive).toBe(true);
      expect(full.fingerprint).not.toBe(empty.fingerprint);
      await applied([POSTS]);
    });

    it("a changed type or length: widening is safe, narrowing holding values is destructive; a too-long value is refused, never cut", async () => {
      await db().script(createTableSql(POSTS));
      await db().query("INSERT INTO posts (title, rating) VALUES ($1, $2)", ["a title of some length", 1]);
      const wider = await drift([withColumns({ ...title, maxLength: 200 }, { ...rating, type: "bigint" })]);
      expect(wider.changes.map((c) => `${c.kind} ${c.column} ${c.was} → ${c.wanted}`)).toEqual([
        "change type title character varying(80) → character varying(200)",
        "change type rating integer → bigint",
      ]);
      expect(wider.destructive).toBe(false);
      const narrower = withColumns({ ...title, maxLength: 5 }, rating);
      const found = await drift([narrower]);
      expect(found.changes[0]).toMatchObject({ kind: "change type", sql: `ALTER TABLE "posts" ALTER COLUMN "title" TYPE varchar(5);\n` });
      expect(found.changes[0]?.destructive).toMatch(/narrows character varying\(80\) to character varying\(5\)/);
      await expect(db().transaction((tx) => tx.script(found.sql))).rejects.toThrow(/too long/);
      expect((await db().query("SELECT title FROM posts")).rows).toEqual([{ title: "a title of some length" }]);
      await applied([withColumns({ ...title, maxLength: 200 }, { ...rating, type: "bigint" })]);
    });

    it("nullability both ways: optional is safe; required fills the NULLs with the type's fill value", async () => {
      await db().script(createTableSql(withColumns(title, { ...rating, nullable: true })));
      await db().query("INSERT INTO posts (title) VALUES ($1)", ["a"]);
      const found = await applied([withColumns({ ...title, nullable: true }, rating)]);
      expect(found.changes.map((c) => `${c.kind} ${c.column}`)).toEqual(["drop not null title", "set not null rating"]);
      expect((await db().query("SELECT rating FROM posts")).rows).toEqual([{ rating: 0 }]);
    });

    it("a table fw made for a model no model declares is dropped (destructive with rows); a table made by hand is left alone", async () => {
      await db().script(createTableSql(POSTS));
      await db().script(`CREATE TABLE audit (id bigint GENERATED ALWAYS AS IDENTITY, fw_version integer NOT NULL DEFAULT 1)`);
      const empty = await drift([]);
      expect(empty.changes).toMatchObject([{ kind: "drop table", table: "posts", sql: `DROP TABLE "posts";\n` }]);
      expect(empty.destructive).toBe(false);
      await db().query("INSERT INTO posts (title, rating) VALUES ($1, $2)", ["a", 1]);
      const full = await drift([]);
      expect(full.changes[0]?.destructive).toBe("deletes the table's rows");
      await applied([]);
      expect((await db().query("SELECT count(*)::int AS n FROM audit")).rows).toEqual([{ n: 0 }]);
    });
  });
});
