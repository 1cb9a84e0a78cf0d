// Issue 41, item 5: the admin back office, through a fixture app built with tspc
// (spec/fixtures/admin-app: tasks under a policy, tags, users in fw/db's table, the back office
// at /admin for "admin"). Two production processes share one PostgreSQL database (a throwaway
// cluster): what an admin does on one counts at once on the other, sockets included. Every
// write is checked in the database and in the audit log; every attack answers a clear 4xx and
// changes nothing. The example's back office on PGlite is spec/admin/example-admin.test.ts.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "../../runtime/db/index.js";
import { freshPostgres, type FreshDatabase } from "../../runtime/testing/fresh-postgres.js";
import { Browser, freshEmail, PASSWORD, type Answer } from "../auth/client.js";
import { noPostgresNotice, postgresBin, startCluster, type PostgresCluster } from "../support/postgres.js";
import { bootNode, runNode } from "../support/process.js";
import { PRODUCTION_ENV } from "../support/serve.js";
import { FIXTURES, tspc } from "../support/tspc.js";
import { connect } from "../support/ws-client.js";

const dir = join(FIXTURES, "admin-app");
const main = join(dir, "dist/main.js");
const bin = postgresBin();
let cluster: PostgresCluster | undefined;
let database: FreshDatabase | undefined;
let sql: Database | undefined;
const apps: ReturnType<typeof bootNode>[] = [];
let a = "";
let b = "";
let env: Record<string, string> = {};
let address = 0;
/** The back office's admin (granted by `db grant`), signed in on process A. */
let admin: Account;

interface Account {
  readonly email: string;
  readonly id: number;
  readonly onA: Browser;
  readonly onB: Browser;
}

beforeAll(async () => {
  if (bin === undefined) return noPostgresNotice();
  const built = await tspc(dir);
  if (built.code !== 0) throw new Error(`building admin-app failed:\n${built.output}`);
  cluster = await startCluster(bin);
  database = await freshPostgres(cluster.url);
  env = { ...PRODUCTION_ENV, DATABASE_URL: database.url, FW_ENV_FILES: "0" };
  const made = await runNode(main, ["db", "new", "create tables"], env, dir);
  if (made.code !== 0) throw new Error(`db new failed:\n${made.out}${made.err}`);
  const migrated = await runNode(main, ["db", "migrate"], env, dir);
  if (migrated.code !== 0) throw new Error(`db migrate failed:\n${migrated.out}${migrated.err}`);
  for (let i = 0; i < 2; i++) apps.push(bootNode(main, [], env, dir));
  const [first, second] = await Promise.all(apps.map((app) => app.url));
  if (first === undefined || second === undefined) throw new Error("admin-app: two processes were started, fewer answered");
  [a, b] = [first, second];
  sql = await openDatabase({ url: database.url, log: () => undefined });
  admin = await signedUp("ann");
  const granted = await runNode(main, ["db", "grant", "admin", admin.email], env, dir);
  if (granted.code !== 0) throw new Error(`db grant failed:\n${granted.err}`);
}, 240_000);

afterAll(async () => {
  for (const app of apps) app.child.kill("SIGTERM");
  await Promise.all(apps.map((app) => app.exited));
  await sql?.close();
  await database?.drop();
  await cluster?.destroy();
  const { rmSync } = await import("node:fs");
  rmSync(join(dir, "db"), { recursive: true, force: true });
});

/** A signed-up, signed-in browser on process A, and the same cookie on process B. */
async function signedUp(name: string): Promise<Account> {
  const headers = { "x-forwarded-for": `10.4.0.${++address}` };
  const onA = new Browser(a, headers);
  const email = freshEmail(name);
  expect((await onA.signUp(email, PASSWORD)).status).toBe(303);
  const onB = new Browser(b, headers);
  onB.cookie = onA.cookie;
  await onB.get("/");
  const [row] = (await db().query(`SELECT "id" FROM "users" WHERE "email" = $1`, [email])).rows;
  return { email, id: Number(row?.["id"]), onA, onB };
}

function db(): Database {
  return sql as Database;
}

/** A task made through the app's own form by its owner; its key. */
async function taskOf(owner: Account, title: string, fields: Record<string, string> = {}): Promise<number> {
  await owner.onA.get("/tasks/new");
  const made = await owner.onA.post("/tasks", { title, priority: "low", ...fields });
  expect(made.status, made.html.slice(0, 400)).toBe(303);
  return Number(/\/tasks\/(\d+)/.exec(made.location ?? "")?.[1]);
}

async function task(id: number): Promise<Record<string, unknown> | undefined> {
  return (await db().query(`SELECT "title", "done", "priority", "owner_id", "fw_version" FROM "tasks" WHERE "id" = $1`, [id])).rows[0];
}

async function rolesOf(id: number): Promise<string[]> {
  return (await db().query(`SELECT "role" FROM "fw_users_roles" WHERE "user_id" = $1 ORDER BY "role"`, [id])).rows.map((row) => String(row["role"]));
}

interface Logged {
  readonly actor_id: number;
  readonly actor_email: string;
  readonly action: string;
  readonly model: string;
  readonly row_key: string;
  readonly before: Record<string, unknown> | null;
  readonly after: Record<string, unknown> | null;
}

/** The audit log's records, newest first (none before the first admin write made its table). */
async function audit(where = "TRUE", params: unknown[] = []): Promise<Logged[]> {
  const exists = (await db().query(`SELECT to_regclass('fw_audit') IS NOT NULL AS made`)).rows[0]?.["made"] === true;
  if (!exists) return [];
  const { rows } = await db().query(`SELECT "actor_id", "actor_email", "action", "model", "row_key", "before", "after" FROM "fw_audit" WHERE ${where} ORDER BY "id" DESC`, params);
  return rows.map((row) => ({ ...row, before: json(row["before"]), after: json(row["after"]) }) as unknown as Logged);
}

function json(value: unknown): Record<string, unknown> | null {
  return value === null ? null : ((typeof value === "string" ? JSON.parse(value) : value) as Record<string, unknown>);
}

/** The `_version` an edit form carries. */
function versionOf(page: Answer): string {
  return /name="_version" value="(\d+)"/.exec(page.html)?.[1] ?? "";
}

describe.skipIf(bin === undefined)("41.5 The admin back office (a fixture app, two processes on PostgreSQL)", () => {
  it("every page and form of it is a 404 to anyone without the role, signed in or not, whatever its path holds; nothing changes", async () => {
    const bob = await signedUp("probe-bob");
    const id = await taskOf(bob, "Probe me");
    const visitor = new Browser(a, { "x-forwarded-for": "10.4.9.1" });
    const pages = ["/admin", "/admin/tasks", "/admin/tasks?owner=1", "/admin/tasks/new", `/admin/tasks/${id}`, `/admin/tasks/${id}/edit`, `/admin/tasks/${id}/delete`, "/admin/tasks/abc", "/admin/tags", "/admin/users", `/admin/users/${bob.id}`, "/admin/users/x", "/admin/audit", "/admin/audit?model=Nope"];
    const forms: [string, Record<string, string>][] = [
      ["/admin/tasks", { title: "Sneaked in", priority: "high" }],
      [`/admin/tasks/${id}`, { _method: "PUT", title: "Taken over", priority: "high" }],
      [`/admin/tasks/${id}`, { _method: "DELETE" }],
      [`/admin/users/${bob.id}/grant`, { role: "admin" }],
      [`/admin/users/${bob.id}/revoke`, { role: "admin" }],
      [`/admin/users/${admin.id}/lock`, {}],
      [`/admin/users/${bob.id}/unlock`, {}],
      [`/admin/users/${admin.id}/sign-out`, {}],
    ];
    for (const who of [visitor, bob.onA, bob.onB]) {
      for (const page of pages) expect([page, (await who.get(page)).status]).toEqual([page, 404]);
      // A page with a form first, for a CSRF token: the forms are refused for who sends them, not for a missing token.
      await who.get("/login");
      expect(who.token).toBeDefined();
      for (const [path, fields] of forms) expect([path, fields._method ?? "POST", (await who.post(path, fields)).status]).toEqual([path, fields._method ?? "POST", 404]);
    }
    expect(await task(id)).toMatchObject({ title: "Probe me", owner_id: bob.id });
    expect(await rolesOf(bob.id)).toEqual([]);
    expect((await audit(`"row_key" IN ($1, $2)`, [String(id), String(bob.id)])).length).toBe(0);
    expect((await bob.onB.get("/")).html).toBe(`${bob.email} roles: none`);
    expect((await admin.onA.get("/")).html).toBe(`${admin.email} roles: admin`);
  });

  it("an admin lists every user's tasks, filters and searches them, shows, edits and deletes one; each write is in the audit log with who, what and the row before and after", async () => {
    const bob = await signedUp("bob");
    const carl = await signedUp("carl");
    const bobs = await taskOf(bob, "Buy milk", { priority: "high" });
    const carls = await taskOf(carl, "Bake bread");
    // Each owner reads only their own task on the app's pages; the back office reads both.
    expect((await bob.onA.get(`/tasks/${carls}`)).status).toBe(404);
    const list = await admin.onA.get("/admin/tasks");
    expect(list.status).toBe(200);
    expect(list.html).toContain("Buy milk");
    expect(list.html).toContain("Bake bread");
    // The owner shows as their email, a link to their page in the back office.
    expect(list.html).toContain(`<a href="/admin/users/${bob.id}">${bob.email}</a>`);
    const byOwner = await admin.onA.get(`/admin/tasks?owner=${bob.id}`);
    expect(byOwner.html).toContain("Buy milk");
    expect(byOwner.html).not.toContain("Bake bread");
    const high = await admin.onA.get("/admin/tasks?priority=high&done=false");
    expect(high.html).toContain("Buy milk");
    expect(high.html).not.toContain("Bake bread");
    const searched = await admin.onA.get("/admin/tasks?q=bak");
    expect(searched.html).toContain("Bake bread");
    expect(searched.html).not.toContain("Buy milk");
    const shown = await admin.onA.get(`/admin/tasks/${carls}`);
    expect(shown.status).toBe(200);
    expect(shown.html).toContain("Bake bread");
    expect(shown.html).toContain(`href="/admin/tasks/${carls}/edit"`);

    // Edit carl's task through the back office's form (on the other process): the owner stays carl.
    const form = await admin.onB.get(`/admin/tasks/${carls}/edit`);
    expect(form.status).toBe(200);
    admin.onB.token = /name="_csrf" value="([^"]+)"/.exec(form.html)?.[1];
    const updated = await admin.onB.post(`/admin/tasks/${carls}`, { _method: "PUT", _version: versionOf(form), title: "Bake rye bread", done: "true", priority: "high" });
    expect([updated.status, updated.location]).toEqual([303, `/admin/tasks/${carls}`]);
    expect(await task(carls)).toMatchObject({ title: "Bake rye bread", done: true, priority: "high", owner_id: carl.id, fw_version: 2 });
    expect((await carl.onA.get(`/tasks/${carls}`)).html).toContain("Bake rye bread");
    const [edit] = await audit(`"model" = 'Task' AND "row_key" = $1`, [String(carls)]);
    expect(edit).toMatchObject({ actor_id: admin.id, actor_email: admin.email, action: "update", model: "Task" });
    expect(edit?.before).toEqual({ id: carls, owner: carl.id, title: "Bake bread", done: false, priority: "low" });
    expect(edit?.after).toEqual({ id: carls, owner: carl.id, title: "Bake rye bread", done: true, priority: "high" });

    // Delete bob's through its confirmation page.
    const confirm = await admin.onA.get(`/admin/tasks/${bobs}/delete`);
    expect(confirm.html).toContain(`action="/admin/tasks/${bobs}"`);
    const deleted = await admin.onA.post(`/admin/tasks/${bobs}`, { _method: "DELETE" });
    expect([deleted.status, deleted.location]).toEqual([303, "/admin/tasks"]);
    expect(await task(bobs)).toBeUndefined();
    const [gone] = await audit(`"model" = 'Task' AND "row_key" = $1`, [String(bobs)]);
    expect(gone).toMatchObject({ action: "delete", actor_email: admin.email, before: { id: bobs, owner: bob.id, title: "Buy milk", priority: "high", done: false }, after: null });

    // A row made in the back office is its admin's; the record has no "before".
    await admin.onA.get("/admin/tags/new");
    const tagged = await admin.onA.post("/admin/tags", { name: "kitchen" });
    expect(tagged.status).toBe(303);
    const [created] = await audit(`"model" = 'Tag'`);
    expect(created).toMatchObject({ action: "create", before: null, after: { name: "kitchen" } });
  });

  it("attacks on the back office as an admin: a forged key is a 404, a value a filter cannot hold a 400, a form without its CSRF token a 403; nothing changed, nothing logged", async () => {
    const dora = await signedUp("dora");
    const id = await taskOf(dora, "Keep me");
    const before = (await audit()).length;
    expect((await admin.onA.get("/admin/tasks/999999")).status).toBe(404);
    expect((await admin.onA.get("/admin/tasks/999999/edit")).status).toBe(404);
    expect((await admin.onA.get("/admin/tasks/abc")).status).toBe(400);
    await admin.onA.get("/admin/tasks");
    expect((await admin.onA.post("/admin/tasks/999999", { _method: "PUT", title: "x", priority: "low" })).status).toBe(404);
    expect((await admin.onA.post("/admin/tasks/999999", { _method: "DELETE" })).status).toBe(404);
    expect((await admin.onA.post("/admin/users/999999/lock", {})).status).toBe(404);
    for (const query of ["priority=urgent", "done=maybe", "owner=abc", "owner=0", "tag=-1", "sort=password", "page=0"]) {
      const refused = await admin.onA.get(`/admin/tasks?${query}`);
      expect([query, refused.status]).toEqual([query, 400]);
    }
    expect((await admin.onA.get("/admin/tasks?priority=urgent")).html).toContain("filtered by priority with one of low, high");
    expect((await admin.onA.get("/admin/audit?model=Password")).status).toBe(400);
    const noToken = new Browser(a, { "x-forwarded-for": "10.4.9.2" });
    noToken.cookie = admin.onA.cookie;
    expect((await noToken.post(`/admin/tasks/${id}`, { _method: "DELETE" })).status).toBe(403);
    expect((await noToken.post(`/admin/tasks/${id}`, { _method: "DELETE", _csrf: "forged" })).status).toBe(403);
    expect((await noToken.post(`/admin/users/${dora.id}/lock`, {})).status).toBe(403);
    // A validation error re-shows the form (422): nothing is written.
    const form = await admin.onA.get(`/admin/tasks/${id}/edit`);
    const invalid = await admin.onA.post(`/admin/tasks/${id}`, { _method: "PUT", _version: versionOf(form), title: "", priority: "low" });
    expect(invalid.status).toBe(422);
    expect(await task(id)).toMatchObject({ title: "Keep me", fw_version: 1 });
    expect((await db().query(`SELECT count(*) AS n FROM "fw_users_locks" WHERE "user_id" = $1`, [dora.id])).rows[0]?.["n"]).toBe(0);
    expect((await audit()).length).toBe(before);
  });

  it("users: searched by email and role; roles granted and revoked from the app's roles alone (another name is a 400); at once on the other process", async () => {
    const erin = await signedUp("erin-search");
    const found = await admin.onA.get(`/admin/users?q=${encodeURIComponent("erin-search")}`);
    expect(found.html).toContain(`<a href="/admin/users/${erin.id}">${erin.email}</a>`);
    expect(found.html).not.toContain(admin.email);
    expect((await admin.onA.get("/admin/users?role=admin")).html).toContain(admin.email);
    expect((await admin.onA.get("/admin/users?role=root")).status).toBe(400);
    const page = await admin.onA.get(`/admin/users/${erin.id}`);
    for (const role of ["admin", "editor", "support"]) expect(page.html).toContain(`Grant ${role}`);
    const granted = await admin.onA.post(`/admin/users/${erin.id}/grant`, { role: "editor" });
    expect([granted.status, granted.location]).toEqual([303, `/admin/users/${erin.id}`]);
    expect(await rolesOf(erin.id)).toEqual(["editor"]);
    expect((await erin.onB.get("/")).html).toBe(`${erin.email} roles: editor`);
    const [grant] = await audit(`"model" = 'User' AND "row_key" = $1`, [String(erin.id)]);
    expect(grant).toMatchObject({ action: "grant", actor_email: admin.email, before: { email: erin.email, roles: [], locked: false }, after: { email: erin.email, roles: ["editor"], locked: false } });
    for (const role of ["superuser", "Admin", "admin ", ""]) {
      expect([role, (await admin.onA.post(`/admin/users/${erin.id}/grant`, { role })).status]).toEqual([role, 400]);
    }
    expect((await admin.onA.post(`/admin/users/${erin.id}/grant`, {})).status).toBe(400);
    expect((await admin.onA.post(`/admin/users/${erin.id}/grant`, { role: "superuser" })).html).toContain("not one of this app&#39;s roles: admin, editor, support");
    expect(await rolesOf(erin.id)).toEqual(["editor"]);
    const revoked = await admin.onB.post(`/admin/users/${erin.id}/revoke`, { role: "editor" });
    expect(revoked.status).toBe(303);
    expect(await rolesOf(erin.id)).toEqual([]);
    expect((await erin.onA.get("/")).html).toBe(`${erin.email} roles: none`);
    // Already so: nothing written, nothing logged.
    const records = (await audit()).length;
    expect((await admin.onA.post(`/admin/users/${erin.id}/revoke`, { role: "editor" })).status).toBe(303);
    expect((await audit()).length).toBe(records);
  });

  it("lock: the locked user's open session is refused at its next request on the other process, their socket there closes, and they cannot sign in (403); unlocked, they may; sign out everywhere ends every session", async () => {
    const fay = await signedUp("fay");
    const socket = await connect(b, "/live/socket", { headers: { cookie: fay.onB.cookie as string } });
    socket.socket.send("hello");
    expect(await socket.next()).toBe(`${fay.id}: hello`);
    expect((await fay.onB.get("/tasks")).status).toBe(200);
    const locked = await admin.onA.post(`/admin/users/${fay.id}/lock`, {});
    expect([locked.status, locked.location]).toEqual([303, `/admin/users/${fay.id}`]);
    expect((await fay.onB.get("/")).html).toBe("nobody");
    expect((await fay.onB.get("/tasks")).status).toBe(303);
    expect(await socket.closed).toEqual({ code: 1008, reason: "signed out" });
    const again = new Browser(b, { "x-forwarded-for": "10.4.9.3" });
    await again.get("/login");
    const refused = await again.post("/login", { email: fay.email, password: PASSWORD });
    expect(refused.status).toBe(403);
    expect(refused.html).toContain("This account is locked");
    expect((await admin.onA.get(`/admin/users/${fay.id}`)).html).toContain("Locked: it cannot sign in");
    const [lock] = await audit(`"model" = 'User' AND "row_key" = $1`, [String(fay.id)]);
    expect(lock).toMatchObject({ action: "lock", before: { locked: false }, after: { locked: true } });
    expect(JSON.stringify(lock)).not.toMatch(/scrypt|password|epoch/i);
    expect((await admin.onB.post(`/admin/users/${fay.id}/unlock`, {})).status).toBe(303);
    await again.get("/login");
    expect((await again.post("/login", { email: fay.email, password: PASSWORD })).status).toBe(303);

    const gus = await signedUp("gus");
    expect((await gus.onB.get("/")).html).toBe(`${gus.email} roles: none`);
    expect((await admin.onB.post(`/admin/users/${gus.id}/sign-out`, {})).status).toBe(303);
    expect((await gus.onA.get("/")).html).toBe("nobody");
    expect((await gus.onB.get("/")).html).toBe("nobody");
    const [signOut] = await audit(`"model" = 'User' AND "row_key" = $1`, [String(gus.id)]);
    expect(signOut).toMatchObject({ action: "sign-out", actor_email: admin.email });
  });

  it("the last admin who can sign in cannot revoke their own role nor lock themself (409, nothing changed); with another admin, an admin may give the role up, and the back office is a 404 to them at once", async () => {
    expect((await db().query(`SELECT count(*) AS n FROM "fw_users_roles" WHERE "role" = 'admin'`)).rows[0]?.["n"]).toBe(1);
    const records = (await audit()).length;
    const demoted = await admin.onA.post(`/admin/users/${admin.id}/revoke`, { role: "admin" });
    expect(demoted.status).toBe(409);
    expect(demoted.html).toContain("You are the last user holding admin who can sign in");
    const locked = await admin.onA.post(`/admin/users/${admin.id}/lock`, {});
    expect(locked.status).toBe(409);
    expect(locked.html).toContain("You cannot lock your own account");
    expect(await rolesOf(admin.id)).toEqual(["admin"]);
    expect((await audit()).length).toBe(records);

    const hal = await signedUp("hal");
    expect((await admin.onA.post(`/admin/users/${hal.id}/grant`, { role: "admin" })).status).toBe(303);
    expect((await hal.onB.get("/admin")).status).toBe(200);
    // Hal locked: the admin is again the last one who can sign in.
    expect((await admin.onA.post(`/admin/users/${hal.id}/lock`, {})).status).toBe(303);
    expect((await admin.onA.post(`/admin/users/${admin.id}/revoke`, { role: "admin" })).status).toBe(409);
    expect((await admin.onA.post(`/admin/users/${hal.id}/unlock`, {})).status).toBe(303);
    await hal.onB.signIn(hal.email, PASSWORD);
    const given = await admin.onA.post(`/admin/users/${admin.id}/revoke`, { role: "admin" });
    expect(given.status).toBe(303);
    expect((await admin.onA.get("/admin")).status).toBe(404);
    expect((await admin.onB.get("/admin/users")).status).toBe(404);
    // Hal gives it back, so the other tests keep their admin.
    await hal.onB.get("/admin/users");
    expect((await hal.onB.post(`/admin/users/${admin.id}/grant`, { role: "admin" })).status).toBe(303);
    expect((await admin.onA.get("/admin")).status).toBe(200);
  });

  it("the audit log page: newest first, by model and by admin, linking to the row and the admin; never a password hash", async () => {
    const page = await admin.onA.get("/admin/audit");
    expect(page.status).toBe(200);
    const rows = [...page.html.matchAll(/<tr class="fw-audit-([a-z-]+)">/g)].map((m) => m[1]);
    expect(rows.length).toBeGreaterThan(5);
    const newest = (await audit())[0];
    expect(rows[0]).toBe(newest?.action);
    expect(page.html).toContain(`<a href="/admin/users/${admin.id}">${admin.email}</a>`);
    expect(page.html).not.toMatch(/scrypt|password_?hash|session_?epoch/i);
    const tasks = await admin.onA.get("/admin/audit?model=Task");
    expect([...tasks.html.matchAll(/<tr class="fw-audit-/g)].length).toBe((await audit(`"model" = 'Task'`)).length);
    expect(tasks.html).not.toContain("<td>grant</td>");
    const mine = await admin.onA.get(`/admin/audit?actor=${admin.id}`);
    expect([...mine.html.matchAll(/<tr class="fw-audit-/g)].length).toBe(Math.min(50, (await audit(`"actor_id" = $1`, [admin.id])).length));
    expect((await admin.onA.get("/admin/audit?actor=abc")).status).toBe(400);
  });
});
