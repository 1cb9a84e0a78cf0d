import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RESET_SENT } from "../../runtime/auth/index.js";
import { startApp, type SentMail, type TestApp, type TestClient } from "../../runtime/testing/index.js";

// Issue 32: the example's account flows end to end, through fw/testing against the example as
// built (one app process, its own embedded database, its mail read from its real mailbox), on
// SqlUsers (tokens in fw_auth_tokens). The in-process cases (tampered tokens, epochs, limits,
// a stuck mail server) are spec/auth/accounts.test.tsx; the reset flow in Chromium is in
// spec/browser/example.test.ts.

const PASSWORD = "plum orbit velvet 9271";
const NEW_PASSWORD = "granite lantern 4471 ferry";
let app: TestApp;

beforeAll(async () => {
  app = await startApp({ cwd: resolve("example"), main: "dist/main.js" });
});
afterAll(() => app?.close());

/** The link of a mail as a path on the app. */
function pathOf(mail: SentMail): string {
  const link = mail.links.find((href) => href.includes("token="));
  expect(link, `a link with a token in "${mail.subject}"`).toBeDefined();
  const url = new URL(link as string);
  expect(url.origin).toBe(app.url); // dev: the address the app serves on
  return url.pathname + url.search;
}

async function signedInAs(client: TestClient): Promise<string | undefined> {
  return /class="signed-in">([^<]+)</.exec((await client.get("/")).text)?.[1];
}

describe("the example's accounts (fw/testing reading the mailbox)", () => {
  it("sign up → confirm by the mailed link (signed in) → forgot → reset (other sessions out) → settings: email, password, sign out everywhere, delete", async () => {
    const email = "reader@example.com";
    const visitor = app.client();
    // Sign-up: the mailed link makes the account and signs in.
    expect((await visitor.signUp(email, PASSWORD)).location).toBe("/");
    expect(await signedInAs(visitor)).toBe(email);
    const laptop = app.client();
    await laptop.signIn(email, PASSWORD);

    // Forgot: the same answer as for an unknown address; only the account gets mail.
    const phone = app.client();
    const stranger = app.client();
    const asked = await phone.submit("/password/forgot", { email: "READER@example.com" });
    const unknown = await stranger.submit("/password/forgot", { email: "nobody@example.com" });
    expect([asked.status, asked.location]).toEqual([303, "/login"]);
    expect([unknown.status, unknown.location]).toEqual([asked.status, asked.location]);
    expect((await phone.follow(asked)).text).toContain(RESET_SENT);
    expect((await stranger.follow(unknown)).text).toContain(RESET_SENT);
    const reset = await app.mail({ to: email, subject: "Choose a new password" });
    expect(reset.text).toContain("The link works once, for an hour.");
    const opened = await phone.get(pathOf(reset));
    expect([opened.status, opened.location]).toEqual([303, "/password/reset"]);
    const changed = await phone.submit("/password/reset", { password: NEW_PASSWORD });
    expect([changed.status, changed.location]).toEqual([303, "/"]);
    expect(await signedInAs(phone)).toBe(email);
    expect(await signedInAs(laptop)).toBeUndefined();
    // Once: the link again is refused.
    const again = app.client();
    await again.get(pathOf(reset));
    expect((await again.get("/password/reset")).status).toBe(400);

    // Settings: change the email through a link to the new address.
    const next = "reader.new@example.com";
    const account = await phone.get("/account");
    expect(account.status).toBe(200);
    expect((await phone.submit("/account", { email: next, current: NEW_PASSWORD }, { action: "/account/email" })).location).toBe("/account");
    await app.mail({ to: email, subject: "A change of your email was asked for" });
    await phone.get(pathOf(await app.mail({ to: next, subject: "Confirm your new email" })));
    expect((await phone.submit("/account/email/confirm", {}, { action: "/account/email/confirm" })).location).toBe("/account");
    expect(await signedInAs(phone)).toBe(next);
    await app.mail({ to: email, subject: "Your email was changed" });

    // Change the password (the current one asked), then sign out everywhere.
    expect((await phone.submit("/account", { current: NEW_PASSWORD, password: PASSWORD }, { action: "/account/password" })).location).toBe("/account");
    await app.client().signIn(next, PASSWORD);
    expect((await phone.submit("/account", {}, { action: "/account/sign-out-everywhere" })).location).toBe("/login");
    expect(await signedInAs(phone)).toBeUndefined();

    // Delete: the account goes, and its address can sign up again.
    const leaving = app.client();
    await leaving.signIn(next, PASSWORD);
    expect((await leaving.submit("/account", { current: PASSWORD }, { action: "/account/delete" })).location).toBe("/");
    await expect(app.client().signIn(next, PASSWORD)).rejects.toThrow(/failed/);
    await app.mail({ to: next, subject: "Your account was deleted" });
  });

  it("deleting an account that wrote a post and a comment (issue 41: a user's own data): the account goes; its comment goes with it, its post stays without an author", async () => {
    const email = "author@example.com";
    const author = app.client();
    await author.signUp(email, PASSWORD);
    const posted = await author.submit("/posts/new", { title: "Kept after me", body: "Still here.", category: "news", published: "true" });
    expect(posted.status, posted.summary()).toBe(303);
    const post = posted.location as string;
    const id = post.split("/").pop() as string;
    const commented = await author.submit(`/comments/new?post=${id}`, { body: "Gone with me." });
    expect(commented.status, commented.summary()).toBe(303);
    const comment = commented.location as string;
    const deleted = await author.submit("/account", { current: PASSWORD }, { action: "/account/delete" });
    expect([deleted.status, deleted.location]).toEqual([303, "/"]);
    const visitor = app.client();
    const shown = await visitor.get(post);
    expect(shown.status).toBe(200);
    expect(shown.text).toContain("Kept after me");
    expect((await visitor.get(comment)).status).toBe(404);
    // Nobody owns it now: no Edit for anyone, the signed-in visitor included.
    const other = app.client();
    await other.signUp("late-reader@example.com", PASSWORD);
    expect((await other.get(`${post}/edit`)).status).toBe(403);
  });
});

describe("the example's admin (issue 41): the demo account holds the admin role in dev; guestbook entries are deleted by admins alone", () => {
  it("an admin sees Delete on an entry and deletes it; anyone else sees no Delete, and the DELETE is a 404 to them", async () => {
    const guest = app.client();
    const signed = await guest.submit("/guestbook", { name: "Spammer", message: "buy now" });
    expect(signed.status, signed.summary()).toBe(303);
    const listed = (await guest.get("/guestbook")).text;
    const id = [...listed.matchAll(/href="\/guestbook\/(\d+)"/g)].map((m) => Number(m[1])).sort((a, b) => b - a)[0] as number;
    const entry = `/guestbook/${id}`;
    expect((await guest.get(entry)).text).not.toContain("Delete entry");
    const member = app.client();
    await member.signUp("member@example.com", PASSWORD);
    expect((await member.get(entry)).text).not.toContain("Delete entry");
    const csrf = /name="_csrf" value="([^"]+)"/.exec((await member.get("/posts/new")).text)?.[1] as string;
    expect((await member.post(entry, { _csrf: csrf, _method: "DELETE" })).status).toBe(404);
    const admin = app.client();
    await admin.signIn("demo@example.com", "demo-password");
    expect((await admin.get(entry)).text).toContain("Delete entry");
    const deleted = await admin.submit(entry, {}, { action: entry });
    expect([deleted.status, deleted.location]).toEqual([303, "/guestbook"]);
    expect((await guest.get(entry)).status).toBe(404);
  });
});

describe("the example's mail goes through a job (fw/jobs)", () => {
  it("a mail that cannot be delivered does not touch the answer: its DeliverMail job fails, is kept with the error, and waits to be tried again", async () => {
    const scratch = mkdtempSync(join(tmpdir(), "fw-mail-job-"));
    // The mailbox is a file, not a folder: every delivery fails, as an SMTP server that is down would.
    const blocked = join(scratch, "not-a-folder");
    writeFileSync(blocked, "");
    const broken = await startApp({ cwd: resolve("example"), main: "dist/main.js", env: { FW_MAILBOX: blocked } });
    try {
      await broken.client().submit("/signup", { email: "queued@example.com", password: PASSWORD });
      const asked = await broken.client().submit("/password/forgot", { email: "demo@example.com" });
      expect([asked.status, asked.location]).toEqual([303, "/login"]);
      let page = "";
      for (let tries = 0; tries < 200 && !/Failed \(waiting to be tried again\): [1-9]/.test(page); tries++) {
        page = (await broken.client().get("/fw/jobs")).text;
        await new Promise((done) => setTimeout(done, 50));
      }
      expect(page).toMatch(/Failed \(waiting to be tried again\): [12]/);
      expect(page).toContain("DeliverMail");
      expect(page).toMatch(/class="fw-jobs-error">[^<]*not-a-folder/);
    } finally {
      await broken.close();
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
