import { mkdtempSync, readFileSync, rmSync, writeFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { migrate, MigrationError, migrationStatus, newMigration, openDatabase, readMigrations, type Database } from "../../runtime/db/index.js";
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
  });
});

describe("issue 20: migration files", () => {
  it("db new writes the next numbered, empty migration; names are slugged", () => {
    expect(newMigration(dir, "Create posts")).toBe(join(dir, "0001_create_posts.sql"));
    expect(newMigration(dir, "add-body!")).toBe(join(dir, "0002_add_body.sql"));
    expect(readdirSync(dir).sort()).toEqual(["0001_create_posts.sql", "0002_add_body.sql"]);
    expect(readFileSync(join(dir, "0002_add_body.sql"), "utf8")).toMatch(/^-- add body: /);
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
