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

  it("an account that wrote a post cannot be deleted until the post is: 409, said beside the form", async () => {
    const email = "author@example.com";
    const author = app.client();
    await author.signUp(email, PASSWORD);
    const posted = await author.submit("/posts/new", { title: "Mine", body: "Kept.", category: "news" });
    expect(posted.status, posted.summary()).toBe(303);
    const refused = await author.submit("/account", { current: PASSWORD }, { action: "/account/delete" });
    expect(refused.status).toBe(409);
    // The example's own models, as the app registered them (issue 39, item 19): a post, no comment yet.
    expect(refused.refusal().alerts).toContain("Your account cannot be deleted while your posts name it: delete them first.");
    expect(await signedInAs(author)).toBe(email);
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
