// Issue 41, item 1: roles. The fixture (spec/fixtures/roles-app) keeps its users in fw/db's
// table and guards /admin, a form that takes a role away, and a socket with auth.role("admin").
// Two production processes of the app share one PostgreSQL database (a throwaway cluster): a
// role granted or revoked (by `db grant`/`db revoke`, or through the app) counts at once in
// both, and an admin's socket on the other process closes when their roles change.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshPostgres, type FreshDatabase } from "../../runtime/testing/fresh-postgres.js";
import { noPostgresNotice, postgresBin, startCluster, type PostgresCluster } from "../support/postgres.js";
import { bootNode, runNode } from "../support/process.js";
import { PRODUCTION_ENV } from "../support/serve.js";
import { FIXTURES, tspc } from "../support/tspc.js";
import { connect } from "../support/ws-client.js";
import { Browser, freshEmail, PASSWORD } from "./client.js";

const dir = join(FIXTURES, "roles-app");
const main = join(dir, "dist/main.js");
const bin = postgresBin();
let cluster: PostgresCluster | undefined;
let database: FreshDatabase | undefined;
const apps: ReturnType<typeof bootNode>[] = [];
let a = "";
let b = "";
let env: Record<string, string> = {};
let address = 0;

beforeAll(async () => {
  if (bin === undefined) return noPostgresNotice();
  const built = await tspc(dir);
  if (built.code !== 0) throw new Error(`building roles-app failed:\n${built.output}`);
  cluster = await startCluster(bin);
  database = await freshPostgres(cluster.url);
  env = { ...PRODUCTION_ENV, DATABASE_URL: database.url, FW_ENV_FILES: "0" };
  const made = await runNode(main, ["db", "new", "create tables"], env, dir);
  if (made.code !== 0) throw new Error(`db new failed:\n${made.out}${made.err}`);
  const migrated = await runNode(main, ["db", "migrate"], env, dir);
  if (migrated.code !== 0) throw new Error(`db migrate failed:\n${migrated.out}${migrated.err}`);
  for (let i = 0; i < 2; i++) apps.push(bootNode(main, [], env, dir));
  const [first, second] = await Promise.all(apps.map((app) => app.url));
  if (first === undefined || second === undefined) throw new Error("roles-app: two processes were started, fewer answered");
  [a, b] = [first, second];
}, 240_000);

afterAll(async () => {
  for (const app of apps) app.child.kill("SIGTERM");
  await Promise.all(apps.map((app) => app.exited));
  await database?.drop();
  await cluster?.destroy();
  const { rmSync } = await import("node:fs");
  rmSync(join(dir, "db"), { recursive: true, force: true });
});

/** A signed-up, signed-in browser on process A, and the same cookie on process B. */
async function signedUp(name: string): Promise<{ email: string; onA: Browser; onB: Browser }> {
  const headers = { "x-forwarded-for": `10.2.0.${++address}` };
  const onA = new Browser(a, headers);
  const email = freshEmail(name);
  expect((await onA.signUp(email, PASSWORD)).status).toBe(303);
  const onB = new Browser(b, headers);
  onB.cookie = onA.cookie;
  return { email, onA, onB };
}

async function db(...args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return runNode(main, ["db", ...args], env, dir);
}

describe.skipIf(bin === undefined)("41.1 Roles: a guard per role, db grant and revoke, at once in every process", () => {
  it("a role guard answers 404 to anyone without the role, signed in or not; db grant gives it, on both processes at once; db roles lists it", async () => {
    const ann = await signedUp("ann");
    expect((await new Browser(a).get("/admin")).status).toBe(404);
    expect((await ann.onA.get("/admin")).status).toBe(404);
    const granted = await db("grant", "admin", ann.email.toUpperCase());
    expect(granted.code, granted.err).toBe(0);
    expect(granted.out).toContain(`${ann.email} holds admin: admin`);
    expect((await ann.onA.get("/admin")).html).toMatch(/^admin area for \d+$/);
    expect((await ann.onB.get("/admin")).html).toMatch(/^admin area for \d+$/);
    expect((await ann.onB.get("/")).html).toBe(`${ann.email} roles: admin`);
    expect((await db("roles", ann.email)).out).toContain(`${ann.email}: admin`);
    const revoked = await db("revoke", "admin", ann.email);
    expect(revoked.code).toBe(0);
    expect((await ann.onA.get("/admin")).status).toBe(404);
    expect((await ann.onB.get("/admin")).status).toBe(404);
  });

  it("db grant refuses an unknown email and a name that is no role, changing nothing", async () => {
    const unknown = await db("grant", "admin", "nobody@roles.example");
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain('there is no user with the email "nobody@roles.example"');
    const ann = await signedUp("names");
    const bad = await db("grant", "ad min", ann.email);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/"ad min" is no role name/);
    expect((await db("roles", ann.email)).out).toContain("no roles");
    expect((await db("grant", "admin")).code).toBe(2);
  });

  it("a role sent in a form field grants nothing: sign-up takes the email and the password alone", async () => {
    const browser = new Browser(a, { "x-forwarded-for": "10.2.1.1" });
    const email = freshEmail("sneaky");
    await browser.get("/signup");
    expect((await browser.post("/signup", { email, password: PASSWORD, roles: "admin", "roles[]": "admin" })).status).toBe(303);
    await browser.signIn(email, PASSWORD);
    expect((await browser.get("/")).html).toBe(`${email} roles: none`);
    expect((await browser.get("/admin")).status).toBe(404);
  });

  it("an admin's socket: refused without the role; open with it; closed on the other process when another admin takes the role away through the app", async () => {
    const ann = await signedUp("socket-ann");
    const bob = await signedUp("socket-bob");
    const noRole = await connect(b, "/admin/live/socket", { headers: { cookie: ann.onB.cookie as string } });
    expect((await noRole.closed).code).toBe(1008);
    expect((await db("grant", "admin", ann.email)).code).toBe(0);
    expect((await db("grant", "admin", bob.email)).code).toBe(0);
    const live = await connect(b, "/admin/live/socket", { headers: { cookie: ann.onB.cookie as string } });
    live.socket.send("hello");
    expect(await live.next()).toMatch(/^admin \d+: hello$/);
    await bob.onA.get("/admin");
    await bob.onA.get("/login");
    const taken = await bob.onA.post("/admin/revoke", { email: ann.email });
    expect(taken.html).toBe(`${ann.email} roles: none`);
    expect(await live.closed).toEqual({ code: 1008, reason: "what you may reach changed" });
    expect((await ann.onB.get("/admin")).status).toBe(404);
    expect((await bob.onB.get("/admin")).status).toBe(200);
  });
});
