import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { bootExample } from "../support/example.js";
import { CHROMIUM_ARGS } from "../support/chromium.js";
import { PRODUCTION_ENV } from "../support/serve.js";
import { cspViolations, newPage as pageIn, path, refusedInlineScript, signUp as signUpAt, submit, visitAt, waitUntil } from "../support/browser-pages.js";

// Issue 23 in a real browser: the example's live pages (/posts, /chat, /notes/quick) as built by
// `npm run build`, driven in headless Chromium (the one spec/support/chromium-setup.ts found;
// without one the file is skipped, as that setup said). What each test checks is what the user
// sees: the page changes without a page load (a value set on `window` survives, and the main
// frame never navigates), and with JavaScript off the same pages still list and post.
const found = inject("chromium");
const CHROMIUM = "path" in found ? found.path : undefined;
const LIVE_OPEN = "[data-fw-live][data-fw-status=open]";

let app: ReturnType<typeof bootExample> | undefined;
let url: string;
let browser: Browser | undefined;

beforeAll(async () => {
  if (CHROMIUM === undefined) return; // skipped below
  app = bootExample([], { ...PRODUCTION_ENV });
  [url, browser] = await Promise.all([app.url, chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })]);
});

afterAll(async () => {
  await browser?.close();
  app?.child.kill("SIGTERM");
  await app?.exited;
});

/** A fresh browser context (its own cookies): one per user; `javaScriptEnabled: false` for a browser without scripts. */
const newPage = (options: { javaScriptEnabled?: boolean } = {}): Promise<Page> => pageIn(browser, options);
const visit = (page: Page, where: string): Promise<number> => visitAt(url, page, where);
const signUp = (page: Page, name: string): Promise<string> => signUpAt(url, page, name);

/** Opens a live page and waits until its socket is open (the client marks the root). */
async function visitLive(page: Page, path: string): Promise<void> {
  expect(await visit(page, path)).toBe(200);
  await page.waitForSelector(LIVE_OPEN);
}

/**
 * Marks the page as it is now: `stillSamePage()` answers whether it is the very same document
 * (no load happened since: a page load would drop the mark) and the main frame never navigated.
 */
async function markPage(page: Page): Promise<() => Promise<boolean>> {
  let navigations = 0;
  const count = (frame: unknown) => {
    if (frame === page.mainFrame()) navigations++;
  };
  page.on("framenavigated", count);
  const mark = `mark-${Math.random()}`;
  await page.evaluate((value) => {
    (globalThis as unknown as { fwTestMark: string }).fwTestMark = value;
  }, mark);
  return async () => {
    page.off("framenavigated", count);
    const kept = await page.evaluate(() => (globalThis as unknown as { fwTestMark?: string }).fwTestMark);
    return kept === mark && navigations === 0;
  };
}

/** Writes a post through the derived New page (a plain form post: the Post store publishes `posts`). */
async function writePost(page: Page, title: string, published = true): Promise<string> {
  await visit(page, "/posts/new");
  await page.fill("#post-title", title);
  await page.fill("#post-body", `The body of ${title}.`);
  if (published) await page.check("#post-published");
  await page.selectOption("#post-category", "news");
  expect(await submit(page, "form.fw-form button[type=submit]")).toBe(200);
  expect(path(page)).toMatch(/^\/posts\/\d+$/);
  return path(page);
}

const noteError = (page: Page) => page.locator(".fw-field:has(#note-text) .fw-field-error");

describe.skipIf(CHROMIUM === undefined)("The example's live pages in a real browser (headless Chromium)", () => {
  let alice: Page;
  let bob: Page;
  let alicesEmail: string;
  let bobsEmail: string;

  beforeAll(async () => {
    if (CHROMIUM === undefined) return;
    alice = await newPage();
    bob = await newPage();
    alicesEmail = await signUp(alice, "alice");
    bobsEmail = await signUp(bob, "bob");
  });

  it("the live page's first GET is the whole page through the layout, with the client's script and the socket's address", async () => {
    expect(await visit(bob, "/posts")).toBe(200);
    expect(await bob.title()).toBe("Posts · fw example");
    expect(await bob.getAttribute("[data-fw-live]", "data-fw-live")).toBe("/fw/live/posts.Index");
    expect(await bob.locator("script[src^='/fw/live.js?v=']").count()).toBe(1);
    await bob.waitForSelector(LIVE_OPEN);
    expect(await bob.locator("a.fw-new").getAttribute("href")).toBe("/posts/new"); // signed in: "New post"
  });

  it("click → the page updates without a load: a chat line sent by clicking Send shows on the page", async () => {
    await visitLive(alice, "/chat");
    const same = await markPage(alice);
    await alice.fill("#chat-text", "hello, <b>live</b>");
    await alice.click("#chat-form button[type=submit]");
    await alice.locator("#chat-messages li", { hasText: `${alicesEmail}: hello, <b>live</b>` }).waitFor();
    expect(await alice.locator("#chat-messages b").count()).toBe(0); // text, never markup
    expect(await same()).toBe(true);
  });

  it("Enter in the chat box sends the line and empties the box (a render answering a submit wins over the focused field)", async () => {
    await visitLive(alice, "/chat");
    await alice.fill("#chat-text", "sent with Enter");
    await alice.press("#chat-text", "Enter");
    await alice.locator("#chat-messages li", { hasText: `${alicesEmail}: sent with Enter` }).waitFor();
    await expect.poll(() => alice.inputValue("#chat-text")).toBe("");
    expect(await alice.evaluate("document.activeElement?.id")).toBe("chat-text"); // focus stays for the next line
  });

  it("two users on the live chat, and a client of the plain socket WS /chat/socket: every line reaches all of them", async () => {
    await visitLive(alice, "/chat");
    await visitLive(bob, "/chat");
    // Each hears its own hello first: then both pages surely listen to the topic.
    for (const [page, email] of [[alice, alicesEmail], [bob, bobsEmail]] as const) {
      await page.fill("#chat-text", `${email} is here`);
      await page.click("#chat-form button[type=submit]");
      await page.locator("#chat-messages li", { hasText: `${email}: ${email} is here` }).waitFor();
    }
    // Bob's page also opens the chat's plain socket (as the chat's old script did), in the page's own origin and session.
    await bob.evaluate(`(() => {
      const heard = [];
      const socket = new WebSocket(${JSON.stringify(url.replace(/^http/, "ws"))} + "/chat/socket");
      Object.assign(window, { plainSocket: socket, plainHeard: heard });
      socket.addEventListener("message", (event) => heard.push(String(event.data)));
    })()`);
    await waitUntil(bob, "window.plainSocket.readyState === WebSocket.OPEN");
    await alice.fill("#chat-text", "from the live page");
    await alice.click("#chat-form button[type=submit]");
    await bob.locator("#chat-messages li", { hasText: `${alicesEmail}: from the live page` }).waitFor();
    await waitUntil(bob, `window.plainHeard.includes(${JSON.stringify(`${alicesEmail}: from the live page`)})`);
    // A line sent on the plain socket reaches the live pages.
    await bob.evaluate(`window.plainSocket.send("from the plain socket")`);
    await alice.locator("#chat-messages li", { hasText: `${bobsEmail}: from the plain socket` }).waitFor();
    await bob.locator("#chat-messages li", { hasText: `${bobsEmail}: from the plain socket` }).waitFor();
  });

  it("the live form shows validation errors as you type, keeps what is typed in the focused field, and submits without a load", async () => {
    await visitLive(alice, "/notes/quick");
    const same = await markPage(alice);
    expect(await noteError(alice).count()).toBe(0);
    await alice.click("#note-text");
    await alice.keyboard.type("x");
    await alice.keyboard.press("Backspace"); // empty again: the required text is missing
    await noteError(alice).filter({ hasText: "Text is required." }).waitFor();
    expect(await alice.getAttribute("#note-text", "aria-invalid")).toBe("true");
    await alice.keyboard.type("Written live");
    await noteError(alice).waitFor({ state: "detached" });
    expect(await alice.inputValue("#note-text")).toBe("Written live"); // the re-renders never overwrote what was being typed
    expect(await alice.evaluate("document.activeElement && document.activeElement.id")).toBe("note-text");
    await alice.check("#note-pinned");
    await alice.click("form.fw-form button[type=submit]");
    await alice.locator(".saved", { hasText: "Saved: Written live" }).waitFor();
    expect(await alice.inputValue("#note-text")).toBe(""); // a fresh form for the next note
    expect(await same()).toBe(true);
    const saved = await alice.locator(".saved a").getAttribute("href");
    expect(saved).toMatch(/^\/notes\/\d+$/);
    expect(await visit(alice, saved as string)).toBe(200);
    expect(await alice.textContent("main")).toContain("Written live");
  });

  it("a live form submitted empty shows every problem at once and saves nothing", async () => {
    await visitLive(bob, "/notes/quick");
    await bob.click("form.fw-form button[type=submit]");
    await noteError(bob).filter({ hasText: "Text is required." }).waitFor();
    expect(await bob.locator(".saved").count()).toBe(0);
  });

  it("two browsers: a post written in one appears on the other's live /posts, without a load; drafts stay their author's", async () => {
    await visitLive(bob, "/posts");
    await visitLive(alice, "/posts");
    const bobSame = await markPage(bob);
    const writer = await alice.context().newPage();
    const shown = await writePost(writer, "Published while you watched");
    await bob.locator(`a[href='${shown}']`, { hasText: "Published while you watched" }).waitFor();
    await alice.locator(`a[href='${shown}']`, { hasText: "Published while you watched" }).waitFor();
    expect(await bob.locator(`a[href='${shown}/edit']`).count()).toBe(0); // not bob's: no Edit
    expect(await alice.locator(`a[href='${shown}/edit']`).count()).toBe(1); // alice's own page sees her Edit link
    // A draft: Alice's page shows it (marked), Bob's never does (his page refreshed too, as himself).
    const draft = await writePost(writer, "Alice's secret draft", false);
    await alice.locator(`a[href='${draft}']`).waitFor();
    expect(await alice.locator("li", { has: alice.locator(`a[href='${draft}']`) }).textContent()).toContain("(draft)");
    await writePost(writer, "Published after the draft");
    await bob.getByText("Published after the draft").waitFor();
    expect(await bob.locator(`a[href='${draft}']`).count()).toBe(0);
    expect(await bob.textContent("main")).not.toContain("secret draft");
    expect(await bobSame()).toBe(true);
    await writer.close();
  });

  it("JavaScript off: /posts lists the posts as links, and the live form still posts (422 with the problems, then 200 saved)", async () => {
    const page = await newPage({ javaScriptEnabled: false });
    expect(await visit(page, "/posts")).toBe(200);
    expect(await page.getAttribute("[data-fw-live]", "data-fw-status")).toBeNull(); // no client ran
    await expect(page.getByRole("link", { name: "Published while you watched" }).isVisible()).resolves.toBe(true);
    expect(await page.locator("a.fw-new").count()).toBe(0); // signed out: no "New post"
    expect(await page.textContent("main")).not.toContain("secret draft");

    expect(await visit(page, "/notes/quick")).toBe(200);
    expect(await page.getAttribute("form.fw-form", "action")).toBe("/notes/quick");
    expect(await submit(page, "form.fw-form button[type=submit]")).toBe(422);
    expect(await noteError(page).textContent()).toContain("Text is required.");
    await page.fill("#note-text", "Posted without JavaScript");
    expect(await submit(page, "form.fw-form button[type=submit]")).toBe(200);
    expect(path(page)).toBe("/notes/quick");
    expect(await page.textContent(".saved")).toContain("Saved: Posted without JavaScript");
    expect(await visit(page, "/notes")).toBe(200);
    expect(await page.textContent("main")).toContain("Posted without JavaScript");
  });

  it("the example killed and restarted on the same port: the pages reconnect, the form keeps what was typed, and both keep working", async () => {
    if (app === undefined) throw new Error("no app: beforeAll did not boot one");
    await visitLive(alice, "/notes/quick");
    await visitLive(bob, "/posts");
    const aliceSame = await markPage(alice);
    const bobSame = await markPage(bob);
    await alice.fill("#note-text", "Typed before the crash");

    const port = new URL(url).port;
    const database = app.database;
    app.child.kill("SIGKILL");
    await app.exited;
    await alice.waitForSelector("[data-fw-live]:not([data-fw-status=open])");
    await bob.waitForSelector("[data-fw-live]:not([data-fw-status=open])");

    app = bootExample([], { ...PRODUCTION_ENV, PORT: port }, { database });
    expect(await app.url).toBe(url);
    // The reconnection waits for the new server's boot: a hang guard, not a speed check.
    await alice.waitForSelector(LIVE_OPEN, { timeout: 60_000 });
    await bob.waitForSelector(LIVE_OPEN, { timeout: 60_000 });
    // What was typed before the crash is still in the form, and the new server saves it.
    await alice.click("form.fw-form button[type=submit]");
    await alice.locator(".saved", { hasText: "Saved: Typed before the crash" }).waitFor();

    // The form goes on working on the new server: its check as you type, then its save.
    await alice.fill("#note-text", "x");
    await alice.fill("#note-text", "");
    await noteError(alice).filter({ hasText: "Text is required." }).waitFor();
    await alice.fill("#note-text", "Saved after the restart");
    await alice.click("form.fw-form button[type=submit]");
    await alice.locator(".saved", { hasText: "Saved: Saved after the restart" }).waitFor();

    // And the posts page hears the new server's publishes.
    const writer = await alice.context().newPage();
    await writePost(writer, "Written after the restart");
    await bob.getByText("Written after the restart").waitFor();
    await writer.close();
    expect(await aliceSame()).toBe(true);
    expect(await bobSame()).toBe(true);
  });

  it("every live page above ran under the Content-Security-Policy without one violation, and the policy is in force", async () => {
    // fw/live's client (/fw/live.js), its sockets (connect-src, from default-src 'self'), the
    // morphing of rendered markup, the plain chat socket, the pages with scripts off: all allowed.
    expect(cspViolations).toEqual([]);
    const page = await newPage();
    const response = await page.goto(url + "/notes/quick");
    expect(response?.headers()["content-security-policy"]).toContain("script-src 'self';");
    await page.waitForSelector(LIVE_OPEN);
    expect(await refusedInlineScript(page)).toBe("script-src-elem"); // what an injected script would meet
  });
});
