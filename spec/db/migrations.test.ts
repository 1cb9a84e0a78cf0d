import { mkdtempSync, readFileSync, rmSync, writeFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { migrate, MigrationError, migrationStatus, newMigration, openDatabase, readMigrations, rollback, type Database, type TableSpec } from "../../runtime/db/index.js";
import { schemaDrift } from "../../runtime/db/schema-diff.js";
import { downSql } from "../../runtime/db/schema-undo.js";
import { onEveryEngine, onPostgres } from "./engines.js";

let dir = "";
let run = 0;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "fw-migrations-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Each test works in its own schema, so the ledger starts empty on a shared database. */
async function freshSchema(db: Database): Promise<string> {
  const schema = `m${++run}_${process.pid}`;
  await db.script(`CREATE SCHEMA ${schema}; SET search_path TO ${schema};`);
  return schema;
}

function write(name: string, sql: string): string {
  const path = join(dir, `${name}.sql`);
  writeFileSync(path, sql);
  return path;
}

async function tables(db: Database, schema: string): Promise<string[]> {
  const { rows } = await db.query<{ t: string }>("SELECT table_name AS t FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1", [schema]);
  return rows.map((row) => row.t);
}

onEveryEngine((engine) => {
  describe(`issue 20: migrations on ${engine.name}`, () => {
    /** One connection throughout, so `SET search_path` holds (a pool would hand out others). */
    const within = <T>(work: (db: Database) => Promise<T>): Promise<T> =>
      engine.db().withConnection((connection) => work({ ...engine.db(), ...connection, withConnection: (w) => w(connection), query: connection.query.bind(connection), script: connection.script.bind(connection), transaction: connection.transaction.bind(connection) } as Database));

    it("applies the files in order, each recorded with its checksum; applying again is a no-op", () =>
      within(async (db) => {
        const schema = await freshSchema(db);
        write("0002_add_body", "ALTER TABLE posts ADD COLUMN body text;");
        write("0001_create_posts", "CREATE TABLE posts (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, title text NOT NULL);\nCREATE INDEX posts_title ON posts (title);");
        expect(await migrationStatus(db, dir)).toEqual({ applied: [], pending: ["0001_create_posts", "0002_add_body"] });
        expect(await migrate(db, dir)).toEqual(["0001_create_posts", "0002_add_body"]);
        expect(await tables(db, schema)).toEqual(["fw_migrations", "posts"]);
        const ledger = await db.query<{ name: string; checksum: string; applied_at: string }>("SELECT name, checksum, applied_at FROM fw_migrations ORDER BY name");
        expect(ledger.rows.map((r) => [r.name, r.checksum])).toEqual(readMigrations(dir).map((m) => [m.name, m.checksum]));
        expect(ledger.rows[0]?.applied_at).toMatch(/^\d{4}-\d\d-\d\d /);
        expect(await migrate(db, dir)).toEqual([]);
        expect((await db.query("SELECT name, checksum, applied_at FROM fw_migrations ORDER BY name")).rows).toEqual(ledger.rows);
        expect(await migrationStatus(db, dir)).toEqual({ applied: ["0001_create_posts", "0002_add_body"], pending: [] });
      }));

    it("an applied migration edited since is refused, naming it, and nothing further is applied", () =>
      within(async (db) => {
        const schema = await freshSchema(db);
        const first = write("0001_create_posts", "CREATE TABLE posts (id bigint PRIMARY KEY);");
        await migrate(db, dir);
        writeFileSync(first, "CREATE TABLE posts (id bigint PRIMARY KEY, sneaky text);");
        write("0002_create_tags", "CREATE TABLE tags (id bigint PRIMARY KEY);");
        const refused = migrate(db, dir);
        await expect(refused).rejects.toBeInstanceOf(MigrationError);
        await expect(refused).rejects.toThrow(/the migration .*0001_create_posts\.sql was edited after it was applied .*put the change in a new migration/);
        await expect(migrationStatus(db, dir)).rejects.toThrow(/0001_create_posts\.sql was edited/);
        expect(await tables(db, schema)).toEqual(["fw_migrations", "posts"]);
      }));

    it("a failing migration is rolled back whole and not recorded; those before it stay applied", () =>
      within(async (db) => {
        const schema = await freshSchema(db);
        write("0001_create_posts", "CREATE TABLE posts (id bigint PRIMARY KEY);");
        write("0002_broken", "CREATE TABLE half (id bigint PRIMARY KEY);\nINSERT INTO half VALUES (1);\nINSERT INTO no_such_table VALUES (1);");
        write("0003_later", "CREATE TABLE later (id bigint PRIMARY KEY);");
        const failed = migrate(db, dir);
        await expect(failed).rejects.toThrow(/the migration .*0002_broken\.sql failed and was rolled back \(nothing of it is applied\): .*no_such_table/);
        expect(await tables(db, schema)).toEqual(["fw_migrations", "posts"]);
        expect(await migrationStatus(db, dir)).toEqual({ applied: ["0001_create_posts"], pending: ["0002_broken", "0003_later"] });
        write("0002_broken", "CREATE TABLE half (id bigint PRIMARY KEY);");
        expect(await migrate(db, dir)).toEqual(["0002_broken", "0003_later"]);
      }));

    it("a migration and its record commit together: when recording fails, its changes are rolled back too", () =>
      within(async (db) => {
        const schema = await freshSchema(db);
        // The script succeeds on its own, then its record collides with the row it wrote.
        write("0001_records_itself", "CREATE TABLE half (id bigint PRIMARY KEY);\nINSERT INTO fw_migrations (name, checksum) VALUES ('0001_records_itself', 'forged');");
        await expect(migrate(db, dir)).rejects.toThrow(/0001_records_itself\.sql failed and was rolled back/);
        expect(await tables(db, schema)).toEqual(["fw_migrations"]);
        expect(await migrationStatus(db, dir)).toEqual({ applied: [], pending: ["0001_records_itself"] });
      }));
  });
});

onEveryEngine((engine) => {
  describe(`issue 43, item 8: migrations that roll back on ${engine.name}`, () => {
    const within = <T>(work: (db: Database) => Promise<T>): Promise<T> =>
      engine.db().withConnection((connection) => work({ ...engine.db(), ...connection, withConnection: (w) => w(connection), query: connection.query.bind(connection), script: connection.script.bind(connection), transaction: connection.transaction.bind(connection) } as Database));

    it("rollback runs the downs of the last N applied migrations, newest first, each removed from the ledger; migrate applies them again", () =>
      within(async (db) => {
        const schema = await freshSchema(db);
        write("0001_create_posts", "CREATE TABLE posts (id bigint PRIMARY KEY);\n-- fw:down\nDROP TABLE posts;\n");
        write("0002_add_body", "ALTER TABLE posts ADD COLUMN body text;\n-- fw:down: undoes it\nALTER TABLE posts DROP COLUMN body;\n");
        write("0003_create_tags", "CREATE TABLE tags (id bigint PRIMARY KEY);\n-- fw:down\nDROP TABLE tags;\n");
        await migrate(db, dir);
        expect(await rollback(db, dir)).toEqual(["0003_create_tags"]);
        expect(await tables(db, schema)).toEqual(["fw_migrations", "posts"]);
        expect(await rollback(db, dir, 2)).toEqual(["0002_add_body", "0001_create_posts"]);
        expect(await tables(db, schema)).toEqual(["fw_migrations"]);
        expect(await migrationStatus(db, dir)).toEqual({ applied: [], pending: ["0001_create_posts", "0002_add_body", "0003_create_tags"] });
        expect(await rollback(db, dir)).toEqual([]);
        expect(await migrate(db, dir)).toEqual(["0001_create_posts", "0002_add_body", "0003_create_tags"]);
        const { rows } = await db.query<{ c: string }>("SELECT column_name AS c FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'posts' ORDER BY 1", [schema]);
        expect(rows.map((row) => row.c)).toEqual(["body", "id"]);
      }));

    it("a migration without a down stops the rollback before anything is undone, naming it; its down may be written after it was applied", () =>
      within(async (db) => {
        const schema = await freshSchema(db);
        write("0001_create_posts", "CREATE TABLE posts (id bigint PRIMARY KEY);\n-- fw:down\nDROP TABLE posts;\n");
        const second = write("0002_create_tags", "CREATE TABLE tags (id bigint PRIMARY KEY);\n");
        await migrate(db, dir);
        const refused = rollback(db, dir, 2);
        await expect(refused).rejects.toBeInstanceOf(MigrationError);
        await expect(refused).rejects.toThrow(/the migration .*0002_create_tags\.sql has no down \(no `-- fw:down` line\), so it cannot be rolled back; nothing was\./);
        writeFileSync(second, "CREATE TABLE tags (id bigint PRIMARY KEY);\n-- fw:down\n-- nothing yet\n");
        await expect(rollback(db, dir)).rejects.toThrow(/0002_create_tags\.sql has no down \(no statement under its `-- fw:down` line\)/);
        expect(await tables(db, schema)).toEqual(["fw_migrations", "posts", "tags"]);
        // Writing the down changes no checksum: the up is what was applied.
        writeFileSync(second, "CREATE TABLE tags (id bigint PRIMARY KEY);\n-- fw:down\nDROP TABLE tags;\n");
        expect(await migrate(db, dir)).toEqual([]);
        expect(await rollback(db, dir, 2)).toEqual(["0002_create_tags", "0001_create_posts"]);
        expect(await tables(db, schema)).toEqual(["fw_migrations"]);
        await expect(rollback(db, dir, 0)).rejects.toThrow(/a whole number of migrations from 1, not 0/);
      }));

    it("a failing down is rolled back whole: that migration stays applied, those undone before it stay undone", () =>
      within(async (db) => {
        const schema = await freshSchema(db);
        write("0001_create_posts", "CREATE TABLE posts (id bigint PRIMARY KEY);\n-- fw:down\nDROP TABLE posts;\nDROP TABLE no_such_table;\n");
        write("0002_create_tags", "CREATE TABLE tags (id bigint PRIMARY KEY);\n-- fw:down\nDROP TABLE tags;\n");
        await migrate(db, dir);
        await expect(rollback(db, dir, 2)).rejects.toThrow(/the down of .*0001_create_posts\.sql failed and was rolled back \(the migration stays applied\): .*no_such_table/);
        expect(await tables(db, schema)).toEqual(["fw_migrations", "posts"]);
        expect(await migrationStatus(db, dir)).toEqual({ applied: ["0001_create_posts"], pending: ["0002_create_tags"] });
      }));

    it("db new's down undoes its up: a table, then a column, an index, a foreign key and a search column added to it, each dropped again", () =>
      within(async (db) => {
        const schema = await freshSchema(db);
        const authors: TableSpec = { name: "authors", key: { field: "id", column: "id" }, columns: [{ field: "name", column: "name", type: "text", nullable: false }] };
        const posts: TableSpec = { name: "posts", key: { field: "id", column: "id" }, columns: [{ field: "title", column: "title", type: "text", nullable: false }] };
        const created = await schemaDrift(db, [authors, posts]);
        write("0001_create", `${created.sql}\n-- fw:down\n${downSql(created.changes)}`);
        await migrate(db, dir);
        const grown: TableSpec = {
          ...posts,
          columns: [...posts.columns, { field: "body", column: "body", type: "text", nullable: true }, { field: "author", column: "author_id", type: "bigint", nullable: true, references: { table: "authors", column: "id" } }],
          indexes: [["title", "id"]],
          search: { language: "english", columns: ["title", "body"] },
        };
        const added = await schemaDrift(db, [authors, grown]);
        expect(added.changes.map((c) => c.kind)).toEqual(expect.arrayContaining(["add column", "add foreign key", "add index"]));
        write("0002_grow", `${added.sql}\n-- fw:down\n${downSql(added.changes)}`);
        await migrate(db, dir);
        expect((await schemaDrift(db, [authors, grown])).changes).toEqual([]);
        expect(await rollback(db, dir)).toEqual(["0002_grow"]);
        expect((await schemaDrift(db, [authors, posts])).changes).toEqual([]);
        expect(await rollback(db, dir)).toEqual(["0001_create"]);
        expect(await tables(db, schema)).toEqual(["fw_migrations"]);
      }));

    it("db new's down of a drop stops the rollback with a message saying the data is gone", () =>
      within(async (db) => {
        await freshSchema(db);
        await db.script("CREATE TABLE notes (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, text text, old text, fw_version integer NOT NULL DEFAULT 1);");
        const notes: TableSpec = { name: "notes", key: { field: "id", column: "id" }, columns: [{ field: "text", column: "text", type: "text", nullable: true }] };
        const dropped = await schemaDrift(db, [notes]);
        expect(dropped.changes.map((c) => c.kind)).toEqual(["drop column"]);
        write("0001_drop_old", `${dropped.sql}\n-- fw:down\n${downSql(dropped.changes)}`);
        await migrate(db, dir);
        await expect(rollback(db, dir)).rejects.toThrow(/fw: this migration cannot be rolled back as written: it notes: drops the column old.*which its down cannot undo \(the data is gone\)/);
      }));
  });
});

onPostgres((engine) => {
  describe("issue 20: concurrent migrators on PostgreSQL", () => {
    it("two processes' migrators are serialised by an advisory lock: each migration runs once", async () => {
      write("0001_create_a", "CREATE TABLE conc_a (id bigint PRIMARY KEY);");
      write("0002_slow", "SELECT pg_sleep(0.3); CREATE TABLE conc_b (id bigint PRIMARY KEY);");
      const url = (engine.cluster() as { url: string }).url;
      const [one, two] = await Promise.all([openDatabase({ url }), openDatabase({ url })]);
      try {
        const results = await Promise.all([migrate(one as Database, dir), migrate(two as Database, dir)]);
        expect(results.flat().sort()).toEqual(["0001_create_a", "0002_slow"]);
        expect((await migrationStatus(one as Database, dir)).pending).toEqual([]);
      } finally {
        await Promise.all([one?.close(), two?.close()]);
      }
    });

    it("processes booting at once on a new database each check the status (no lock) without a catalog race over fw_migrations", async () => {
      write("0001_create_a", "CREATE TABLE race_a (id bigint PRIMARY KEY);");
      const url = new URL((engine.cluster() as { url: string }).url);
      const admin = await openDatabase({ url: url.href });
      try {
        // Several fresh databases, each checked by six processes' boots at once: CREATE TABLE IF
        // NOT EXISTS from two sessions at once can collide in the catalog (23505).
        for (let round = 0; round < 4; round++) {
          const name = `race_${process.pid}_${round}`;
          await (admin as Database).query(`CREATE DATABASE ${name}`);
          const fresh = new URL(url.href);
          fresh.pathname = `/${name}`;
          const boots = await Promise.all(Array.from({ length: 6 }, () => openDatabase({ url: fresh.href })));
          try {
            const statuses = await Promise.all(boots.map((db) => migrationStatus(db as Database, dir)));
            expect(statuses.map((status) => status.pending)).toEqual(Array.from({ length: 6 }, () => ["0001_create_a"]));
          } finally {
            await Promise.all(boots.map((db) => db?.close()));
          }
        }
      } finally {
        await admin?.close();
      }
    });
  });
});

describe("issue 20: migration files", () => {
  it("db new writes the next numbered, empty migration; names are slugged", () => {
    expect(newMigration(dir, "Create posts")).toBe(join(dir, "0001_create_posts.sql"));
    expect(newMigration(dir, "add-body!")).toBe(join(dir, "0002_add_body.sql"));
    expect(readdirSync(dir).sort()).toEqual(["0001_create_posts.sql", "0002_add_body.sql"]);
    expect(readFileSync(join(dir, "0002_add_body.sql"), "utf8")).toMatch(/^-- add body: /);
    // Issue 43: an up, then the line that starts its down.
    expect(readFileSync(join(dir, "0002_add_body.sql"), "utf8")).toMatch(/^-- add body: applied once[^\n]*\n\n-- fw:down: what `db rollback` runs, in a transaction, to undo the above[^\n]*\n$/);
    expect(readMigrations(dir)[1]).toMatchObject({ down: "\n" });
    expect(() => newMigration(dir, "!!")).toThrow('a migration needs a name of letters or digits, not "!!"');
  });

  it("a misnamed file and two files with one number are refused, naming them", () => {
    write("0001_ok", "");
    write("1_bad", "");
    expect(() => readMigrations(dir)).toThrow(/1_bad\.sql is not named NNNN_name\.sql/);
    rmSync(join(dir, "1_bad.sql"));
    write("0001_twin", "");
    expect(() => readMigrations(dir)).toThrow("the migrations 0001_ok.sql and 0001_twin.sql share the number 0001");
  });
});
