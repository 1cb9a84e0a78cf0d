// Issue 41, item 5: the back office's teams, through spec/fixtures/admin-teams-app (the teams-app
// fixture, formSignIn({ …, teams: true }) and a newsroom's drafts per team, with a back office at
// /admin over the drafts). Served by fw/testing's startApp (dev: PGlite, mail into the test's
// mailbox; dev's boot seeds admin@teams.example with the admin role). Each change is read back
// from the member's own next request and from the back office's audit log.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type TestApp, type TestClient } from "../../runtime/testing/index.js";
import { runNode } from "../support/process.js";
import { FIXTURES, tspc } from "../support/tspc.js";

const dir = join(FIXTURES, "admin-teams-app");
const PASSWORD = "plum orbit velvet 9271";
let app: TestApp;
let admin: TestClient;
let counter = 0;

beforeAll(async () => {
  rmSync(join(dir, "db"), { recursive: true, force: true });
  const built = await tspc(dir);
  if (built.code !== 0) throw new Error(`building admin-teams-app failed:\n${built.output}`);
  // The migration, as a developer makes it (db new), on a scratch database; dev applies it at boot.
  const scratch = mkdtempSync(join(tmpdir(), "fw-admin-teams-db-"));
  try {
    const made = await runNode(join(dir, "dist/main.js"), ["db", "new", "create tables"], { DATABASE_URL: `pglite:${join(scratch, "db")}`, FW_ENV_FILES: "0" }, dir);
    if (made.code !== 0) throw new Error(`db new failed:\n${made.out}${made.err}`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const saved = process.env["DATABASE_URL"];
  delete process.env["DATABASE_URL"];
  try {
    app = await startApp({ cwd: dir, main: "dist/main.js" });
  } finally {
    if (saved !== undefined) process.env["DATABASE_URL"] = saved;
  }
  admin = app.client();
  await admin.signIn("admin@teams.example", PASSWORD);
}, 240_000);

afterAll(async () => {
  await app?.close();
  rmSync(join(dir, "db"), { recursive: true, force: true });
});

async function person(name: string): Promise<{ readonly client: TestClient; readonly email: string; readonly id: number }> {
  const client = app.client();
  const email = `${name}-${process.pid}-${++counter}@teams.example`;
  expect((await client.signUp(email, PASSWORD)).status).toBe(303);
  const found = await admin.get(`/admin/users?q=${encodeURIComponent(email)}`);
  const id = Number(/href="\/admin\/users\/(\d+)"/.exec(found.text)?.[1]);
  expect(id).toBeGreaterThan(0);
  return { client, email, id };
}

/** `owner` makes a team named `name` and invites `member`, who joins; the team's key. */
async function teamOf(owner: TestClient, name: string, member: { readonly client: TestClient; readonly email: string }): Promise<number> {
  const made = await owner.submit("/teams", { name });
  expect(made.status, made.summary()).toBe(303);
  const at = made.location as string;
  expect((await owner.submit(at, { email: member.email, role: "member" }, { action: `${at}/invitations` })).status).toBe(303);
  const mail = await app.mail({ to: member.email, subject: `Join ${name}` });
  const link = new URL(mail.links.find((href) => href.includes("/teams/join?token=")) as string);
  expect((await member.client.get(`${link.pathname}${link.search}`)).status).toBe(303);
  const joined = await member.client.submit("/teams/join", {});
  expect(joined.status, joined.summary()).toBe(303);
  return Number(/(\d+)$/.exec(at)?.[1]);
}

/** The audit log's entries of a team, newest first: what was done, and the membership before and after. */
async function history(team: number): Promise<{ action: string; before: unknown; after: unknown }[]> {
  const page = await admin.get(`/admin/audit?model=Team&key=${team}`);
  expect(page.status).toBe(200);
  return page.text
    .split('<tr class="fw-audit-')
    .slice(1)
    .map((row) => {
      const cells = [...row.matchAll(/<td>([\s\S]*?)<\/td>/g)].map((m) => m[1] as string);
      const parsed = (cell: string | undefined): unknown => {
        const json = /<pre class="fw-audit-json">([\s\S]*?)<\/pre>/.exec(cell ?? "")?.[1];
        return json === undefined ? undefined : JSON.parse(json.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&"));
      };
      return { action: cells[2] as string, before: parsed(cells[4]), after: parsed(cells[5]) };
    });
}

function csrfOf(html: string): string {
  return /name="_csrf" value="([^"]+)"/.exec(html)?.[1] as string;
}

describe("41.5 The back office's teams (PGlite)", () => {
  it("an admin finds a team by name, sees its members, changes a member's role and removes a member: each counts at the member's next request and is in the audit log; the last owner stays", async () => {
    const ann = await person("ann");
    const bob = await person("bob");
    const team = await teamOf(ann.client, "Night desk", bob);
    expect((await bob.client.get("/")).text).toBe(`${bob.email} in Night desk as member`);
    // Every team's drafts, the admin being in none of them.
    expect((await bob.client.submit("/drafts/new", { title: "Storm tonight" })).status).toBe(303);
    expect((await admin.get("/admin/drafts")).text).toContain("Storm tonight");

    const found = await admin.get("/admin/teams?q=NIGHT");
    expect(found.status).toBe(200);
    expect(found.text).toContain(`<a href="/admin/teams/${team}">Night desk</a>`);
    expect((await admin.get("/admin/teams?q=no-such-team")).text).toContain("No team matches");
    const page = await admin.get(`/admin/teams/${team}`);
    expect(page.text).toContain(ann.email);
    expect(page.text).toContain(`href="/admin/users/${bob.id}"`);

    const role = `/admin/teams/${team}/members/${bob.id}/role`;
    const made = await admin.submit(`/admin/teams/${team}`, { role: "admin" }, { action: role });
    expect(made.status, made.summary()).toBe(303);
    expect((await bob.client.get("/")).text).toBe(`${bob.email} in Night desk as admin`);
    // The last owner keeps the team: demoting or removing them is a 409, nothing changed.
    const demoted = await admin.submit(`/admin/teams/${team}`, { role: "member" }, { action: `/admin/teams/${team}/members/${ann.id}/role` });
    expect(demoted.status).toBe(409);
    expect(demoted.text).toContain("last owner");
    expect((await admin.post(`/admin/teams/${team}/members/${ann.id}/remove`, { _csrf: csrfOf(page.text) })).status).toBe(409);
    expect((await ann.client.get("/")).text).toBe(`${ann.email} in Night desk as owner`);

    const removed = await admin.submit(`/admin/teams/${team}`, {}, { action: `/admin/teams/${team}/members/${bob.id}/remove` });
    expect(removed.status, removed.summary()).toBe(303);
    expect((await bob.client.get("/")).text).toBe(`${bob.email} in no team`);
    expect((await bob.client.get(`/teams/${team}`)).status).toBe(404);

    const entries = await history(team);
    expect(entries.map((entry) => entry.action)).toEqual(["member-remove", "member-role"]);
    expect(entries[1]).toMatchObject({ before: { team, name: "Night desk", user: bob.id, email: bob.email, role: "member" }, after: { user: bob.id, role: "admin" } });
    expect(entries[0]).toMatchObject({ before: { user: bob.id, role: "admin" }, after: undefined });
  });

  it("bad input is a clear 4xx and changes nothing: a role that is no member role, a user who is not a member, a forged team, no CSRF token", async () => {
    const cat = await person("cat");
    const dan = await person("dan");
    const outsider = await person("outsider");
    const team = await teamOf(cat.client, "Copy desk", dan);
    const csrf = csrfOf((await admin.get(`/admin/teams/${team}`)).text);
    expect((await admin.post(`/admin/teams/${team}/members/${dan.id}/role`, { _csrf: csrf, role: "boss" })).status).toBe(400);
    expect((await admin.post(`/admin/teams/${team}/members/${dan.id}/role`, { _csrf: csrf })).status).toBe(400);
    expect((await admin.post(`/admin/teams/${team}/members/${outsider.id}/remove`, { _csrf: csrf })).status).toBe(404);
    expect((await admin.post(`/admin/teams/999999/members/${dan.id}/remove`, { _csrf: csrf })).status).toBe(404);
    // A key that is no number: the admin's 400 (anyone else's 404, below).
    expect((await admin.post(`/admin/teams/abc/members/${dan.id}/remove`, { _csrf: csrf })).status).toBe(400);
    expect((await admin.post(`/admin/teams/${team}/members/${dan.id}/remove`, {})).status).toBe(403);
    expect((await dan.client.get("/")).text).toBe(`${dan.email} in Copy desk as member`);
    expect(await history(team)).toEqual([]);
  });

  it("nobody without the admin role reaches the teams' pages or forms, a team's owner included: a 404", async () => {
    const eve = await person("eve");
    const fay = await person("fay");
    const team = await teamOf(eve.client, "Photo desk", fay);
    for (const who of [app.client(), eve.client, fay.client]) {
      const csrf = csrfOf((await who.get("/login")).text);
      for (const path of ["/admin/teams", `/admin/teams/${team}`, "/admin/teams/abc"]) expect([path, (await who.get(path)).status]).toEqual([path, 404]);
      expect((await who.post(`/admin/teams/${team}/members/${fay.id}/role`, { _csrf: csrf, role: "owner" })).status).toBe(404);
      expect((await who.post(`/admin/teams/${team}/members/${fay.id}/remove`, { _csrf: csrf })).status).toBe(404);
    }
    expect((await fay.client.get("/")).text).toBe(`${fay.email} in Photo desk as member`);
  });
});
