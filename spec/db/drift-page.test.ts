import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
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
});
