import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generate } from "otplib";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { formSignIn, InMemoryUsers, PER_ACCOUNT_AND_ADDRESS, RECOVERY_CODES, seedUser, type UserFields, type Users } from "../../runtime/auth/index.js";
import { SqlUsers, usersTableSql } from "../../runtime/db/index.js";
import { assembleTable, Ok, Route, type Layout } from "../../runtime/index.js";
import { Mailer, MailboxTransport, readMailbox } from "../../runtime/mail/index.js";
import { TestClient } from "../../runtime/testing/client.js";
import { onEveryEngine } from "../db/engines.js";
import { serve, type Served } from "../support/serve.js";

// Issue 42, item 3: two-step sign-in (TOTP through otplib, its QR code through qrcode), on
// InMemoryUsers and SqlUsers (fw_second_factors) on PGlite and PostgreSQL. Codes are made here with
// otplib from the key the setup page shows, as an authenticator app makes them. The code form in
// Chromium is spec/browser/second-factor.test.ts.

const PASSWORD = "plum orbit velvet 9271";
const NEW_PASSWORD = "granite lantern 4471 ferry";

/** The client address limits count by: the test's own name, so one test's codes do not use up another's. */
let clientAddress = "127.0.0.1";
beforeEach((context) => {
  clientAddress = `test: ${context.task.name}`;
});

interface App {
  readonly served: Served;
  readonly mailbox: string;
  close(): Promise<void>;
}

async function appOn(users: Users<UserFields>): Promise<App> {
  const mailbox = mkdtempSync(join(tmpdir(), "fw-second-factor-"));
  const mailer = new Mailer({ from: "Shop <no-reply@shop.example>", transport: new MailboxTransport(mailbox) });
  const auth = formSignIn({ users, mailer, addressOf: () => clientAddress });
  const guarded = auth.guarded();
  const layout: Layout = async ({ title, content, request }) => (
    <html>
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
  const routes = assembleTable([guarded], [Route.get("/", () => Ok(<p>home</p>)), guarded.through(Route.get("/mine", () => Ok(<p>mine</p>)))]);
  const served = await serve({ routes, layout, parts: [mailer], origin: "https://shop.example", allowedHosts: ["*"] });
  return {
    served,
    mailbox,
    close: async () => {
      await served.close();
      // Mail is sent after the answer: wait until the mailbox stops growing before removing it.
      let seen = -1;
      for (let tries = 0; tries < 50 && (await readMailbox(mailbox)).length !== seen; tries++) {
        seen = (await readMailbox(mailbox)).length;
        await new Promise((done) => setTimeout(done, 100));
      }
      rmSync(mailbox, { recursive: true, force: true });
    },
  };
}

async function who(client: TestClient): Promise<string> {
  return /<p id="who">([^<]*)<\/p>/.exec((await client.get("/")).text)?.[1] ?? "";
}

/** A TOTP code of the key, `offset` steps from now (what the app shows then). */
function codeOf(secret: string, offset = 0): Promise<string> {
  return generate({ secret, epoch: Math.floor(Date.now() / 1000) + offset * 30 });
}

let emails = 0;

function secondFactorSuite(name: string, make: () => Promise<Users<UserFields>>): void {
  describe(`two-step sign-in (${name})`, () => {
    let app: App;
    let users: Users<UserFields>;
    beforeAll(async () => {
      users = await make();
      app = await appOn(users);
    }, 120_000);
    afterAll(() => app?.close());

    /** A signed-in user who turned two-step sign-in on: their key and recovery codes. */
    async function withSecondFactor(): Promise<{ email: string; client: TestClient; secret: string; codes: string[] }> {
      const email = `two-step-${++emails}@example.com`;
      await seedUser(users, email, PASSWORD);
      const client = new TestClient(app.served.url);
      await client.signIn(email, PASSWORD);
      const setup = await client.submit("/account", { current: PASSWORD }, { action: "/account/two-step" });
      expect(setup.status, setup.summary()).toBe(200);
      const secret = /<code class="fw-totp-secret">([A-Z2-7]+)<\/code>/.exec(setup.text)?.[1] ?? "";
      expect(setup.text).toMatch(/<img class="fw-qr" src="data:image\/png;base64,[A-Za-z0-9+/=]+"/);
      const confirmed = await client.submit("/account", { code: await codeOf(secret) }, { action: "/account/two-step/confirm" });
      expect(confirmed.status, confirmed.summary()).toBe(200);
      const codes = [...confirmed.text.matchAll(/<li><code>([a-z2-9]{5}-[a-z2-9]{5})<\/code><\/li>/g)].map((m) => m[1] as string);
      return { email, client, secret, codes };
    }

    it("turned on from /account: the password asked, a QR code and key, confirmed by a first code; ten recovery codes shown once, kept hashed", async () => {
      const email = `on-${++emails}@example.com`;
      const user = await seedUser(users, email, PASSWORD);
      const client = new TestClient(app.served.url);
      await client.signIn(email, PASSWORD);
      const refused = await client.submit("/account", { current: "not the password at all" }, { action: "/account/two-step" });
      expect(refused.status).toBe(422);
      const setup = await client.submit("/account", { current: PASSWORD }, { action: "/account/two-step" });
      const secret = /<code class="fw-totp-secret">([A-Z2-7]+)<\/code>/.exec(setup.text)?.[1] ?? "";
      expect(secret.length).toBeGreaterThanOrEqual(32);
      // A wrong first code turns nothing on.
      const wrong = await client.submit("/account", { code: "000000" === (await codeOf(secret)) ? "111111" : "000000" }, { action: "/account/two-step/confirm" });
      expect(wrong.status).toBe(422);
      expect(wrong.text).toContain("The code is wrong");
      expect((await users.secondFactors?.().get(user.id))?.enabled).toBe(false);
      const confirmed = await client.submit("/account", { code: await codeOf(secret) }, { action: "/account/two-step/confirm" });
      const codes = [...confirmed.text.matchAll(/<li><code>([a-z2-9]{5}-[a-z2-9]{5})<\/code><\/li>/g)].map((m) => m[1]);
      expect(codes).toHaveLength(RECOVERY_CODES);
      const record = await users.secondFactors?.().get(user.id);
      expect(record?.enabled).toBe(true);
      expect(JSON.stringify(record)).not.toContain(codes[0]?.replace("-", ""));
      const page = (await client.get("/account")).text;
      expect(page).toContain("10 recovery codes left");
      expect(page).not.toContain(codes[0]);
      await expect.poll(async () => (await readMailbox(app.mailbox)).some((mail) => mail.to.includes(email) && mail.subject === "Two-step sign-in is on")).toBe(true);
    });

    it("sign-in asks for the code after the password; until then the session is nobody's; a code is used once", async () => {
      const { email, secret } = await withSecondFactor();
      const browser = new TestClient(app.served.url);
      const password = await browser.submit("/login", { email, password: PASSWORD });
      expect([password.status, password.location]).toEqual([303, "/login/code"]);
      expect(await who(browser)).toBe("signed out");
      expect((await browser.get("/mine")).status).toBe(303);
      const wrong = await browser.submit("/login/code", { code: "12345" });
      expect(wrong.status).toBe(422);
      const code = await codeOf(secret, 1); // the next step: the confirmation used this one
      const signed = await browser.submit("/login/code", { code });
      expect([signed.status, signed.location]).toEqual([303, "/"]);
      expect(await who(browser)).toBe(email);
      // The same code again, within its window, from another browser: refused.
      const other = new TestClient(app.served.url);
      await other.submit("/login", { email, password: PASSWORD });
      const again = await other.submit("/login/code", { code });
      expect(again.status).toBe(422);
      expect(again.text).toContain("This code was used already");
      expect(await who(other)).toBe("signed out");
    });

    it("a recovery code signs in once", async () => {
      const { email, codes } = await withSecondFactor();
      const browser = new TestClient(app.served.url);
      await browser.submit("/login", { email, password: PASSWORD });
      expect((await browser.submit("/login/code", { code: (codes[3] as string).toUpperCase() })).location).toBe("/");
      expect(await who(browser)).toBe(email);
      const other = new TestClient(app.served.url);
      await other.submit("/login", { email, password: PASSWORD });
      expect((await other.submit("/login/code", { code: codes[3] as string })).status).toBe(422);
      expect((await browser.get("/account")).text).toContain(`${RECOVERY_CODES - 1} recovery codes left`);
    });

    it(`codes are limited as passwords are: past ${PER_ACCOUNT_AND_ADDRESS.attempts} from one address for one account, 429 even for the right one`, async () => {
      const { email, codes } = await withSecondFactor();
      const browser = new TestClient(app.served.url);
      await browser.submit("/login", { email, password: PASSWORD });
      for (let i = 0; i < PER_ACCOUNT_AND_ADDRESS.attempts; i++) expect((await browser.submit("/login/code", { code: `abcde-fgh${i}k` })).status).toBe(422);
      const limited = await browser.submit("/login/code", { code: codes[0] as string });
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(await who(browser)).toBe("signed out");
      // The recovery code was not spent by the refused attempt.
      expect((await users.secondFactors?.().get((await users.byEmail(email))?.id ?? 0))?.recoveryHashes).toHaveLength(RECOVERY_CODES);
    });

    it("turning it off asks for a code: a wrong one changes nothing; then the password alone signs in", async () => {
      const { email, client, secret } = await withSecondFactor();
      const wrong = await client.submit("/account", { code: "999999" === (await codeOf(secret, 1)) ? "888888" : "999999" }, { action: "/account/two-step/disable" });
      expect(wrong.status).toBe(422);
      expect((await client.get("/account")).text).toContain("Turn off two-step sign-in");
      const off = await client.submit("/account", { code: await codeOf(secret, 1) }, { action: "/account/two-step/disable" });
      expect([off.status, off.location]).toEqual([303, "/account"]);
      const browser = new TestClient(app.served.url);
      expect((await browser.submit("/login", { email, password: PASSWORD })).location).toBe("/");
      expect(await who(browser)).toBe(email);
    });

    it("a reset by mail does not remove it: the new password leads to the code page, not a signed-in session", async () => {
      const { email, codes } = await withSecondFactor();
      const browser = new TestClient(app.served.url);
      await browser.submit("/password/forgot", { email });
      let link: string | undefined;
      await expect
        .poll(async () => {
          const mail = (await readMailbox(app.mailbox)).find((m) => m.to.includes(email) && m.subject === "Choose a new password");
          link = mail === undefined ? undefined : /href="https:\/\/shop\.example([^"]+)"/.exec(mail.html)?.[1]?.replaceAll("&amp;", "&");
          return link;
        })
        .toBeDefined();
      await browser.get(link as string);
      const reset = await browser.submit("/password/reset", { password: NEW_PASSWORD });
      expect([reset.status, reset.location]).toEqual([303, "/login/code"]);
      expect(await who(browser)).toBe("signed out");
      expect((await browser.submit("/login/code", { code: codes[0] as string })).location).toBe("/");
      expect(await who(browser)).toBe(email);
      expect((await users.secondFactors?.().get((await users.byEmail(email))?.id ?? 0))?.enabled).toBe(true);
    });

    it("the code page without a password first, or with a tampered waiting entry, sends to sign in", async () => {
      const browser = new TestClient(app.served.url);
      expect((await browser.get("/login/code")).location).toBe("/login");
      const page = await browser.get("/login");
      const csrf = page.forms()[0]?.fields["_csrf"] ?? "";
      expect((await browser.post("/login/code", { _csrf: csrf, code: "123456" })).location).toBe("/login");
    });
  });
}

secondFactorSuite("InMemoryUsers", async () => new InMemoryUsers());

let tables = 0;
onEveryEngine((engine) => {
  secondFactorSuite(`SqlUsers on ${engine.name}`, async () => {
    const table = `second_factor_users_${++tables}`;
    await engine.db().script(`DROP TABLE IF EXISTS fw_second_factors; ${usersTableSql(table)}`);
    return new SqlUsers(engine.db(), { table });
  });
});
