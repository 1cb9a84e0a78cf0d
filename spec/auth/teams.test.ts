// Issue 41, item 4: teams. spec/fixtures/teams-app turns them on (formSignIn({ …, teams: true }))
// and keeps a newsroom's drafts per team (Draft: `team: Id<Team>`, members read and write, the
// author and the team's admins edit, the team's admins delete, the site's admins read all).
// Served by fw/testing's startApp (dev: PGlite, mail into the test's mailbox); the same flows on
// two production processes sharing a throwaway PostgreSQL, mail through a real SMTP server, are
// in teams-processes.test.ts.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type TestApp, type TestClient } from "../../runtime/testing/index.js";
import { runNode } from "../support/process.js";
import { FIXTURES, tspc } from "../support/tspc.js";

const dir = join(FIXTURES, "teams-app");
const PASSWORD = "plum orbit velvet 9271";
let app: TestApp;
let counter = 0;

beforeAll(async () => {
  rmSync(join(dir, "db"), { recursive: true, force: true });
  const built = await tspc(dir);
  if (built.code !== 0) throw new Error(`building teams-app failed:\n${built.output}`);
  // The migration, as a developer makes it (db new), on a scratch database; dev applies it at boot.
  const scratch = mkdtempSync(join(tmpdir(), "fw-teams-db-"));
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
}, 240_000);

afterAll(async () => {
  await app?.close();
  rmSync(join(dir, "db"), { recursive: true, force: true });
});

/** A new account, signed in (its email confirmed through the mailbox). */
async function person(name: string): Promise<{ readonly client: TestClient; readonly email: string }> {
  const client = app.client();
  const email = `${name}-${process.pid}-${++counter}@teams.example`;
  expect((await client.signUp(email, PASSWORD)).status).toBe(303);
  return { client, email };
}

/** Makes a team as `client`; its page's path. */
async function team(client: TestClient, name: string): Promise<string> {
  const made = await client.submit("/teams", { name });
  expect(made.status, made.summary()).toBe(303);
  return made.location as string;
}

/** `inviter` invites `email` to the team at `at` as `role`; the link the mail carries (a path). */
async function invite(inviter: TestClient, at: string, email: string, role = "member"): Promise<string> {
  const page = await inviter.get(at);
  const name = /<h1>([^<]+)<\/h1>/.exec(page.text)?.[1] ?? "?";
  const sent = await inviter.submit(at, { email, role }, { action: `${at}/invitations` });
  expect(sent.status, sent.summary()).toBe(303);
  const mail = await app.mail({ to: email, subject: `Join ${name}` });
  const link = mail.links.find((href) => href.includes("/teams/join?token="));
  if (link === undefined) throw new Error(`the invitation to ${email} has no link: ${mail.links.join(", ")}`);
  const url = new URL(link);
  return `${url.pathname}${url.search}`;
}

/** Follows an invitation link and joins with its button. */
async function accept(client: TestClient, link: string): Promise<void> {
  const moved = await client.get(link);
  expect(moved.status).toBe(303);
  const joined = await client.submit("/teams/join", {});
  expect(joined.status, joined.summary()).toBe(303);
}

async function titles(client: TestClient): Promise<string> {
  const page = await client.get("/pages/titles");
  expect(page.status).toBe(200);
  return page.text;
}

describe("41.4 Teams (PGlite)", () => {
  it("a user makes a team and is its owner, working in it; the team's page is a 404 to anyone not in it", async () => {
    const ann = await person("ann");
    expect((await ann.client.get("/")).text).toBe(`${ann.email} in no team`);
    const at = await team(ann.client, "Newsroom");
    expect((await ann.client.get("/")).text).toBe(`${ann.email} in Newsroom as owner`);
    const page = await ann.client.get(at);
    expect(page.status).toBe(200);
    expect(page.text).toContain(ann.email);
    expect((await app.client().get(at)).status).toBe(404);
    expect((await (await person("outsider")).client.get(at)).status).toBe(404);
    expect((await ann.client.get("/teams/999999")).status).toBe(404);
  });

  it("invitations by mail: the invited address joins with the link, once; a forwarded link is refused to another signed-in user; a withdrawn one is dead", async () => {
    const owner = await person("owner");
    const at = await team(owner.client, "Desk");
    const bob = await person("bob");
    const link = await invite(owner.client, at, bob.email);
    // Forwarded: another signed-in user opening it is refused, and nothing changes.
    const eve = await person("eve");
    expect((await eve.client.get(link)).status).toBe(303);
    const forwarded = await eve.client.get("/teams/join");
    expect(forwarded.status).toBe(403);
    expect(forwarded.text).toContain("another email address");
    expect((await eve.client.get(at)).status).toBe(404);
    // The invitee joins, and works in the team at once.
    await accept(bob.client, link);
    expect((await bob.client.get("/")).text).toBe(`${bob.email} in Desk as member`);
    expect((await bob.client.get(at)).status).toBe(200);
    // Used: the link is dead (410), for the invitee too.
    expect((await bob.client.get(link)).status).toBe(303);
    expect((await bob.client.get("/teams/join")).status).toBe(410);
    // Withdrawn: dead too.
    const carl = await person("carl");
    const second = await invite(owner.client, at, carl.email);
    const waiting = await owner.client.get(at);
    const withdraw = /action="([^"]*\/invitations\/\d+\/delete)"/.exec(waiting.text)?.[1];
    expect(withdraw).toBeDefined();
    expect((await owner.client.submit(at, {}, { action: withdraw as string })).status).toBe(303);
    expect((await carl.client.get(second)).status).toBe(303);
    expect((await carl.client.get("/teams/join")).status).toBe(410);
  });

  it("an invitation opened by nobody signed in sends them to sign in with its address, and back to it", async () => {
    const owner = await person("host");
    const at = await team(owner.client, "Guests");
    const dora = await person("dora");
    dora.client.cookies.clear();
    const link = await invite(owner.client, at, dora.email);
    expect((await dora.client.get(link)).status).toBe(303);
    const page = await dora.client.get("/teams/join");
    expect(page.status).toBe(200);
    expect(page.text).toContain(`This invitation is for ${dora.email}`);
    const signIn = /href="(\/login\?next=[^"]+)"/.exec(page.text)?.[1]?.replace(/&amp;/g, "&");
    expect(signIn).toBeDefined();
    const next = new URL(signIn as string, app.url).searchParams.get("next") as string;
    const signedIn = await dora.client.submit(signIn as string, { email: dora.email, password: PASSWORD });
    expect(signedIn.location).toBe(next);
    await accept(dora.client, next);
    expect((await dora.client.get("/")).text).toBe(`${dora.email} in Guests as member`);
  });

  it("members share the team's drafts: other teams' members never read them (404 by key), the site's admins read all; Create stamps the current team, whatever the form says", async () => {
    const n = ++counter;
    const ann = await person("writer");
    const at = await team(ann.client, "Politics");
    const bob = await person("colleague");
    await accept(bob.client, await invite(ann.client, at, bob.email));
    const draft = await ann.client.submit("/drafts/new", { title: `budget ${n}` });
    expect(draft.status, draft.summary()).toBe(303);
    const key = draft.location as string;
    expect(await titles(bob.client)).toContain(`budget ${n}`);
    expect((await bob.client.get(key)).status).toBe(200);
    const rival = await person("rival");
    await team(rival.client, "Sports");
    expect(await titles(rival.client)).not.toContain(`budget ${n}`);
    expect((await rival.client.get(key)).status).toBe(404);
    expect((await rival.client.get(`${key}/edit`)).status).toBe(404);
    const admin = app.client();
    await admin.signIn("admin@teams.example", PASSWORD);
    expect(await titles(admin)).toContain(`budget ${n}`);
    // A draft made in Sports, whatever team key the form sends, is Sports': Politics never sees it.
    const forged = await rival.client.post("/drafts", { title: `forged ${n}`, team: "1", _csrf: csrfOf((await rival.client.get("/drafts/new")).text) });
    expect(forged.status).toBe(303);
    expect(await titles(rival.client)).toContain(`forged ${n}`);
    expect(await titles(bob.client)).not.toContain(`forged ${n}`);
  });

  it("a member edits their own draft, not a colleague's (403, unchanged); the team's admins edit and delete any; a member deletes none", async () => {
    const n = ++counter;
    const owner = await person("editor");
    const at = await team(owner.client, "Culture");
    const [amy, ben] = [await person("amy"), await person("ben")];
    await accept(amy.client, await invite(owner.client, at, amy.email));
    await accept(ben.client, await invite(owner.client, at, ben.email, "admin"));
    const draft = (await amy.client.submit("/drafts/new", { title: `review ${n}` })).location as string;
    expect((await amy.client.submit(`${draft}/edit`, { title: `review 2 ${n}` })).status).toBe(303);
    const mine = (await owner.client.submit("/drafts/new", { title: `lead ${n}` })).location as string;
    expect((await amy.client.get(`${mine}/edit`)).status).toBe(403);
    expect((await amy.client.get(mine)).text).toContain(`lead ${n}`);
    expect((await ben.client.submit(`${draft}/edit`, { title: `tidied ${n}` })).status).toBe(303);
    // The Index shows Edit on the rows the viewer may change alone: amy her own, ben (the team's admin) both, each asked of every row.
    const edits = async (client: TestClient): Promise<string[]> => [...(await client.get("/drafts?size=100")).text.matchAll(/<a href="(\/drafts\/\d+)\/edit">Edit<\/a>/g)].map((m) => m[1] as string).filter((at) => at === draft || at === mine).sort();
    expect(await edits(amy.client)).toEqual([draft]);
    expect(await edits(ben.client)).toEqual([draft, mine].sort());
    const refused = await amy.client.post(mine, { _method: "DELETE", _csrf: csrfOf((await amy.client.get("/drafts/new")).text) });
    expect(refused.status).toBe(403);
    expect((await ben.client.submit(`${mine}/delete`, {})).status).toBe(303);
    expect((await owner.client.get(mine)).status).toBe(404);
  });

  it("roles in a team: an admin invites and removes members but makes no owner (400); a member changes nothing (403); the last owner can neither leave nor be demoted (409)", async () => {
    const n = ++counter;
    const owner = await person("boss");
    const at = await team(owner.client, "Board");
    const [admin, member] = [await person("deputy"), await person("clerk")];
    await accept(admin.client, await invite(owner.client, at, admin.email, "admin"));
    await accept(member.client, await invite(owner.client, at, member.email));
    const csrf = csrfOf((await admin.client.get(at)).text);
    expect((await admin.client.post(`${at}/invitations`, { _csrf: csrf, email: `x${n}@teams.example`, role: "owner" })).status).toBe(400);
    expect((await admin.client.post(`${at}/invitations`, { _csrf: csrf, email: `x${n}@teams.example`, role: "superuser" })).status).toBe(400);
    const memberKey = memberKeyOf((await owner.client.get(at)).text, member.email);
    const ownerKey = memberKeyOf((await admin.client.get(at)).text, owner.email);
    expect((await admin.client.post(`${at}/members/${memberKey}`, { _csrf: csrf, role: "owner" })).status).toBe(400);
    expect((await admin.client.post(`${at}/members/${ownerKey}/delete`, { _csrf: csrf })).status).toBe(403);
    const memberCsrf = csrfOf((await member.client.get(at)).text);
    expect((await member.client.post(`${at}/invitations`, { _csrf: memberCsrf, email: `y${n}@teams.example`, role: "member" })).status).toBe(403);
    expect((await member.client.post(`${at}/members/${memberKey}/delete`, { _csrf: memberCsrf })).status).toBe(403);
    // The last owner: leaving and demoting themself are refused, and they stay the owner.
    const ownerCsrf = csrfOf((await owner.client.get(at)).text);
    expect((await owner.client.post(`${at}/leave`, { _csrf: ownerCsrf })).status).toBe(409);
    expect((await owner.client.get("/")).text).toBe(`${owner.email} in Board as owner`);
    // Deleting the account would leave too: refused (409) naming the team, nothing changed. (From
    // an address of its own: the file's sign-ups spent most of this address's account forms.)
    const accountCsrf = csrfOf((await owner.client.get("/account")).text);
    const refused = await owner.client.post("/account/delete", { _csrf: accountCsrf, current: PASSWORD }, { "x-forwarded-for": "203.0.113.41" });
    expect(refused.status, refused.summary()).toBe(409);
    expect(refused.refusal().alerts).toEqual([
      'Your account cannot be deleted while you are the last owner of the team "Board", whose other members would be left without an owner: make one of them an owner first (or remove them).',
    ]);
    expect((await owner.client.get("/")).text).toBe(`${owner.email} in Board as owner`);
    // Made owner, the admin may then demote the first owner, who is no longer the last.
    const adminKey = memberKeyOf((await owner.client.get(at)).text, admin.email);
    expect((await owner.client.post(`${at}/members/${adminKey}`, { _csrf: ownerCsrf, role: "owner" })).status).toBe(303);
    expect((await admin.client.post(`${at}/members/${ownerKey}`, { _csrf: csrf, role: "member" })).status).toBe(303);
    expect((await owner.client.get("/")).text).toBe(`${owner.email} in Board as member`);
    // The admin removes the member: the member's next request has no team, and the page is a 404.
    expect((await admin.client.post(`${at}/members/${memberKey}/delete`, { _csrf: csrf })).status).toBe(303);
    expect((await member.client.get(at)).status).toBe(404);
    expect((await member.client.get("/")).text).toBe(`${member.email} in no team`);
  });

  it("the current team: a user in two picks one, and reads its drafts alone; a team that is not theirs cannot be picked (404)", async () => {
    const n = ++counter;
    const ann = await person("twofold");
    const first = await team(ann.client, "Morning");
    const morning = await ann.client.submit("/drafts/new", { title: `morning ${n}` });
    expect(morning.status, morning.summary()).toBe(303);
    await team(ann.client, "Evening");
    const evening = await ann.client.submit("/drafts/new", { title: `evening ${n}` });
    expect(evening.status, evening.summary()).toBe(303);
    expect(await titles(ann.client)).toBe(`evening ${n}`);
    const firstKey = first.split("/").pop() as string;
    expect((await ann.client.submit("/teams", { team: firstKey }, { action: "/teams/current" })).status).toBe(303);
    expect(await titles(ann.client)).toBe(`morning ${n}`);
    const other = await person("stranger");
    const theirs = (await team(other.client, "Elsewhere")).split("/").pop() as string;
    expect((await ann.client.post("/teams/current", { _csrf: csrfOf((await ann.client.get("/teams")).text), team: theirs })).status).toBe(404);
    expect(await titles(ann.client)).toBe(`morning ${n}`);
  });

  it("bad input: an empty or overlong team name (422), a team key that is no key (404), a forged invitation token (410)", async () => {
    const ann = await person("careful");
    expect((await ann.client.submit("/teams", { name: " " })).status).toBe(422);
    expect((await ann.client.submit("/teams", { name: "x".repeat(101) })).status).toBe(422);
    expect((await ann.client.get("/teams/abc")).status).toBe(404);
    expect((await ann.client.get("/teams/join?token=forged")).status).toBe(303);
    expect((await ann.client.get("/teams/join")).status).toBe(410);
    expect((await ann.client.get("/teams/join")).status).toBe(410);
  });
});

function csrfOf(html: string): string {
  const token = /name="_csrf" value="([^"]+)"/.exec(html)?.[1];
  if (token === undefined) throw new Error("the page carries no CSRF token");
  return token;
}

/** A member's key on a team page (each member's row is `<tr id="member-<key>">`). */
function memberKeyOf(html: string, email: string): string {
  for (const match of html.matchAll(/<tr id="member-(\d+)"><td>([^<]+)<\/td>/g)) if (match[2] === email) return match[1] as string;
  throw new Error(`no row for ${email} on the team page`);
}
