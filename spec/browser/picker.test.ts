import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { FromPath, InMemoryDatabase, ScopedStore } from "../../runtime/index.js";
import { relationsSpecs, relationsTable, type RelationsStores } from "../resource/relations-app.js";
import { CHROMIUM_ARGS } from "../support/chromium.js";
import { serve, type Served } from "../support/serve.js";

// Issue 29: a reference with more than 100 readable rows is a search input; /fw/picker.js makes
// it search-as-you-type in a real browser, under a strict CSP (`script-src 'self'`: no inline
// script, no inline handler). The app is the hand-written one of spec/resource/relations-app.ts.
const found = inject("chromium");
const CHROMIUM = "path" in found ? found.path : undefined;

let browser: Browser | undefined;
let app: Served | undefined;
let stores: RelationsStores;
const authors = new Map<string, number>();

beforeAll(async () => {
  if (CHROMIUM === undefined) return; // skipped below
  const specs = relationsSpecs();
  const memory = new InMemoryDatabase();
  stores = { authors: memory.store(specs.author), posts: new ScopedStore(memory.store(specs.post), "owner", FromPath.int), comments: memory.store(specs.comment), reviews: memory.store(specs.review) };
  for (let n = 1; n <= 120; n++) {
    const name = `Writer ${String(n).padStart(3, "0")}`;
    authors.set(name, (await stores.authors.insert({ name })).id);
  }
  [app, browser] = await Promise.all([serve({ routes: relationsTable(specs, stores) }), chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })]);
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

describe.skipIf(CHROMIUM === undefined)("the reference picker's script in a browser", () => {
  it("suggests readable rows as one types, and sends the chosen one's key; the page's CSP allows only its own scripts", async () => {
    const context = await (browser as Browser).newContext({ extraHTTPHeaders: { "x-user": "1" } });
    const page = await context.newPage();
    const blocked: string[] = [];
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) blocked.push(message.text());
    });
    // The strictest policy a page of fw's may be served with: scripts from the app's origin alone.
    await page.route("**/posts/new", async (route) => {
      const response = await route.fetch();
      await route.fulfill({ response, headers: { ...response.headers(), "content-security-policy": "default-src 'self'; script-src 'self'" } });
    });
    await page.goto(`${(app as Served).url}/posts/new`);
    await page.fill("#post-title", "Picked in a browser");
    await page.fill("#post-author", "writer 04");
    // The datalist fills from /fw/pick/authors?q=writer%2004 (Writer 040 … 049).
    // (Locators, not page.evaluate: the CSP forbids the eval that a string evaluated in the page needs.)
    const options = page.locator("datalist option");
    await options.nth(9).waitFor({ state: "attached" });
    expect(await Promise.all([...Array(await options.count()).keys()].map((n) => options.nth(n).getAttribute("value")))).toEqual([...Array(10).keys()].map((n) => `Writer 04${n}`));
    // Taking a suggestion puts its label in the input; the form sends its key.
    await page.fill("#post-author", "Writer 047");
    await options.nth(1).waitFor({ state: "detached" });
    const sent: string[] = [];
    page.on("request", (request) => {
      if (request.method() === "POST") sent.push(request.postData() ?? "");
    });
    await Promise.all([page.waitForURL(/\/posts\/\d+$/), page.click("button[type=submit]")]);
    expect(new URLSearchParams(sent[0]).get("author")).toBe(String(authors.get("Writer 047")));
    const key = Number(new URL(page.url()).pathname.split("/").pop());
    expect((await stores.posts.get(key))?.author).toBe(authors.get("Writer 047"));
    expect(await page.textContent("dd a[href^='/authors/']")).toBe("Writer 047");
    // The edit form shows the chosen author's name, not its key, and saving keeps it.
    await page.goto(`${(app as Served).url}/posts/${key}/edit`);
    expect(await page.inputValue("#post-author")).toBe("Writer 047");
    expect(blocked).toEqual([]);
    await context.close();
  });
});
