import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Ok, Route, RouteTable } from "../../runtime/index.js";
import { appDatabase, DbApp, type AppDatabase, type Database, type TableSpec } from "../../runtime/db/index.js";
import type { RunningServer } from "../../runtime/server/server.js";
import type { DevHook } from "../../runtime/server/dev-hook.js";
import { Browser } from "../auth/client.js";
import { TEST_SECRET } from "../support/serve.js";

// Issue 21, the drift page served in process (the fw dev tests in spec/dev/drift.test.ts run the
// whole loop): how the stand-in answers paths, methods and kinds of routes, where Sync goes back
// to, and what a change the database refuses or a failing Freeze leaves behind. On PGlite.
const NOTES: TableSpec = {
  name: "notes",
  key: { field: "id", column: "id" },
  columns: [{ field: "text", column: "text", type: "text", nullable: false, maxLength: 40 }],
};
const SHORTER: TableSpec = { ...NOTES, columns: [{ field: "text", column: "text", type: "text", nullable: false, maxLength: 3 }] };
// Issue 29: two required fields gained by a table with a row.
const RATED: TableSpec = {
  ...NOTES,
  columns: [...NOTES.columns, { field: "stars", column: "stars", type: "integer", nullable: false }, { field: "done", column: "done", type: "boolean", nullable: false }],
};

/** A dev hook without `fw dev`: no reload socket, pages as they are. */
const hook = (): DevHook => ({ sockets: [], decorate: (html) => html, buildFailure: () => undefined, beforeListen: async () => {}, started: () => {}, close: () => {} });

const routes = RouteTable.of(Route.get("/", () => Ok("the app")), Route.api({ method: "GET", path: "/api/notes", handler: () => Ok("[]") }));

let dir = "";
const log: string[] = [];
const booted: { migrations: number }[] = [];
let server: RunningServer | undefined;
let database: AppDatabase | undefined;

async function serveWith(tables: readonly TableSpec[] | undefined): Promise<string> {
  await server?.close();
  database = appDatabase({ directory: join(dir, "db"), env: {} });
  const devBoot = async (db: Database): Promise<void> => {
    const { rows } = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM fw_migrations");
    booted.push({ migrations: rows[0]?.n ?? -1 });
  };
  const app = new DbApp({ routes, secret: TEST_SECRET, accessLog: false, database, devBoot, migrations: join(dir, "migrations"), ...(tables === undefined ? {} : { tables }) });
  app.console = { out: () => {}, err: (line) => log.push(line) };
  server = await app.serve({ dev: true, port: 0, devHook: hook() });
  return server.url;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "fw-drift-"));
  // One applied migration that makes nothing, so devBoot can see migrations ran before it.
  mkdirSync(join(dir, "migrations"));
  writeFileSync(join(dir, "migrations/0001_nothing.sql"), "SELECT 1;\n");
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("issue 21: the drift page in process", () => {
  it("an app that passes no tables gets no drift page; devBoot runs once the database is open and migrated, before the server listens", async () => {
    const url = await serveWith(undefined);
    expect(booted).toEqual([{ migrations: 1 }]);
    expect(await (await fetch(`${url}/`)).text()).toBe("the app");
    expect((await fetch(`${url}/fw/sync`, { method: "POST" })).status).toBe(404);
  });

  it("stands in for every browser GET and HEAD, even of no route; an API route and other methods get a 503 naming the drift", async () => {
    const url = await serveWith([NOTES]);
    const page = await fetch(`${url}/nowhere`);
    expect(page.status).toBe(503);
    expect(await page.text()).toContain("creates the table notes");
    expect((await fetch(`${url}/`, { method: "HEAD" })).status).toBe(503);
    const api = await fetch(`${url}/api/notes`);
    expect(api.status).toBe(503);
    expect(api.headers.get("retry-after")).toBe("1");
    expect(await api.text()).toContain("The dev database does not match the models (1 change in notes)");
    expect((await fetch(`${url}/`, { method: "DELETE" })).status).toBe(503);
    expect((await fetch(`${url}/fw/sync`)).status).toBe(503); // GET of an action: the page, not the action
    expect((await fetch(`${url}/fw/health`)).status).toBe(200);
  });

  it("Sync goes back only to a path of this site", async () => {
    const url = await serveWith([NOTES]);
    const browser = new Browser(url);
    const drift = /name="drift" value="([0-9a-f]+)"/.exec((await browser.get("/")).html)?.[1] as string;
    const synced = await browser.post("/fw/sync", { drift, back: "//evil.example/x" });
    expect(synced.status).toBe(303);
    expect(synced.location).toBe("/");
    expect(await (await fetch(`${url}/`)).text()).toBe("the app");
    expect(log.join("\n")).toContain("fw dev: synced the dev database (1 change in notes)");
  });

  it("a change the database refuses answers 409 with its reason and applies nothing; a Freeze that fails leaves no migration", async () => {
    await database?.query("INSERT INTO notes (text) VALUES ($1)", ["longer than three"]);
    const url = await serveWith([SHORTER]);
    const browser = new Browser(url);
    const page = await browser.get("/");
    expect(page.html).toContain("Destructive: narrows character varying(40) to character varying(3)");
    const drift = /name="drift" value="([0-9a-f]+)"/.exec(page.html)?.[1] as string;
    const refused = await browser.post("/fw/sync", { drift, back: "/", confirm: "destructive" });
    expect(refused.status).toBe(409);
    expect(refused.html).toContain("The database refused the change, so nothing was applied");
    expect(refused.html).toContain("too long");
    const frozen = await browser.post("/fw/freeze", { drift, back: "/", confirm: "destructive", name: "shorter" });
    expect(frozen.status).toBe(409);
    expect(frozen.html).toMatch(/0002_shorter\.sql failed and was rolled back/);
    expect(readdirSync(join(dir, "migrations"))).toEqual(["0001_nothing.sql"]);
    expect((await database?.query("SELECT text FROM notes"))?.rows).toEqual([{ text: "longer than three" }]);
  });

  it("a required field gained by a table with rows: the page asks the value each column's rows get; refused without one or with a wrong one (422, what was typed shown again); Freeze writes the value", async () => {
    const url = await serveWith([RATED]);
    const browser = new Browser(url);
    const page = await browser.get("/");
    expect(page.status).toBe(503);
    expect(page.html).toContain("adds the column stars (integer, NOT NULL); the rows already there get the value you choose");
    expect(page.html).toMatch(/The value the 1 row gets in stars \(a whole number\): <input name="fill\.notes\.stars" required class="fw-drift-value" type="number" step="1">/);
    expect(page.html).toContain('<select name="fill.notes.done" required class="fw-drift-value"><option value="">choose</option><option value="true">true</option><option value="false">false</option></select>');
    expect(page.html).toContain("RAISE EXCEPTION &#39;fw: choose the value existing rows of notes get in stars: edit this migration");
    expect(page.html).toMatch(/<button type="submit" formaction="\/fw\/freeze">Freeze<\/button>/);
    const drift = /name="drift" value="([0-9a-f]+)"/.exec(page.html)?.[1] as string;

    const none = await browser.post("/fw/sync", { drift, back: "/" });
    expect(none.status).toBe(422);
    expect(none.html).toContain(
      "Nothing was applied. 2 changes cannot apply as it stands: notes: choose the value existing rows of notes get in stars (1 row); notes: choose the value existing rows of notes get in done (1 row)",
    );
    const wrong = await browser.post("/fw/sync", { drift, back: "/", "fill.notes.stars": "<b>many</b>", "fill.notes.done": "true" });
    expect(wrong.status).toBe(422);
    expect(wrong.html).toContain("Nothing was applied. A change cannot apply as it stands: notes: stars: &quot;&lt;b&gt;many&lt;/b&gt;&quot; is not a whole number.</p>");
    expect(wrong.html).toContain('<p class="fw-drift-reason" style="color:#b00020">Cannot apply as it stands: stars: &quot;&lt;b&gt;many&lt;/b&gt;&quot; is not a whole number.</p>');
    expect(wrong.html).toContain('value="&lt;b&gt;many&lt;/b&gt;"'); // shown again, escaped
    expect(wrong.html).toContain('<option value="true" selected>true</option>');
    expect((await database?.query("SELECT count(*)::int AS n FROM notes"))?.rows).toEqual([{ n: 1 }]);
    expect(readdirSync(join(dir, "migrations"))).toEqual(["0001_nothing.sql"]);

    const frozen = await browser.post("/fw/freeze", { drift, back: "/", name: "rate notes", "fill.notes.stars": "4", "fill.notes.done": "false" });
    expect(frozen.status, frozen.html).toBe(303);
    const migration = readFileSync(join(dir, "migrations/0002_rate_notes.sql"), "utf8");
    expect(migration).toContain(`ALTER TABLE "notes" ADD COLUMN "stars" integer NOT NULL DEFAULT '4'::integer;\nALTER TABLE "notes" ALTER COLUMN "stars" DROP DEFAULT;`);
    expect(migration).not.toContain("RAISE");
    expect((await database?.query("SELECT text, stars, done FROM notes"))?.rows).toEqual([{ text: "longer than three", stars: 4, done: false }]);
    expect(await (await fetch(`${url}/`)).text()).toBe("the app");
  });
});
