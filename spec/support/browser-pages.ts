import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import { expect } from "vitest";
import { waitForMail } from "../../runtime/testing/mailbox.js";
import { TEST_MAILBOX } from "./serve.js";

/** The password every user the browser tests sign up with has. */
export const PASSWORD = "correct horse battery";

/**
 * Every Content-Security-Policy violation a page made by `newPage` reported in this test file, one
 * line each: from the page's `securitypolicyviolation` events and from Chromium's console, which
 * reports them also for a page with scripts off.
 */
export const cspViolations: string[] = [];

/**
 * Records a context's CSP violations into `cspViolations`. The listener is an init script and the
 * report a binding: both are the browser's own, so the page's policy does not stop them.
 */
export async function watchCsp(context: BrowserContext): Promise<void> {
  await context.exposeBinding("fwCspViolation", (_source, line: string) => void cspViolations.push(line));
  // Page code as text: these files are checked without the DOM's types.
  await context.addInitScript(`document.addEventListener("securitypolicyviolation", (event) => {
    window.fwCspViolation(event.effectiveDirective + " refused " + (event.blockedURI || "an inline script or style") + " on " + event.documentURI + " (" + event.sourceFile + ":" + event.lineNumber + ")");
  });`);
  context.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) cspViolations.push(`console: ${message.text()}`);
  });
}

/**
 * Whether the page runs under a policy that refuses an inline script: adds one and answers the
 * directive the browser reports refusing it (undefined if it ran). Proves the policy is in force,
 * and that `watchCsp` would have seen a violation (the report also lands in `cspViolations`).
 */
export async function refusedInlineScript(page: Page): Promise<string | undefined> {
  const refused: unknown = await page.evaluate(`new Promise((resolve) => {
    document.addEventListener("securitypolicyviolation", (event) => resolve(event.effectiveDirective), { once: true });
    document.addEventListener("fw-inline-ran", () => resolve(undefined), { once: true });
    const script = document.createElement("script");
    script.textContent = "document.dispatchEvent(new Event('fw-inline-ran'))";
    document.body.append(script);
  })`);
  return typeof refused === "string" ? refused : undefined;
}

/** A fresh browser context (its own cookies): one per user; `javaScriptEnabled: false` for a browser without scripts. CSP violations are recorded (`cspViolations`). */
export async function newPage(browser: Browser | undefined, options: { javaScriptEnabled?: boolean } = {}): Promise<Page> {
  if (browser === undefined) throw new Error("no browser: beforeAll did not launch one");
  const context = await browser.newContext(options);
  await watchCsp(context);
  return context.newPage();
}

/** Opens `base + path` and answers the status of the page it landed on (after redirects). */
export async function visitAt(base: string, page: Page, path: string): Promise<number> {
  const response = await page.goto(base + path);
  return response?.status() ?? 0;
}

/**
 * Clicks something that submits a form and waits until the browser shows the page the
 * submission landed on (after any redirect); answers that page's status. A form with a file
 * field, enhanced by fw's upload script (JavaScript on), is sent by XMLHttpRequest and its
 * answer written into the page, without a navigation: then it waits for that (`submitUpload`).
 */
export async function submit(page: Page, selector: string): Promise<number> {
  if (await enhancedUpload(page.locator(selector))) return submitUpload(page, selector);
  const landed = page.waitForResponse(
    (response) => response.request().isNavigationRequest() && response.frame() === page.mainFrame() && (response.status() < 300 || response.status() >= 400),
  );
  const navigated = page.waitForEvent("framenavigated", { predicate: (frame) => frame === page.mainFrame() });
  await page.click(selector);
  const [response] = await Promise.all([landed, navigated]);
  await page.waitForLoadState("load");
  return response.status();
}

/** Whether `target` submits a form fw's upload script took over (`data-fw-uploading="ready"`). */
async function enhancedUpload(target: Locator): Promise<boolean> {
  // Page code as a function made here (these files are checked without the DOM's types).
  const check = new Function("element", 'const form = element.closest("form[data-fw-upload]"); return form !== null && form.getAttribute("data-fw-uploading") === "ready";') as (element: unknown) => boolean;
  return target.evaluate(check);
}

/**
 * Submits a form fw's upload script sends (XMLHttpRequest, a `<progress>` beside the button) and
 * waits until the script has written the answer into the page (the page it redirected to, or the
 * form with its problems) and put its address in the address bar; answers the answer's status.
 */
export async function submitUpload(page: Page, selector: string): Promise<number> {
  // A mark on the page the answer replaces: gone once the script has written the new one.
  await page.evaluate("document.documentElement.dataset.fwSent = 'yes'");
  const answered = page.waitForResponse((response) => response.request().resourceType() === "xhr" && (response.status() < 300 || response.status() >= 400));
  await page.click(selector);
  const response = await answered;
  await waitUntil(page, "document.documentElement.dataset.fwSent === undefined && document.readyState === 'complete'");
  return response.status();
}

/** The path and query the page shows. */
export const path = (page: Page): string => new URL(page.url()).pathname + new URL(page.url()).search;

/**
 * Signs a new user up through the example's form, then follows the confirmation link it mailed
 * and confirms (sign-up never signs in: it would tell which emails exist; the link does); lands
 * on the home page, signed in. Answers the email.
 */
export async function signUp(base: string, page: Page, name: string): Promise<string> {
  const email = `${name}@example.test`; // the app is fresh for each file
  await visitAt(base, page, "/signup");
  await page.fill("#signup-email", email);
  await page.fill("#signup-password", PASSWORD);
  expect(await submit(page, "form.fw-auth:not(.fw-passkey) button[type=submit]")).toBe(200);
  expect(path(page)).toBe("/login");
  // The sign-in page's passkey script asks for a challenge as it loads (POST /login/passkey/options,
  // for the autofill's passkeys). Its answer once wrote the session cookie from the session it was
  // sent with, so leaving the page before it landed lost the confirmation link's stash; the
  // challenge now has a cookie of its own (spec/auth/passkey-challenge.test.tsx holds the race).
  // A person reads their mail first: the test still waits until the page is done asking.
  await page.waitForLoadState("networkidle");
  // The example confirms emails: the link it mailed (read from the test's mailbox) makes the account and signs in.
  const mail = await waitForMail(TEST_MAILBOX, { to: email, subject: "Confirm your email" });
  const link = new URL(mail.links.find((href) => href.includes("token=")) ?? "");
  expect(await visitAt(base, page, link.pathname + link.search)).toBe(200);
  expect(path(page)).toBe("/confirm");
  // Every request the page makes and every answer it gets while confirming, said when it fails:
  // on a loaded machine POST /confirm met the dead-link page (the token taken already) about once
  // in three full runs, and whether the browser sent the form twice is the first thing to know.
  const seen: string[] = [];
  const request = (sent: { method(): string; url(): string }) => seen.push(`${sent.method()} ${sent.url()}`);
  const response = (got: { status(): number; url(): string }) => seen.push(`  ${got.status()} ${got.url()}`);
  page.on("request", request);
  page.on("response", response);
  const confirmed = await submit(page, "form.fw-auth:not(.fw-passkey) button[type=submit]");
  page.off("request", request);
  page.off("response", response);
  expect(confirmed, `POST /confirm answered ${confirmed} at ${path(page)} after ${seen.join("; ")}: ${(await page.textContent("body")) ?? ""}`).toBe(200);
  expect(path(page)).toBe("/");
  expect(await page.textContent(".signed-in")).toBe(email);
  return email;
}

/**
 * Waits until the JavaScript `expression` is true in the page. Playwright's `waitForFunction`
 * runs its predicate's text through the page's `eval`, which the page's Content-Security-Policy
 * refuses except on DevTools' own stack: the first check. A string is evaluated on every poll (so
 * a wait that polls fails, flakily); a function is evaluated once and then called. Hence a
 * function, made from the expression here (a string that spells a function would be taken as a
 * value, always truthy).
 */
export async function waitUntil(page: Page, expression: string): Promise<void> {
  // Node's Function constructor: test code, never the page's.
  const predicate = new Function(`return (${expression});`) as () => unknown;
  await page.waitForFunction(predicate);
}
