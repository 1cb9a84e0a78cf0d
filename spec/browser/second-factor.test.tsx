import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generate } from "otplib";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { formSignIn, InMemoryUsers, seedUser } from "../../runtime/auth/index.js";
import { assembleTable, Ok, Route, type Layout } from "../../runtime/index.js";
import { Mailer, MailboxTransport } from "../../runtime/mail/index.js";
import { CHROMIUM_ARGS } from "../support/chromium.js";
import { serve, type Served } from "../support/serve.js";

// Issue 42, item 3, in Chromium: setting up two-step sign-in on /account (the QR code is a data:
// PNG the page's CSP lets load), then signing in with the password and the code typed into the
// code form. The flows' HTTP cases (reuse, limits, recovery codes, reset) are spec/auth/second-factor.test.tsx.
const found = inject("chromium");
const CHROMIUM = "path" in found ? found.path : undefined;
const PASSWORD = "plum orbit velvet 9271";
const EMAIL = "browser@example.com";

let browser: Browser | undefined;
let app: Served | undefined;
let mailbox = "";

beforeAll(async () => {
  if (CHROMIUM === undefined) return; // skipped below
  mailbox = mkdtempSync(join(tmpdir(), "fw-second-factor-browser-"));
  const users = new InMemoryUsers();
  await seedUser(users, EMAIL, PASSWORD);
  const mailer = new Mailer({ from: "Shop <no-reply@shop.example>", transport: new MailboxTransport(mailbox) });
  const auth = formSignIn({ users, mailer });
  const layout: Layout = async ({ title, content, request }) => (
    <html lang="en">
      <head>
        <title>{title ?? "shop"}</title>
      </head>
      <body>
        <p id="who">{(await auth.userOf(request))?.email ?? "signed out"}</p>
        {content}
      </body>
    </html>
  );
  const routes = assembleTable([auth.guarded()], [Route.get("/", () => Ok(<p>home</p>))]);
  [app, browser] = await Promise.all([serve({ routes, layout, parts: [mailer], origin: "http://127.0.0.1", allowedHosts: ["*"] }), chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })]);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  // Mail is sent after the answer: give the last one its moment before the folder goes.
  await new Promise((done) => setTimeout(done, 300));
  if (mailbox !== "") rmSync(mailbox, { recursive: true, force: true });
});

describe.skipIf(CHROMIUM === undefined)(`two-step sign-in in Chromium${CHROMIUM === undefined ? ` (skipped: ${"reason" in found ? found.reason : ""})` : ""}`, () => {
  it("set up from /account with the QR code, then sign in: password, then the code typed into the code form", async () => {
    const page = await (browser as Browser).newPage();
    const violations: string[] = [];
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    const url = (app as Served).url;
    await page.goto(`${url}/login`);
    await page.fill("#login-email", EMAIL);
    await page.fill("#login-password", PASSWORD);
    await Promise.all([page.waitForURL(`${url}/`), page.click("form[action='/login'] button")]);
    await page.goto(`${url}/account`);
    await page.fill("#begin-second-factor-current", PASSWORD);
    await page.click("form[action='/account/two-step'] button");
    await page.locator("img.fw-qr").waitFor();
    // The QR code is drawn (a 200-pixel PNG from a data: URL, which the CSP's img-src allows).
    expect(await page.locator("img.fw-qr").evaluate((img) => (img as unknown as { complete: boolean; naturalWidth: number }).complete && (img as unknown as { naturalWidth: number }).naturalWidth)).toBeGreaterThan(100);
    const secret = (await page.locator(".fw-totp-secret").textContent()) ?? "";
    await page.fill("#confirm-second-factor-code", await generate({ secret }));
    await page.click("form[action='/account/two-step/confirm'] button");
    // The page is at /account already: wait for the answer's codes, not for a load.
    await page.locator(".fw-recovery-codes li").first().waitFor();
    expect(await page.locator(".fw-recovery-codes li").count()).toBe(10);

    // A new browser context: sign in with the password, then the code (the next step's: this one was used to confirm).
    const context = await (browser as Browser).newContext();
    const other = await context.newPage();
    await other.goto(`${url}/login`);
    await other.fill("#login-email", EMAIL);
    await other.fill("#login-password", PASSWORD);
    await Promise.all([other.waitForURL(`${url}/login/code`), other.click("form[action='/login'] button")]);
    expect(await other.locator("#who").textContent()).toBe("signed out");
    expect(await other.locator("#second-factor-code").getAttribute("autocomplete")).toBe("one-time-code");
    await other.fill("#second-factor-code", await generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 }));
    await Promise.all([other.waitForURL(`${url}/`), other.click("form[action='/login/code'] button")]);
    expect(await other.locator("#who").textContent()).toBe(EMAIL);
    expect(violations).toEqual([]);
    await context.close();
  });
});
