// Issue 41, items 5 and 7: the example's back office at /admin (example/src/admin.ts) over posts,
// comments, notes, the guestbook and users, through fw/testing against the example as built
// (one app process on its own embedded database, PGlite, in dev: the demo account is the admin).
// Each write is read back from the back office's audit log page, with the row before and after.
// Two processes on PostgreSQL, and the database read directly, are spec/admin/admin-app.test.ts.
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACCOUNT_LOCKED } from "../../runtime/auth/index.js";
import { startApp, type SentMail, type TestApp, type TestClient, type TestResponse } from "../../runtime/testing/index.js";

const PASSWORD = "plum orbit velvet 9271";
const DEMO = { email: "demo@example.com", password: "demo-password" };
let app: TestApp;
let admin: TestClient;

beforeAll(async () => {
  app = await startApp({ cwd: resolve("example"), main: "dist/main.js" });
  admin = app.client();
  await admin.signIn(DEMO.email, DEMO.password);
});
afterAll(() => app?.close());

/** The audit log page's entries (newest first) of a model's row: what was done, and the row before and after as JSON. */
async function history(model: string, key: string | number): Promise<{ action: string; before: unknown; after: unknown }[]> {
  const page = await admin.get(`/admin/audit?model=${model}&key=${key}`);
  expect(page.status).toBe(200);
  const rows = page.text.split('<tr class="fw-audit-').slice(1);
  return rows.map((row) => {
    const cells = [...row.matchAll(/<td>([\s\S]*?)<\/td>/g)].map((m) => m[1] as string);
    const parsed = (cell: string | undefined): unknown => {
      const json = /<pre class="fw-audit-json">([\s\S]*?)<\/pre>/.exec(cell ?? "")?.[1];
      return json === undefined ? undefined : JSON.parse(unescape(json));
    };
    return { action: cells[2] as string, before: parsed(cells[4]), after: parsed(cells[5]) };
  });
}

/** HTML text back to text (what the page escaped). */
function unescape(html: string): string {
  return html.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
}

async function signedUp(email: string): Promise<TestClient> {
  const client = app.client();
  await client.signUp(email, PASSWORD);
  return client;
}

/** A per-user API token with posts:write, made on the client's /account page with their password. */
async function tokenOf(client: TestClient): Promise<string> {
  const page = await client.get("/account");
  const form = page.forms().find((f) => f.action === "/account/tokens");
  const body = new URLSearchParams({ _csrf: form?.fields["_csrf"] ?? "", name: "script", days: "30", current: PASSWORD, scope: "posts:write" });
  const answer = await fetch(`${app.url}/account/tokens`, { method: "POST", headers: { cookie: client.cookies.header() ?? "", "content-type": "application/x-www-form-urlencoded" }, body });
  const token = /<code class="fw-token">([^<]+)<\/code>/.exec(await answer.text())?.[1];
  expect(token).toBeDefined();
  return token as string;
}

/** POST /api/posts with a token, as a program calls it. */
function postWith(token: string): Promise<Response> {
  const post = { title: "By a script", body: "Written with a token.", published: true, category: "news" };
  return fetch(`${app.url}/api/posts`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify(post) });
}

function keyOf(location: string | undefined): number {
  return Number(/(\d+)$/.exec(location ?? "")?.[1]);
}

function linkOf(mail: SentMail): string {
  const url = new URL(mail.links.find((href) => href.includes("token=")) as string);
  return url.pathname + url.search;
}

function ok(answer: TestResponse, status = 303): void {
  expect(answer.status, answer.summary()).toBe(status);
}

describe("41.5/41.7 The example's back office at /admin", () => {
  it("nobody without the admin role reaches any page or form of it: a 404, signed out or signed in", async () => {
    const visitor = app.client();
    const member = await signedUp("member-probe@example.com");
    for (const who of [visitor, member]) {
      for (const path of ["/admin", "/admin/posts", "/admin/posts/1", "/admin/posts/1/edit", "/admin/comments", "/admin/notes", "/admin/entries", "/admin/users", "/admin/users/1", "/admin/audit"]) {
        expect([path, (await who.get(path)).status]).toEqual([path, 404]);
      }
      const csrf = /name="_csrf" value="([^"]+)"/.exec((await who.get("/login")).text)?.[1] as string;
      for (const [path, fields] of [
        ["/admin/users/1/grant", { role: "admin" }],
        ["/admin/users/1/lock", {}],
        ["/admin/entries/1", { _method: "DELETE" }],
      ] as const) {
        expect([path, (await who.post(path, { _csrf: csrf, ...fields })).status]).toEqual([path, 404]);
      }
    }
    // The layout links the back office for an admin alone.
    expect((await member.get("/")).text).not.toContain('href="/admin"');
    expect((await admin.get("/")).text).toContain('<a href="/admin">Back office</a>');
  });

  it("the tags (issue 43's example): an admin makes, renames and deletes one; everyone else reads them with no New, Edit or Delete, and those pages are 404s", async () => {
    const made = await admin.submit("/tags/new", { name: "gate-check" });
    ok(made);
    const key = keyOf(made.location);
    expect((await admin.get("/tags")).text).toContain('class="fw-new">New tag</a>');
    const shown = (await admin.get(`/tags/${key}`)).text;
    expect(shown).toContain(`<a href="/tags/${key}/edit" class="fw-edit">Edit</a>`);
    expect(shown).toContain(`<a href="/tags/${key}/delete" class="fw-destroy">Delete</a>`);
    ok(await admin.submit(`/tags/${key}/edit`, { name: "gate-checked" }));

    const member = await signedUp("tag-reader@example.com");
    for (const who of [app.client(), member]) {
      const index = await who.get("/tags");
      expect(index.status).toBe(200);
      expect(index.text).toContain("gate-checked");
      expect(index.text).not.toContain('href="/tags/new"');
      expect(index.text).not.toContain(`href="/tags/${key}/edit"`);
      const show = await who.get(`/tags/${key}`);
      expect(show.status).toBe(200);
      expect(show.text).not.toContain(`/tags/${key}/edit`);
      expect(show.text).not.toContain(`/tags/${key}/delete`);
      for (const path of ["/tags/new", `/tags/${key}/edit`, `/tags/${key}/delete`]) expect([path, (await who.get(path)).status]).toEqual([path, 404]);
      const csrf = /name="_csrf" value="([^"]+)"/.exec((await who.get("/login")).text)?.[1] as string;
      expect((await who.post("/tags", { _csrf: csrf, name: "forged" })).status).toBe(404);
      expect((await who.post(`/tags/${key}`, { _csrf: csrf, _method: "DELETE" })).status).toBe(404);
    }
    expect((await admin.get(`/tags/${key}`)).text).toContain("gate-checked");
    ok(await admin.submit(`/tags/${key}/delete`, {}, { action: `/tags/${key}` }));
    expect((await admin.get(`/tags/${key}`)).status).toBe(404);
  });

  it("a post: an admin lists another user's draft (which the app's own pages hide from them), filters, shows, edits and deletes it; the audit log has each change with the post before and after", async () => {
    const writer = await signedUp("writer@example.com");
    const posted = await writer.submit("/posts/new", { title: "Secret draft", body: "Not yet.", category: "howto" });
    ok(posted);
    const id = keyOf(posted.location);
    expect((await admin.get(`/posts/${id}`)).status).toBe(404);
    const drafts = await admin.get("/admin/posts?published=false");
    expect(drafts.text).toContain("Secret draft");
    expect(drafts.text).toContain("writer@example.com");
    expect((await admin.get("/admin/posts?published=true")).text).not.toContain("Secret draft");
    expect((await admin.get("/admin/posts?q=secret")).text).toContain("Secret draft");
    expect((await admin.get("/admin/posts?category=news")).text).not.toContain("Secret draft");
    expect((await admin.get("/admin/posts?category=gossip")).status).toBe(400);
    const shown = await admin.get(`/admin/posts/${id}`);
    expect(shown.status).toBe(200);
    expect(shown.text).toContain("Secret draft");
    ok(await admin.submit(`/admin/posts/${id}/edit`, { title: "Edited by an admin", published: "true" }));
    const read = await writer.get(`/posts/${id}`);
    expect(read.text).toContain("Edited by an admin");
    const [edit] = await history("Post", id);
    expect(edit).toMatchObject({ action: "update", before: { id, title: "Secret draft", published: false, category: "howto" }, after: { id, title: "Edited by an admin", published: true } });
    expect((edit?.before as { author: number }).author).toBeGreaterThan(0);
    const deleted = await admin.submit(`/admin/posts/${id}/delete`, {}, { action: `/admin/posts/${id}` });
    expect([deleted.status, deleted.location]).toEqual([303, "/admin/posts"]);
    expect((await writer.get(`/posts/${id}`)).status).toBe(404);
    expect((await history("Post", id)).map((entry) => entry.action)).toEqual(["delete", "update"]);
    expect((await history("Post", id))[0]).toMatchObject({ before: { title: "Edited by an admin" }, after: undefined });
  });

  it("a guestbook entry: listed, edited and deleted in the back office, the public guestbook showing each change; each in the audit log", async () => {
    const guest = app.client();
    ok(await guest.submit("/guestbook", { name: "Visitor", message: "Lovely site" }));
    const list = await admin.get("/admin/entries?q=visitor");
    const id = Number(/href="\/admin\/entries\/(\d+)"/.exec(list.text)?.[1]);
    expect(id).toBeGreaterThan(0);
    ok(await admin.submit(`/admin/entries/${id}/edit`, { message: "Lovely site (edited: no links)" }));
    expect((await guest.get(`/guestbook/${id}`)).text).toContain("Lovely site (edited: no links)");
    const refused = await admin.submit(`/admin/entries/${id}/edit`, { name: "" });
    expect(refused.status).toBe(422);
    ok(await admin.submit(`/admin/entries/${id}/delete`, {}, { action: `/admin/entries/${id}` }));
    expect((await guest.get(`/guestbook/${id}`)).status).toBe(404);
    const entries = await history("Entry", id);
    expect(entries.map((entry) => entry.action)).toEqual(["delete", "update"]);
    expect(entries[1]).toMatchObject({ before: { id, name: "Visitor", message: "Lovely site" }, after: { id, name: "Visitor", message: "Lovely site (edited: no links)" } });
  });

  it("users: searched, a role granted and revoked from the app's roles (no other name), locked (its session refused at once, its sign-in, its reset link and its API token refused, the token for good), unlocked, signed out everywhere; the last admin cannot demote themself", async () => {
    const email = "reviewer@example.com";
    const reviewer = await signedUp(email);
    const found = await admin.get("/admin/users?q=reviewer");
    const id = Number(/href="\/admin\/users\/(\d+)"/.exec(found.text)?.[1]);
    expect(id).toBeGreaterThan(0);
    expect((await admin.get(`/admin/users/${id}`)).text).toContain("Grant admin");
    ok(await admin.submit(`/admin/users/${id}`, { role: "admin" }, { action: `/admin/users/${id}/grant` }));
    expect((await reviewer.get("/admin")).status).toBe(200);
    const csrf = /name="_csrf" value="([^"]+)"/.exec((await admin.get(`/admin/users/${id}`)).text)?.[1] as string;
    expect((await admin.post(`/admin/users/${id}/grant`, { _csrf: csrf, role: "owner" })).status).toBe(400);
    ok(await admin.submit(`/admin/users/${id}`, { role: "admin" }, { action: `/admin/users/${id}/revoke` }));
    expect((await reviewer.get("/admin")).status).toBe(404);

    // A per-user API token of theirs (made on /account) writes, until the account is locked.
    const token = await tokenOf(reviewer);
    const written = await postWith(token);
    expect(written.status, await written.clone().text()).toBe(201);
    ok(await admin.submit(`/admin/users/${id}`, {}, { action: `/admin/users/${id}/lock` }));
    expect((await reviewer.get("/account")).status).toBe(303);
    expect((await postWith(token)).status).toBe(403);
    await expect(app.client().signIn(email, PASSWORD)).rejects.toThrow(/403/);
    const asked = app.client();
    ok(await asked.submit("/password/forgot", { email }));
    const opened = await asked.get(linkOf(await app.mail({ to: email, subject: "Choose a new password" })));
    const reset = await asked.get(opened.location as string);
    expect(reset.status).toBe(403);
    expect(reset.text).toContain(ACCOUNT_LOCKED.replace(/:.*/, ""));
    ok(await admin.submit(`/admin/users/${id}`, {}, { action: `/admin/users/${id}/unlock` }));
    const back = app.client();
    await back.signIn(email, PASSWORD);
    // Revoked with the lock: unlocking does not bring a token back.
    expect((await postWith(token)).status).toBe(403);
    ok(await admin.submit(`/admin/users/${id}`, {}, { action: `/admin/users/${id}/sign-out` }));
    expect((await back.get("/account")).status).toBe(303);
    expect((await history("User", id)).map((entry) => entry.action)).toEqual(["sign-out", "unlock", "lock", "revoke", "grant"]);

    const demo = Number(/href="\/admin\/users\/(\d+)">demo@example.com/.exec((await admin.get("/admin/users?q=demo")).text)?.[1]);
    const demoted = await admin.submit(`/admin/users/${demo}`, { role: "admin" }, { action: `/admin/users/${demo}/revoke` });
    expect(demoted.status).toBe(409);
    expect((await admin.get("/admin")).status).toBe(200);
  });
});
