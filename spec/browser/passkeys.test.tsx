import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { formSignIn, seedUser } from "../../runtime/auth/index.js";
import { SqlUsers, usersTableSql, type Database } from "../../runtime/db/index.js";
import { onEveryEngine } from "../db/engines.js";
import { assembleTable, Ok, Route, type Layout } from "../../runtime/index.js";
import { Mailer, MailboxTransport } from "../../runtime/mail/index.js";
import { CHROMIUM_ARGS } from "../support/chromium.js";
import { serve, type Served } from "../support/serve.js";

// Issue 42, item 2, end to end in Chromium with the DevTools protocol's virtual authenticator
// (a platform authenticator with resident keys and user verification): a passkey made on
// /account, then signing in with it; the assertion, caught on its way, replayed to the server for
// another origin, for another user, and a second time (its counter did not move); the passkey
// removed on one app process and refused at once by another on the same database (two apps in
// this process, each with its own users store), on PGlite and on PostgreSQL. WebAuthn needs a
// domain for its RP ID: the pages are opened on `localhost`.
const found = inject("chromium");
const CHROMIUM = "path" in found ? found.path : undefined;
const PASSWORD = "plum orbit velvet 9271";
const EMAIL = "passkey@example.com";
const OTHER = "other@example.com";

let browser: Browser | undefined;
let dir = "";

beforeAll(async () => {
  if (CHROMIUM === undefined) return; // skipped below
  dir = mkdtempSync(join(tmpdir(), "fw-passkeys-"));
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((done) => setTimeout(done, 300)); // the last mail
  if (dir !== "") rmSync(dir, { recursive: true, force: true });
});

function appOn(users: SqlUsers, mailbox: string) {
  const mailer = new Mailer({ from: "Shop <no-reply@shop.example>", transport: new MailboxTransport(mailbox) });
  const auth = formSignIn({ users, mailer });
  const layout: Layout = async ({ title, content, request }) => (
    <html lang="en">
      <head>
        <title>{title ?? "shop"}</title>
      </head>
      <body>
        <p id="who">{(await auth.userOf(request))?.email ?? "signed out"}</p>
        <p id="flash">{request.session.flashed("notice") ?? ""}</p>
        {content}
      </body>
    </html>
  );
  return serve({ routes: assembleTable([auth.guarded()], [Route.get("/", () => Ok(<p>home</p>))]), layout, parts: [mailer], origin: "http://localhost", allowedHosts: ["*"] });
}

/** `http://localhost:<port>`: WebAuthn refuses an IP address as the RP ID. */
function onLocalhost(app: Served | undefined): string {
  return `http://localhost:${(app as Served).port}`;
}

async function withAuthenticator(page: Page): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
}

let suites = 0;
onEveryEngine((engine) => {
  describe.skipIf(CHROMIUM === undefined)(`passkeys in Chromium on ${engine.name}${CHROMIUM === undefined ? ` (skipped: ${"reason" in found ? found.reason : ""})` : ""}`, () => {
    let one: Served | undefined;
    let two: Served | undefined;
    let db: Database | undefined;
    beforeAll(async () => {
      if (CHROMIUM === undefined) return;
      const n = ++suites;
      db = engine.db();
      await db.script(`DROP TABLE IF EXISTS fw_passkeys; ${usersTableSql("passkey_users")}`);
      const users = new SqlUsers(db, { table: "passkey_users" });
      await seedUser(users, EMAIL, PASSWORD);
      await seedUser(users, OTHER, PASSWORD);
      [one, two] = await Promise.all([appOn(users, join(dir, `mail-${n}-1`)), appOn(new SqlUsers(db, { table: "passkey_users" }), join(dir, `mail-${n}-2`))]);
    }, 120_000);
    afterAll(async () => {
      await one?.close();
      await two?.close();
    });

    it("made on /account, signs in; checks the origin, the user and the counter; removed in one process, refused at once by another", async () => {
      const page = await (browser as Browser).newPage();
      await withAuthenticator(page);
      const base = onLocalhost(one);
      await page.goto(`${base}/login`);
      await page.fill("#login-email", EMAIL);
      await page.fill("#login-password", PASSWORD);
      await Promise.all([page.waitForURL(`${base}/`), page.click("form[action='/login'] button")]);
      await page.goto(`${base}/account`);
      await page.fill("#passkey-name", "Laptop");
      // The page is at /account already: wait for the answer's flash, not for the URL.
      await page.click("#fw-passkey-register button");
      await page.locator("#flash", { hasText: "is added" }).waitFor();
      expect(await page.locator("#flash").textContent()).toBe('The passkey "Laptop" is added: you can sign in with it.');
      expect(await page.locator(".fw-passkeys li").first().textContent()).toContain("Laptop, made");

      // Signed out, the sign-in page offers the passkey: the email field's autofill (conditional UI,
      // which the virtual authenticator answers at once) sends an assertion by itself. It is caught
      // on its way (not sent), to be replayed from here.
      await page.context().clearCookies();
      let caught = "";
      await page.route("**/login/passkey", async (route) => {
        caught = route.request().postData() ?? "";
        await route.abort();
      });
      const markup = await (await fetch(`${base}/login`)).text();
      expect(markup).toContain('autocomplete="username webauthn"');
      expect(markup).toContain("Sign in with a passkey</button>");
      await page.goto(`${base}/login`);
      await expect.poll(() => caught).not.toBe("");
      await page.unroute("**/login/passkey");
      const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join("; ");
      const post = (origin: string, body: string) =>
        fetch(`${origin}/login/passkey`, { method: "POST", redirect: "manual", headers: { cookie, "content-type": "application/x-www-form-urlencoded" }, body });
      // For another origin: the same bytes sent to http://127.0.0.1:<port> (the clientData names localhost): refused.
      const elsewhere = await post(`http://127.0.0.1:${(one as Served).port}`, caught);
      expect(elsewhere.status).toBe(400);
      // For another user: the user handle says the other account: refused.
      const fields = new URLSearchParams(caught);
      const response = JSON.parse(fields.get("response") ?? "{}") as { response: { userHandle?: string } };
      const otherId = (await new SqlUsers(db as Database, { table: "passkey_users" }).byEmail(OTHER))?.id;
      response.response.userHandle = Buffer.from(String(otherId)).toString("base64url");
      fields.set("response", JSON.stringify(response));
      const swapped = await post(base, fields.toString());
      expect(swapped.status).toBe(400);
      expect(await swapped.text()).toContain("This passkey belongs to another account.");
      // As made: signed in.
      const signed = await post(base, caught);
      expect([signed.status, signed.headers.get("location")]).toEqual([303, "/"]);
      // The very same assertion again: its counter did not move forward.
      const replayed = await post(base, caught);
      expect(replayed.status).toBe(400);
      // simplewebauthn refuses a counter that did not move forward, before the store's own check would.
      expect(await replayed.text()).toMatch(/counter value 2 was lower than expected 2|counter did not move forward/);

      // In the browser itself: opening the sign-in page signs in through the autofill's passkey.
      await page.context().clearCookies();
      await Promise.all([page.waitForURL(`${base}/`), page.goto(`${base}/login`)]);
      expect(await page.locator("#who").textContent()).toBe(EMAIL);

      // Removed on one process; the other (same database) refuses it at once.
      await page.goto(`${base}/account`);
      await page.click(".fw-passkeys button");
      await page.locator("#flash", { hasText: "is removed" }).waitFor();
      expect(await page.locator("#flash").textContent()).toBe("The passkey is removed: it signs nobody in from now on.");
      const other = onLocalhost(two);
      await page.context().clearCookies();
      await Promise.all([page.waitForURL(`${other}/login/passkey`), page.goto(`${other}/login`)]);
      expect(await page.locator(".fw-auth-error").textContent()).toContain("This passkey is not known here");
      await page.goto(`${other}/`);
      expect(await page.locator("#who").textContent()).toBe("signed out");
    }, 120_000);
  });
});
