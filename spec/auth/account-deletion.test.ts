import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formSignIn, seedUser } from "../../runtime/auth/index.js";
import { openDatabase, SqlUsers, usersTableSql } from "../../runtime/db/index.js";
import { assembleTable, Ok, Route } from "../../runtime/index.js";
import { Mailer, MailboxTransport } from "../../runtime/mail/index.js";
import { freshPostgres } from "../../runtime/testing/fresh-postgres.js";
import { startApp, TestClient, type TestApp } from "../../runtime/testing/index.js";
import { runNode } from "../support/process.js";
import { serve } from "../support/serve.js";
import { postgresBin, startCluster, type PostgresCluster } from "../support/postgres.js";
import { FIXTURES, tspc } from "../support/tspc.js";

// Issue 39, item 19: an account whose rows still name it is not deleted (409), and the page
// says which of the app's own models hold them. The fixture is a timesheet, not a blog: its
// owned models are Task and TimeEntry, in the database (a throwaway PostgreSQL cluster; without
// PostgreSQL on the machine, PGlite), their migration written by the app's own `db new`.
const dir = join(FIXTURES, "account-deletion");
const PASSWORD = "plum orbit velvet 9271";
let cluster: PostgresCluster | undefined;
let app: TestApp;
let scratch: string;
const savedUrl = process.env["DATABASE_URL"];

beforeAll(async () => {
  rmSync(join(dir, "db"), { recursive: true, force: true });
  scratch = mkdtempSync(join(tmpdir(), "fw-account-deletion-"));
  const bin = postgresBin();
  const [built] = await Promise.all([tspc(dir), bin === undefined ? undefined : startCluster(bin).then((c) => (cluster = c))]);
  if (built.code !== 0) throw new Error(`building account-deletion failed:\n${built.output}`);
  const url = cluster?.url ?? `pglite:${join(scratch, "db")}`;
  const made = await runNode(join(dir, "dist/main.js"), ["db", "new", "create tables"], { DATABASE_URL: url, FW_ENV_FILES: "0" }, dir);
  if (made.code !== 0) throw new Error(`db new failed:\n${made.out}${made.err}`);
  // startApp makes a fresh database on the server DATABASE_URL names (or a fresh embedded one).
  if (cluster !== undefined) process.env["DATABASE_URL"] = cluster.url;
  else delete process.env["DATABASE_URL"];
  app = await startApp({ cwd: dir, main: "dist/main.js" });
}, 240_000);

afterAll(async () => {
  await app?.close();
  if (savedUrl === undefined) delete process.env["DATABASE_URL"];
  else process.env["DATABASE_URL"] = savedUrl;
  await cluster?.destroy();
  rmSync(join(dir, "db"), { recursive: true, force: true });
  rmSync(join(dir, ".fw"), { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

async function deleteAccount(client: TestClient) {
  return client.submit("/account", { current: PASSWORD }, { action: "/account/delete" });
}

describe("deleting an account whose rows still name it (issue 39, item 19)", () => {
  it("409 names the app's own models that hold the user's rows, only those; once they are gone the account is deleted", async () => {
    const email = "timekeeper@timesheet.example";
    const worker = app.client();
    expect((await worker.signUp(email, PASSWORD)).location).toBe("/");
    const task = await worker.submit("/tasks/new", { title: "Write the report" });
    expect(task.status, task.summary()).toBe(303);

    const refused = await deleteAccount(worker);
    expect(refused.status).toBe(409);
    expect(refused.refusal().alerts).toContain("Your account cannot be deleted while your tasks name it: delete them first.");
    expect(refused.text).not.toContain("posts");

    const entry = await worker.submit("/time-entries/new", { minutes: "45" });
    expect(entry.status, entry.summary()).toBe(303);
    expect((await deleteAccount(worker)).refusal().alerts).toContain("Your account cannot be deleted while your tasks and time entries name it: delete them first.");

    const taskPath = task.location as string;
    const gone = await worker.submit(`${taskPath}/delete`, {});
    expect(gone.status, gone.summary()).toBe(303);
    expect((await deleteAccount(worker)).refusal().alerts).toContain("Your account cannot be deleted while your time entries name it: delete them first.");

    expect((await worker.submit(`${entry.location as string}/delete`, {})).status).toBe(303);
    const deleted = await deleteAccount(worker);
    expect([deleted.status, deleted.location]).toEqual([303, "/"]);
    await expect(app.client().signIn(email, PASSWORD)).rejects.toThrow(/failed/);
  });
});

describe("rows of a table no owned model has (a foreign key the app wrote by hand)", () => {
  it("409 says other records of the site name the account, for the site's team to remove", async () => {
    const fresh = cluster === undefined ? undefined : await freshPostgres(cluster.url);
    const db = await openDatabase(fresh === undefined ? { directory: join(scratch, "by-hand"), env: {}, durable: false } : { url: fresh.url, log: () => undefined });
    try {
      await db.script(`${usersTableSql()}CREATE TABLE "audit_log" ("user_id" bigint NOT NULL REFERENCES "users" ("id") ON DELETE RESTRICT);\n`);
      const users = new SqlUsers(db);
      const user = await seedUser(users, "audited@timesheet.example", PASSWORD);
      await db.query(`INSERT INTO "audit_log" ("user_id") VALUES ($1)`, [user.id]);
      const mailer = new Mailer({ from: "Timesheet <no-reply@timesheet.example>", transport: new MailboxTransport(join(scratch, "mail")) });
      const auth = formSignIn({ users, mailer });
      const served = await serve({ routes: assembleTable([auth.guarded()], [Route.get("/", () => Ok("home"))]), parts: [mailer], origin: "http://localhost", allowedHosts: ["*"] });
      try {
        const client = new TestClient(served.url);
        await client.signIn("audited@timesheet.example", PASSWORD);
        const refused = await deleteAccount(client);
        expect(refused.status).toBe(409);
        expect(refused.refusal().alerts).toContain("Your account cannot be deleted while other records of this site still name it: ask the site's team to remove them.");
        expect(await users.byId(user.id)).toBeDefined();
      } finally {
        await served.close();
      }
    } finally {
      await db.close();
      await fresh?.drop();
    }
  });
});
