import type { Browser, Page } from "playwright-core";
import { expect } from "vitest";

/** The password every user the browser tests sign up with has. */
export const PASSWORD = "correct horse battery";

/** A fresh browser context (its own cookies): one per user; `javaScriptEnabled: false` for a browser without scripts. */
export async function newPage(browser: Browser | undefined, options: { javaScriptEnabled?: boolean } = {}): Promise<Page> {
  if (browser === undefined) throw new Error("no browser: beforeAll did not launch one");
  const context = await browser.newContext(options);
  return context.newPage();
}

/** Opens `base + path` and answers the status of the page it landed on (after redirects). */
export async function visitAt(base: string, page: Page, path: string): Promise<number> {
  const response = await page.goto(base + path);
  return response?.status() ?? 0;
}

/**
 * Clicks something that submits a form and waits until the browser shows the page the
 * submission landed on (after any redirect); answers that page's status.
 */
export async function submit(page: Page, selector: string): Promise<number> {
  const landed = page.waitForResponse(
    (response) => response.request().isNavigationRequest() && response.frame() === page.mainFrame() && (response.status() < 300 || response.status() >= 400),
  );
  const navigated = page.waitForEvent("framenavigated", { predicate: (frame) => frame === page.mainFrame() });
  await page.click(selector);
  const [response] = await Promise.all([landed, navigated]);
  await page.waitForLoadState("load");
  return response.status();
}

/** The path and query the page shows. */
export const path = (page: Page): string => new URL(page.url()).pathname + new URL(page.url()).search;

/**
 * Signs a new user up through the example's form, then in (sign-up never signs in: it would
 * tell which emails exist); lands on the home page, signed in. Answers the email.
 */
export async function signUp(base: string, page: Page, name: string): Promise<string> {
  const email = `${name}@example.test`; // the app is fresh for each file
  await visitAt(base, page, "/signup");
  await page.fill("#signup-email", email);
  await page.fill("#signup-password", PASSWORD);
  expect(await submit(page, "form.fw-auth button[type=submit]")).toBe(200);
  expect(path(page)).toBe("/login");
  await page.fill("#login-email", email);
  await page.fill("#login-password", PASSWORD);
  expect(await submit(page, "form.fw-auth button[type=submit]")).toBe(200);
  expect(path(page)).toBe("/");
  expect(await page.textContent(".signed-in")).toBe(email);
  return email;
}
