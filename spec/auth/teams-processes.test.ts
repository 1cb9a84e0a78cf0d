// Issue 41, item 4: teams across processes. Two production processes of spec/fixtures/teams-app
// share one throwaway PostgreSQL database, and mail goes through a real SMTP server: an
// invitation sent by one process is accepted on the other; a removed member or a changed role
// counts at once on the other process (pages, and the member's open socket there closes); an
// expired invitation is refused.
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshPostgres, type FreshDatabase } from "../../runtime/testing/fresh-postgres.js";
import { noPostgresNotice, postgresBin, startCluster, type PostgresCluster } from "../support/postgres.js";
import { bootNode, runNode } from "../support/process.js";
import { PRODUCTION_ENV } from "../support/serve.js";
import { smtpServer, type TestSmtpServer } from "../support/smtp-server.js";
import { FIXTURES, tspc } from "../support/tspc.js";
import { connect } from "../support/ws-client.js";
import { Browser, freshEmail, PASSWORD } from "./client.js";

const dir = join(FIXTURES, "teams-app");
const main = join(dir, "dist/main.js");
const bin = postgresBin();
let cluster: PostgresCluster | undefined;
let database: FreshDatabase | undefined;
let smtp: TestSmtpServer | undefined;
const apps: ReturnType<typeof bootNode>[] = [];
let a = "";
let b = "";
let address = 0;

beforeAll(async () => {
  if (bin === undefined) return noPostgresNotice();
  const built = await tspc(dir);
  if (built.code !== 0) throw new Error(`building teams-app failed:\n${built.output}`);
  cluster = await startCluster(bin);
  database = await freshPostgres(cluster.url);
  smtp = await smtpServer();
  // Production, mail through SMTP (no FW_MAILBOX): what a deployed app does.
  const { FW_MAILBOX: _mailbox, ...production } = PRODUCTION_ENV;
  const env = { ...production, DATABASE_URL: database.url, SMTP_URL: smtp.url, FW_ENV_FILES: "0" };
  for (const step of [["db", "new", "create tables"], ["db", "migrate"]]) {
    const ran = await runNode(main, step, env, dir);
    if (ran.code !== 0) throw new Error(`${step.join(" ")} failed:\n${ran.out}${ran.err}`);
  }
  for (let i = 0; i < 2; i++) apps.push(bootNode(main, [], env, dir));
  const [first, second] = await Promise.all(apps.map((app) => app.url));
  if (first === undefined || second === undefined) throw new Error("teams-app: two processes were started, fewer answered");
  [a, b] = [first, second];
}, 240_000);

afterAll(async () => {
  for (const app of apps) app.child.kill("SIGTERM");
  await Promise.all(apps.map((app) => app.exited));
  await smtp?.close();
  await database?.drop();
  await cluster?.destroy();
  const { rmSync } = await import("node:fs");
  rmSync(join(dir, "db"), { recursive: true, force: true });
});

/** A signed-up, signed-in browser on process A, and the same cookie on process B (sign-up confirms through the SMTP server's mail). */
async function person(name: string): Promise<{ email: string; onA: Browser; onB: Browser }> {
  const headers = { "x-forwarded-for": `10.4.0.${++address}` };
  const onA = new Browser(a, headers);
  const email = freshEmail(name);
  await onA.get("/signup");
  expect((await onA.post("/signup", { email, password: PASSWORD })).status).toBe(303);
  await onA.get(await mailedPath(email, "/confirm?token="));
  await onA.get("/confirm");
  expect((await onA.post("/confirm", {})).status).toBe(303);
  await onA.get("/teams");
  const onB = new Browser(b, headers);
  onB.cookie = onA.cookie;
  return { email, onA, onB };
}

/** The path of the link (`/confirm?token=`, `/teams/join?token=`) in the newest mail the SMTP server took for `to`. */
async function mailedPath(to: string, starts: string): Promise<string> {
  const until = Date.now() + 10_000;
  for (;;) {
    const raws = (smtp as TestSmtpServer).received.filter((mail) => mail.to.includes(to)).map((mail) => mail.raw.replace(/=\r?\n/g, "").replace(/=3D/g, "="));
    const found = raws.reverse().map((raw) => new RegExp(`https?://[^/"\\s]+(${starts.replace(/[?]/g, "\\?")}[A-Za-z0-9._-]+)`).exec(raw)?.[1]).find((path) => path !== undefined);
    if (found !== undefined) return found;
    if (Date.now() > until) throw new Error(`no mail with ${starts} reached ${to}`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

async function team(owner: Browser, name: string): Promise<string> {
  await owner.get("/teams");
  const made = await owner.post("/teams", { name });
  expect(made.status).toBe(303);
  return made.location as string;
}

async function invite(owner: Browser, at: string, email: string, role = "member"): Promise<string> {
  await owner.get(at);
  expect((await owner.post(`${at}/invitations`, { email, role })).status).toBe(303);
  return mailedPath(email, "/teams/join?token=");
}

async function accept(browser: Browser, link: string): Promise<void> {
  expect((await browser.get(link)).status).toBe(303);
  expect((await browser.get("/teams/join")).status).toBe(200);
  expect((await browser.post("/teams/join", {})).status).toBe(303);
}

function memberKey(html: string, email: string): string {
  for (const match of html.matchAll(/<tr id="member-(\d+)"><td>([^<]+)<\/td>/g)) if (match[2] === email) return match[1] as string;
  throw new Error(`no row for ${email}`);
}

describe.skipIf(bin === undefined)("41.4 Teams on two processes (PostgreSQL, mail through SMTP)", () => {
  it("an invitation mailed by one process is accepted on the other; the drafts are shared at once", async () => {
    const ann = await person("ann");
    const bob = await person("bob");
    const at = await team(ann.onA, "Wire");
    await accept(bob.onB, await invite(ann.onA, at, bob.email));
    expect((await bob.onA.get("/")).html).toBe(`${bob.email} in Wire as member`);
    await ann.onA.get("/drafts/new");
    expect((await ann.onA.post("/drafts", { title: "shared scoop" })).status).toBe(303);
    expect((await bob.onB.get("/pages/titles")).html).toBe("shared scoop");
  });

  it("a removed member loses access at once on the other process: the team's page and drafts, and their socket there closes", async () => {
    const ann = await person("chief");
    const bob = await person("reporter");
    const at = await team(ann.onA, "Metro");
    await accept(bob.onA, await invite(ann.onA, at, bob.email));
    await ann.onA.get("/drafts/new");
    await ann.onA.post("/drafts", { title: "metro draft" });
    expect((await bob.onB.get("/pages/titles")).html).toBe("metro draft");
    const live = await connect(b, "/live/socket", { headers: { cookie: bob.onB.cookie as string } });
    live.socket.send("hello");
    expect(await live.next()).toBe("echo hello");
    const page = await ann.onA.get(at);
    expect((await ann.onA.post(`${at}/members/${memberKey(page.html, bob.email)}/delete`, {})).status).toBe(303);
    expect(await live.closed).toEqual({ code: 1008, reason: "what you may reach changed" });
    expect((await bob.onB.get(at)).status).toBe(404);
    expect((await bob.onB.get("/pages/titles")).html).toBe("");
    expect((await bob.onB.get("/")).html).toBe(`${bob.email} in no team`);
  });

  it("a changed role counts at once on the other process: an admin demoted to member can no longer delete", async () => {
    const ann = await person("editor-in-chief");
    const bob = await person("deputy");
    const at = await team(ann.onA, "Desk B");
    await accept(bob.onA, await invite(ann.onA, at, bob.email, "admin"));
    await ann.onA.get("/drafts/new");
    const made = await ann.onA.post("/drafts", { title: "to delete" });
    const draft = made.location as string;
    const page = await ann.onA.get(at);
    expect((await ann.onA.post(`${at}/members/${memberKey(page.html, bob.email)}`, { role: "member" })).status).toBe(303);
    await bob.onB.get(draft);
    expect((await bob.onB.post(draft, { _method: "DELETE" })).status).toBe(403);
    expect((await ann.onB.get(draft)).status).toBe(200);
  });

  it("an expired invitation is refused (410) and joins nobody", async () => {
    const ann = await person("late-host");
    const bob = await person("late-guest");
    const at = await team(ann.onA, "Late");
    const link = await invite(ann.onA, at, bob.email);
    const client = new pg.Client({ connectionString: (database as FreshDatabase).url });
    await client.connect();
    try {
      await client.query(`UPDATE fw_team_invitations SET expires_ms = 1 WHERE email = $1`, [bob.email]);
    } finally {
      await client.end();
    }
    expect((await bob.onB.get(link)).status).toBe(303);
    const page = await bob.onB.get("/teams/join");
    expect(page.status).toBe(410);
    expect(page.html).toContain("expired");
    expect((await bob.onB.get(at)).status).toBe(404);
  });
});
