import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { bootExample } from "../support/example.js";
import { CHROMIUM_ARGS } from "../support/chromium.js";
import { waitForMail } from "../../runtime/testing/mailbox.js";
import { PRODUCTION_ENV, TEST_MAILBOX } from "../support/serve.js";
import { cspViolations, newPage as pageIn, path, PASSWORD, refusedInlineScript, signUp as signUpAt, submit, visitAt } from "../support/browser-pages.js";

// The example as `npm start` builds it (npm test builds first), driven as a user would in
// headless Chromium: the one spec/support/chromium-setup.ts found (or installed) and checked.
// Without one the file is skipped, as that setup said in one line. One browser for the file.
const found = inject("chromium");
const CHROMIUM = "path" in found ? found.path : undefined;
const SHOTS = resolve("spec/.artifacts/screenshots");

let app: ReturnType<typeof bootExample> | undefined;
let url: string;
let browser: Browser | undefined;

beforeAll(async () => {
  if (CHROMIUM === undefined) return; // skipped below
  mkdirSync(SHOTS, { recursive: true });
  app = bootExample([], { ...PRODUCTION_ENV });
  [url, browser] = await Promise.all([app.url, chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })]);
});

afterAll(async () => {
  await browser?.close();
  app?.child.kill("SIGTERM");
  await app?.exited;
});

/** A fresh browser context (its own cookies): one per user. */
const newPage = (): Promise<Page> => pageIn(browser);
const visit = (page: Page, where: string): Promise<number> => visitAt(url, page, where);
const signUp = (page: Page, name: string): Promise<string> => signUpAt(url, page, name);
const shot = (page: Page, name: string): Promise<Buffer> => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

describe.skipIf(CHROMIUM === undefined)("The example in a real browser (headless Chromium)", () => {
  let alice: Page;
  let bob: Page;
  let alicesEmail: string;
  let bobsEmail: string;
  let postPath: string;

  it("two users sign up through the form and each sees themself signed in", async () => {
    alice = await newPage();
    bob = await newPage();
    alicesEmail = await signUp(alice, "alice");
    bobsEmail = await signUp(bob, "bob");
    expect(await alice.textContent(".signed-in")).toBe(alicesEmail);
    expect(await bob.textContent(".signed-in")).toBe(bobsEmail);
    await expect(alice.getByRole("button", { name: "Sign out" }).isVisible()).resolves.toBe(true);
    await shot(alice, "home");
  });

  it("the about page and the docs catch-all show, the rest path escaped", async () => {
    expect(await visit(alice, "/about")).toBe(200);
    expect(await alice.textContent("h1")).toBe("About this example");
    expect(await visit(alice, "/docs/guide/%3Cb%3Ebold%3C%2Fb%3E")).toBe(200);
    expect(await alice.textContent(".docs-path")).toBe("guide/<b>bold</b>");
    expect(await alice.locator(".docs-path b").count()).toBe(0); // shown as text, never as markup
  });

  it("creates a post through the form: the flash shows once and the post is on the index", async () => {
    await visit(alice, "/posts/new");
    await alice.fill("#post-title", "First light");
    await alice.fill("#post-body", "Written in a real browser.");
    await alice.check("#post-published");
    await alice.selectOption("#post-category", "news");
    expect(await submit(alice, "form.fw-form button[type=submit]")).toBe(200);
    postPath = path(alice);
    expect(postPath).toMatch(/^\/posts\/\d+$/);
    expect(await alice.textContent(".flash")).toBe("Post created.");
    expect(await alice.textContent("main")).toContain("Written in a real browser.");
    expect(await visit(alice, postPath)).toBe(200);
    expect(await alice.locator(".flash").count()).toBe(0); // once only
    expect(await visit(alice, "/posts")).toBe(200);
    await expect(alice.getByRole("link", { name: "First light" }).or(alice.getByText("First light")).first().isVisible()).resolves.toBe(true);
    await shot(alice, "posts-index");
  });

  it("a validation error keeps what was typed and shows the message beside the field", async () => {
    await visit(alice, `${postPath}/edit`);
    await alice.fill("#post-title", "");
    await alice.fill("#post-body", "Typed, then kept.");
    await alice.fill("#post-summary", "a summary <kept>");
    expect(await submit(alice, "form.fw-form button[type=submit]")).toBe(422);
    expect(await alice.inputValue("#post-body")).toBe("Typed, then kept.");
    expect(await alice.inputValue("#post-summary")).toBe("a summary <kept>");
    expect(await alice.inputValue("#post-category")).toBe("news");
    const error = alice.locator(".fw-field:has(#post-title) .fw-field-error");
    expect(await error.textContent()).toMatch(/Title is required/);
    expect(await alice.getAttribute("#post-title", "aria-invalid")).toBe("true");
    await shot(alice, "post-form-error");
  });

  it("edits the post: the browser sends POST with _method=PUT and shows the change", async () => {
    await visit(alice, `${postPath}/edit`);
    expect(await alice.getAttribute("form.fw-form", "method")).toBe("post");
    expect(await alice.inputValue("form.fw-form input[name=_method]")).toBe("PUT");
    await alice.fill("#post-title", "First light, revised");
    expect(await submit(alice, "form.fw-form button[type=submit]")).toBe(200);
    expect(path(alice)).toBe(postPath);
    expect(await alice.textContent(".flash")).toMatch(/updated/i);
    expect(await alice.textContent("main")).toContain("First light, revised");
  });

  it("the other user sees the public post, no edit controls, and 403 on editing it", async () => {
    expect(await visit(bob, "/posts")).toBe(200);
    expect(await bob.textContent("main")).toContain("First light, revised");
    expect(await visit(bob, postPath)).toBe(200);
    expect(await bob.textContent("main")).toContain("First light, revised");
    expect(await bob.locator(".fw-edit").count()).toBe(0);
    expect(await bob.locator(".fw-destroy").count()).toBe(0);
    await visit(alice, postPath);
    expect(await alice.locator(".fw-edit").count()).toBe(1); // the author does see them
    expect(await visit(bob, `${postPath}/edit`)).toBe(403);
    expect(await bob.textContent("h1")).toContain("403");
    expect(await bob.locator("form.fw-form").count()).toBe(0);
  });

  it("the other user comments from the post's page: 'Add a comment' opens the form with the post chosen, and the comment, once written, is listed on the post's page", async () => {
    expect(await visit(bob, postPath)).toBe(200);
    expect(await bob.textContent("#comments h2")).toBe("Comments");
    expect(await bob.textContent("#comments .fw-empty")).toBe("No comments yet.");
    expect(await submit(bob, "#comments a.fw-new")).toBe(200);
    expect(path(bob)).toBe(`/comments/new?post=${postPath.slice("/posts/".length)}`);
    expect(await bob.inputValue("#comment-post")).toBe(postPath.slice("/posts/".length));
    expect(await bob.locator("#comment-post option:checked").textContent()).toBe("First light, revised");
    await bob.fill("#comment-body", "Lovely light, <i>truly</i>.");
    expect(await submit(bob, "form.fw-form button[type=submit]")).toBe(200);
    expect(path(bob)).toMatch(/^\/comments\/\d+$/);
    expect(await bob.textContent(".flash")).toBe("Comment created.");
    // The comment's page links its post by title: back there, the comment is listed (as text, never markup).
    expect(await submit(bob, `.fw-show a[href="${postPath}"]`)).toBe(200);
    expect(path(bob)).toBe(postPath);
    expect(await bob.locator("#comments tbody tr").count()).toBe(1);
    expect(await bob.locator("#comments tbody td").first().textContent()).toBe("Lovely light, <i>truly</i>.");
    expect(await bob.locator("#comments i").count()).toBe(0);
    await shot(bob, "post-with-comment");
  });

  it("deletes the post after a confirm page (POST with _method=DELETE): back on the index with a flash, the post gone", async () => {
    await visit(alice, postPath);
    expect(await submit(alice, "a.fw-destroy")).toBe(200);
    expect(path(alice)).toBe(`${postPath}/delete`);
    expect(await alice.textContent(".fw-cascade")).toBe("Its 1 comment will be deleted too.");
    expect(await submit(alice, "form.fw-destroy button[type=submit]")).toBe(200);
    expect(path(alice)).toBe("/posts");
    expect(await alice.textContent(".flash")).toMatch(/deleted/i);
    expect(await alice.textContent("main")).not.toContain("First light");
    expect(await visit(alice, postPath)).toBe(404);
  });

  it("a signed-out visit to /posts/new lands on login and returns there after signing in", async () => {
    const visitor = await newPage();
    expect(await visit(visitor, "/posts/new")).toBe(200);
    expect(path(visitor)).toBe("/login?next=%2Fposts%2Fnew");
    await visitor.fill("#login-email", alicesEmail);
    await visitor.fill("#login-password", PASSWORD);
    expect(await submit(visitor, "form.fw-auth:not(.fw-passkey) button[type=submit]")).toBe(200);
    expect(path(visitor)).toBe("/posts/new");
    expect(await visitor.textContent(".signed-in")).toBe(alicesEmail);
    expect(await visitor.locator("#post-title").isVisible()).toBe(true);
  });

  it("the 404 page is framed by the layout", async () => {
    expect(await visit(bob, "/no/such/page")).toBe(404);
    expect(await bob.textContent("h1")).toContain("404");
    expect(await bob.locator("header nav a[href='/posts']").count()).toBe(1);
    expect(await bob.title()).toContain("fw example");
  });

  it("two users on /chat exchange messages over the live page's socket, each prefixed with the sender's email", async () => {
    for (const page of [alice, bob]) {
      expect(await visit(page, "/chat")).toBe(200);
      // The chat is a live page (fw/live): its client marks the root once its socket is open.
      await page.waitForSelector("[data-fw-live][data-fw-status=open]");
    }
    // Each hears its own hello: then both are surely in the room.
    await say(alice, "alice is here");
    await waitForLine(alice, `${alicesEmail}: alice is here`);
    await say(bob, "bob is here");
    await waitForLine(bob, `${bobsEmail}: bob is here`);
    await say(alice, "hello, <b>bob</b>");
    await waitForLine(bob, `${alicesEmail}: hello, <b>bob</b>`);
    await say(bob, "hi alice");
    await waitForLine(alice, `${bobsEmail}: hi alice`);
    expect(await bob.locator("#chat-messages b").count()).toBe(0); // text, never markup
    await shot(alice, "chat");
  });

  it("bob forgot his password: 'Forgot your password?' mails a link; following it, the token leaves the address bar, a new password signs him in, and his other session is signed out", async () => {
    const phone = await newPage();
    expect(await visit(phone, "/login")).toBe(200);
    await phone.getByRole("link", { name: "Forgot your password?" }).click();
    await phone.waitForURL(`${url}/password/forgot`);
    await phone.fill("#forgot-email", bobsEmail);
    expect(await submit(phone, "form.fw-auth:not(.fw-passkey) button[type=submit]")).toBe(200);
    expect(path(phone)).toBe("/login");
    expect(await phone.textContent(".flash")).toContain("If an account has this email, we sent it a link");
    const mail = await waitForMail(TEST_MAILBOX, { to: bobsEmail, subject: "Choose a new password" });
    const link = new URL(mail.links.find((href) => href.includes("token=")) ?? "");
    expect(link.origin).toBe(PRODUCTION_ENV.FW_ORIGIN); // FW_ORIGIN, never the Host the request came by
    expect(await visit(phone, link.pathname + link.search)).toBe(200);
    expect(path(phone)).toBe("/password/reset"); // the token is out of the address bar (and history)
    await phone.fill("#reset-password", "short");
    expect(await submit(phone, "form.fw-auth:not(.fw-passkey) button[type=submit]")).toBe(422);
    expect(await phone.textContent(".fw-field-error")).toBe("Password must be at least 12 characters long.");
    await phone.fill("#reset-password", "granite lantern 4471 ferry");
    expect(await submit(phone, "form.fw-auth:not(.fw-passkey) button[type=submit]")).toBe(200);
    expect(path(phone)).toBe("/");
    expect(await phone.textContent(".signed-in")).toBe(bobsEmail);
    expect(await phone.textContent(".flash")).toContain("Your password is changed");
    expect(await visit(bob, "/")).toBe(200);
    expect(await bob.locator(".signed-in").count()).toBe(0); // his other session ended
    // Used once: the link again says so.
    expect(await visit(phone, link.pathname + link.search)).toBe(400);
    expect(await phone.textContent("h1")).toBe("This link does not work");
    await shot(phone, "password-reset");
  });

  it("every page above (forms, flashes, problem pages, the live chat) ran under the Content-Security-Policy without one violation", async () => {
    expect(cspViolations).toEqual([]);
    const response = await bob.goto(url + "/");
    expect(response?.headers()["content-security-policy"]).toContain("default-src 'self';");
    expect(await refusedInlineScript(bob)).toBe("script-src-elem"); // in force: an injected script would not run
  });
});

async function say(page: Page, text: string): Promise<void> {
  await page.fill("#chat-text", text);
  await page.click("#chat-form button[type=submit]");
}

async function waitForLine(page: Page, line: string): Promise<void> {
  await page.locator("#chat-messages li", { hasText: line }).first().waitFor();
  expect(await page.locator("#chat-messages li").allTextContents()).toContain(line);
}
