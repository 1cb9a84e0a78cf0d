import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { FromPath, InMemoryDatabase, pickerScriptRoute, Relations, resourceRoutes, RouteTable, type ModelSpec, type Store } from "../../runtime/index.js";
import { CHROMIUM_ARGS } from "../support/chromium.js";
import { serve, type Served } from "../support/serve.js";

// Issue 43, item 5: a list of references past 100 readable rows is ticked boxes beside a search
// input; /fw/picker.js (the single reference's script, unchanged) suggests rows as one types, in
// a real browser under a strict CSP, and a suggestion taken is sent as its key, added to the list.
const found = inject("chromium");
const CHROMIUM = "path" in found ? found.path : undefined;

interface Tag {
  id: number;
  name: string;
}
interface Article {
  id: number;
  title: string;
  tags: number[];
}
const base = { key: "id", validate: (input: unknown) => ({ success: true as const, data: input }), decodeKey: FromPath.int };
const tagSpec = { ...base, name: "Tag", fqn: "models.Tag", path: "/tags", fields: [{ name: "name", label: "Name", input: "text", optional: false, describe: "text", maxLength: 200 }] } as ModelSpec<Tag>;
const articleSpec = {
  ...base,
  name: "Article",
  fqn: "models.Article",
  path: "/articles",
  fields: [
    { name: "title", label: "Title", input: "text", optional: false, describe: "text", maxLength: 200 },
    { name: "tags", label: "Tags", input: "references", optional: false, describe: "a list of tags", reference: { model: "Tag", path: "/tags", onDelete: "cascade" } },
  ],
} as ModelSpec<Article>;

let browser: Browser | undefined;
let app: Served | undefined;
let articles: Store<Article>;
const tags = new Map<string, number>();

beforeAll(async () => {
  if (CHROMIUM === undefined) return; // skipped below
  const memory = new InMemoryDatabase();
  const tagStore = memory.store(tagSpec);
  articles = memory.store(articleSpec);
  for (let n = 1; n <= 120; n++) {
    const name = `Tag ${String(n).padStart(3, "0")}`;
    tags.set(name, (await tagStore.insert({ name })).id);
  }
  const relations = new Relations();
  const routes = RouteTable.of(...resourceRoutes(tagSpec, tagStore, { relations, referenced: true }), ...resourceRoutes(articleSpec, articles, { relations }), pickerScriptRoute());
  [app, browser] = await Promise.all([serve({ routes }), chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })]);
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

describe.skipIf(CHROMIUM === undefined)("a list's picker in a browser (many-to-many)", () => {
  it("suggests rows as one types; a suggestion taken is added to the list by its key; the ticked ones stay; the CSP allows only the page's own scripts", async () => {
    const context = await (browser as Browser).newContext();
    const page = await context.newPage();
    const blocked: string[] = [];
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) blocked.push(message.text());
    });
    await page.route("**/articles/**", async (route) => {
      const response = await route.fetch();
      await route.fulfill({ response, headers: { ...response.headers(), "content-security-policy": "default-src 'self'; script-src 'self'" } });
    });
    await page.goto(`${(app as Served).url}/articles/new`);
    await page.fill("#article-title", "Tagged in a browser");
    await page.fill("#article-tags", "tag 04");
    const options = page.locator("datalist option");
    await options.nth(9).waitFor({ state: "attached" });
    expect(await options.nth(0).getAttribute("value")).toBe("Tag 040");
    await page.fill("#article-tags", "Tag 047");
    await options.nth(1).waitFor({ state: "detached" });
    const sent: string[] = [];
    page.on("request", (request) => {
      if (request.method() === "POST") sent.push(request.postData() ?? "");
    });
    await Promise.all([page.waitForURL(/\/articles\/\d+$/), page.click("button[type=submit]")]);
    expect(new URLSearchParams(sent[0]).getAll("tags")).toEqual([String(tags.get("Tag 047"))]);
    const key = Number(new URL(page.url()).pathname.split("/").pop());
    expect((await articles.get(key))?.tags).toEqual([tags.get("Tag 047")]);
    // The edit form: the chosen tag as a ticked box, the search input empty; adding a second keeps the first.
    await page.goto(`${(app as Served).url}/articles/${key}/edit`);
    expect(await page.isChecked(`input[type=checkbox][name=tags][value="${tags.get("Tag 047")}"]`)).toBe(true);
    expect(await page.inputValue("#article-tags")).toBe("");
    await page.fill("#article-tags", "Tag 112");
    await options.first().waitFor({ state: "attached" });
    await Promise.all([page.waitForURL(/\/articles\/\d+$/), page.click("button[type=submit]")]);
    expect((await articles.get(key))?.tags).toEqual([tags.get("Tag 047"), tags.get("Tag 112")]);
    expect(await page.locator("dd").nth(1).textContent()).toBe("Tag 047, Tag 112");
    expect(blocked).toEqual([]);
    await context.close();
  });
});
