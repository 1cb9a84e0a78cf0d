import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Browser, freshEmail, PASSWORD } from "../auth/client.js";
import { bootNode, runNode } from "../support/process.js";
import { postgresBin, startCluster, type PostgresCluster } from "../support/postgres.js";
import { PRODUCTION_ENV } from "../support/serve.js";
import { FIXTURES, tspc } from "../support/tspc.js";
import { openDatabase, type Database } from "../../runtime/db/index.js";

// Issue 20, models declare a table: the build derives each table from the model's fields, the
// generated module keeps the rows in fw/db, and `db new` writes the CREATE TABLE statements.
// The fixture runs on a throwaway PostgreSQL cluster (fast to open); without PostgreSQL on the
// machine, on PGlite under the fixture's .fw/db.
const dir = join(FIXTURES, "db-tables");
const main = join(dir, "dist/main.js");
const migrations = join(dir, "db/migrations");
let cluster: PostgresCluster | undefined;
let env: Record<string, string> = {};
let db: Database | undefined;

beforeAll(async () => {
  rmSync(join(dir, "db"), { recursive: true, force: true });
  rmSync(join(dir, ".fw"), { recursive: true, force: true });
  const bin = postgresBin();
  const [built] = await Promise.all([tspc(dir), bin === undefined ? undefined : startCluster(bin).then((c) => (cluster = c))]);
  if (built.code !== 0) throw new Error(`building db-tables failed:\n${built.output}`);
  // West of Greenwich, where a driver sending a Date in local time would store the day before.
  env = { ...PRODUCTION_ENV, TZ: "America/New_York", ...(cluster === undefined ? {} : { DATABASE_URL: cluster.url }) };
}, 120_000);

afterAll(async () => {
  await db?.close();
  await cluster?.destroy();
  rmSync(join(dir, "db"), { recursive: true, force: true });
  rmSync(join(dir, ".fw"), { recursive: true, force: true });
});

describe("issue 20: models with a table", () => {
  it("the generated module imports fw/db and gives each table model's store; a model without a table stays in memory", () => {
    const routes = readFileSync(join(dir, "src/.fw/routes.ts"), "utf8");
    expect(routes).toContain(`import { processDatabase, SqlScopedStore, SqlStore, type TableSpec } from "fw/db";`);
    expect(routes).toContain("const store0 = storeFor(model0);");
    expect(routes).toContain("const store2 = storeFor(model2, table2);");
    expect(routes).toMatch(/const store1 = new SqlScopedStore<m1\.Note>\(new SqlStore<m1\.Note>\(processDatabase\(\), table1\)/);
    expect(routes).toContain(`  table: "posts",`);
    expect(routes).toContain(`export const tables: readonly TableSpec[] = [table1, table2];`);
  });

  it("the table is derived from the fields: maxLength → varchar(n), optional → NULL, number, boolean, select (indexed with the key), the owner a foreign key to users", async () => {
    const made = await runNode(main, ["db", "new", "create tables"], env, dir);
    expect(made.code, made.err).toBe(0);
    expect(made.out).toMatch(/fw: wrote db\/migrations\/0001_create_tables\.sql \(creates the tables users, notes, posts; apply it with `node dist\/main\.js db migrate`\)/);
    const sql = readFileSync(join(migrations, "0001_create_tables.sql"), "utf8");
    expect(sql).toContain(`CREATE TABLE "users" (`);
    expect(sql).toContain(`"owner_id" bigint NOT NULL CONSTRAINT "notes_owner_id_fkey" REFERENCES "users" ("id") ON DELETE RESTRICT`);
    expect(sql).toContain(`"title" varchar(80) NOT NULL`);
    expect(sql).toContain(`"body" varchar(10000),`);
    expect(sql).toContain(`"rating" double precision NOT NULL`);
    expect(sql).toContain(`"published" boolean NOT NULL`);
    expect(sql).toContain(`"kind" text NOT NULL`);
    // A union is the Index's select filter (`?kind=news`): its rows in key order come from an index (issue 43).
    expect(sql).toContain(`CREATE INDEX "posts_kind_id_idx" ON "posts" ("kind", "id");`);
    expect(sql).toContain(`"published_on" date,`);
    expect(sql).toContain(`"created_at" timestamptz NOT NULL`); // a server-set instant, not a day
    expect(sql).toContain(`"id" bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY`);
    expect(sql).not.toContain("drafts");
    // Written but not applied: a second `db new` does not write the tables again.
    const again = await runNode(main, ["db", "new", "nothing new"], env, dir);
    expect(again.out).toMatch(/wrote db\/migrations\/0002_nothing_new\.sql\n/);
    expect(readFileSync(join(migrations, "0002_nothing_new.sql"), "utf8")).not.toContain("CREATE");
    rmSync(join(migrations, "0002_nothing_new.sql"));
    const migrated = await runNode(main, ["db", "migrate"], env, dir);
    expect(migrated.code, migrated.err).toBe(0);
    expect(readdirSync(migrations)).toEqual(["0001_create_tables.sql"]);
  }, 120_000);

  it("rows written through the derived pages are in the database, owned rows with their owner; they survive a restart", async () => {
    const first = bootNode(main, [], env, dir);
    const browser = new Browser(await first.url);
    await browser.get("/posts/new");
    const created = await browser.post("/posts", { title: "Stored", rating: "4.5", published: "true", kind: "news", publishedOn: "2026-11-25" });
    expect(created.status).toBe(303);
    // A Date field reads back as a Date (UTC midnight), as the form gave it.
    expect(await (await fetch(`${await first.url}/count`)).text()).toBe("1 posts, 0 drafts (the first on 2026-11-25T00:00:00.000Z)");
    await browser.signUp(freshEmail("db"), PASSWORD);
    await browser.get("/notes/new");
    expect((await browser.post("/notes", { text: "mine" })).status).toBe(303);
    await browser.get("/drafts/new");
    expect((await browser.post("/drafts", { text: "in memory" })).status).toBe(303);
    expect(await (await fetch(`${await first.url}/count`)).text()).toBe("1 posts, 1 drafts (the first on 2026-11-25T00:00:00.000Z)");
    first.child.kill("SIGTERM");
    await first.exited;

    db = await openDatabase(cluster === undefined ? { directory: join(dir, ".fw/db"), env: {} } : { url: cluster.url, log: () => undefined });
    expect((await db.query(`SELECT title, rating, published, kind, body, published_on FROM posts`)).rows).toEqual([
      { title: "Stored", rating: 4.5, published: true, kind: "news", body: null, published_on: "2026-11-25" },
    ]);
    const notes = (await db.query(`SELECT n.text, u.email, n.created_at > now() - interval '10 minutes' AS recent FROM notes n JOIN users u ON u.id = n.owner_id`)).rows;
    expect(notes).toEqual([{ text: "mine", email: expect.stringMatching(/^db-/), recent: true }]);
    await db.close();
    db = undefined;

    const second = bootNode(main, [], env, dir);
    try {
      const url = await second.url;
      expect(await (await fetch(`${url}/count`)).text()).toBe("1 posts, 0 drafts (the first on 2026-11-25T00:00:00.000Z)");
      expect(await (await fetch(`${url}/posts/1`)).text()).toContain("Stored");
    } finally {
      second.child.kill("SIGTERM");
      await second.exited;
    }
  }, 180_000);
});
