import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Browser, freshEmail, PASSWORD } from "../auth/client.js";
import { bootExample } from "../support/example.js";
import { htmlErrors } from "../support/html-validate.js";
import { TEST_SECRET } from "../support/serve.js";

// The example as `npm start` builds it (npm test builds first): its text limits and the posts'
// read scope, seen over HTTP by a visitor, the author and another member.
const app = bootExample([], { FW_SECRET: TEST_SECRET });
let url: string;

beforeAll(async () => {
  url = await app.url;
});

afterAll(async () => {
  app.child.kill("SIGTERM");
  await app.exited;
});

async function member(name: string): Promise<Browser> {
  const browser = new Browser(url);
  expect((await browser.signUp(freshEmail(name), PASSWORD)).status).toBe(303);
  return browser;
}

const entries = async (): Promise<number> => ((await (await fetch(`${url}/api/entries`)).json()) as unknown[]).length;

describe("Item 4: the example's text is bounded", () => {
  it("the guestbook form says its limits: a name of 100 characters, a message of 2,000", async () => {
    const page = await new Browser(url).get("/guestbook");
    expect(page.html).toContain('<input type="text" name="name" value="" maxlength="100">');
    expect(page.html).toContain('<textarea name="message" maxlength="2000"></textarea>');
  });

  it("a longer name or message is refused with 422 beside its field, the page stays small, and nothing is stored", async () => {
    const visitor = new Browser(url);
    await visitor.get("/guestbook");
    const before = await entries();
    const name = await visitor.post("/guestbook", { name: "n".repeat(101), message: "hello" });
    expect(name.status).toBe(422);
    // Each message is tied to its field (aria-describedby), as derived forms do (issue 28, item 10).
    expect(name.html).toContain(`<input type="text" name="name" value="${"n".repeat(100)}" maxlength="100" aria-invalid="true" aria-describedby="guestbook-name-error">`);
    expect(name.html).toContain('<p class="error" id="guestbook-name-error">Name must be at most 100 characters long (this one has 101).</p>');
    expect(name.html).toContain('<textarea name="message" maxlength="2000">hello</textarea>'); // not refused: not marked
    const message = await visitor.post("/guestbook", { name: "Ann", message: "m".repeat(1_000_000) });
    expect(message.status).toBe(422);
    expect(message.html).toContain('<textarea name="message" maxlength="2000" aria-invalid="true" aria-describedby="guestbook-message-error">');
    expect(message.html).toContain('<p class="error" id="guestbook-message-error">Message must be at most 2,000 characters long (this one has 1,000,000).</p>');
    expect(message.html.length).toBeLessThan(20_000);
    expect(await entries()).toBe(before);
    expect((await visitor.post("/guestbook", { name: "n".repeat(100), message: "m\r\n".repeat(1_000) })).status).toBe(303);
    expect(await entries()).toBe(before + 1);
  });

  it("a post's title is capped at 200 by default, its LongText body at 10,000", async () => {
    const alice = await member("limits");
    const blank = await alice.get("/posts/new");
    expect(blank.html).toContain('name="title" type="text" value="" required maxlength="200"');
    expect(blank.html).toContain('name="body" required maxlength="10000"');
    const refused = await alice.post("/posts", { title: "t".repeat(201), body: "b".repeat(10_001), category: "news" });
    expect(refused.status).toBe(422);
    expect(refused.html).toContain("Title must be at most 200 characters long (this one has 201).");
    expect(refused.html).toContain("Body must be at most 10,000 characters long (this one has 10,001).");
  });
});

describe("Item 8: the example shows drafts to their author alone (the model's publicWhen)", () => {
  let alice: Browser;
  let draft: string;
  let published: string;
  const marker = `${process.pid}-${Date.now()}`;

  beforeAll(async () => {
    alice = await member("author");
    await alice.get("/posts/new");
    const one = await alice.post("/posts", { title: `Draft ${marker}`, body: "not yet", category: "news" });
    const two = await alice.post("/posts", { title: `Out ${marker}`, body: "read me", category: "news", published: "true" });
    expect([one.status, two.status]).toEqual([303, 303]);
    [draft, published] = [one.location as string, two.location as string];
  });

  it("a visitor and another member: the index lists the published post, never the draft; the draft's page is a 404", async () => {
    const bob = await member("reader");
    for (const reader of [new Browser(url), bob]) {
      const index = await reader.get("/posts");
      expect(index.html).toContain(`Out ${marker}`);
      expect(index.html).not.toContain(`Draft ${marker}`);
      expect((await reader.get(published)).status).toBe(200);
      const hidden = await reader.get(draft);
      expect(hidden.status).toBe(404);
      expect(hidden.html).not.toContain(marker);
    }
    expect((await bob.get(`${draft}/edit`)).status).toBe(404);
  });

  it("/api/posts lists published posts only", async () => {
    const api = (await (await fetch(`${url}/api/posts`)).json()) as { total: number; posts: { title: string; published: boolean }[] };
    const titles = api.posts.map((post) => post.title);
    expect(titles).toContain(`Out ${marker}`);
    expect(titles).not.toContain(`Draft ${marker}`);
    expect(api.posts.every((post) => post.published)).toBe(true);
    expect(api.total).toBe(api.posts.length);
  });

  it("the live /posts sorts as the derived Index did: ?sort=title, ?sort=-title (links that keep it across pages), an unknown column is a 400 naming the choices", async () => {
    const ascending = (await alice.get("/posts?sort=title")).html;
    expect(ascending.indexOf(`Draft ${marker}`)).toBeLessThan(ascending.indexOf(`Out ${marker}`));
    expect(ascending).toContain('<a href="/posts?sort=-title" aria-current="true">title ↑</a>');
    const descending = (await alice.get("/posts?sort=-title")).html;
    expect(descending.indexOf(`Out ${marker}`)).toBeLessThan(descending.indexOf(`Draft ${marker}`));
    const refused = await alice.get("/posts?sort=author");
    expect(refused.status).toBe(400);
    expect(refused.html).toContain("sort by one of title, category, published");
  });

  it("the author sees the draft on the index and on its page, with their Edit and Delete controls", async () => {
    const index = await alice.get("/posts");
    expect(index.html).toContain(`Draft ${marker}`);
    const page = await alice.get(draft);
    expect(page.status).toBe(200);
    expect(page.html).toContain(`Draft ${marker}`);
    expect(page.html).toContain(`<a href="${draft}/delete" class="fw-destroy">Delete</a>`);
    const confirm = await alice.get(`${draft}/delete`);
    expect(confirm.html).toContain(`<form method="post" action="${draft}" class="fw-destroy"><input type="hidden" name="_method" value="DELETE">`);
  });
});

// Issue 28, items 9 and 10: what html-validate (spec/support/html-validate.ts) reported on the
// example's pages: two main landmarks on every error page, inputs without a type, aria-label
// on a plain list, the guestbook's messages not tied to their fields.
describe("The example's pages pass html-validate", () => {
  it("the layout links a small icon the public folder serves (no /favicon.ico 404), and the home page keeps its spaces", async () => {
    const home = await new Browser(url).get("/");
    const icon = /<link rel="icon" href="([^"]+)" type="image\/svg\+xml">/.exec(home.html)?.[1];
    expect(icon).toBe("/favicon.svg");
    const served = await fetch(`${url}${icon as string}`);
    expect([served.status, served.headers.get("content-type")]).toEqual([200, "image/svg+xml"]);
    expect(await served.text()).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    // JSX drops a line break between text and an element: "by the build.Posts" lost its space.
    expect(home.html).toContain('mounted by the build. <a href="/posts">Posts</a>');
  });


  it("every main page, a form refused with 422 and a problem page, for a visitor and a member", async () => {
    const visitor = new Browser(url);
    const alice = await member("markup");
    await alice.get("/posts/new");
    const post = (await alice.post("/posts", { title: "Checked", body: "by a validator", category: "news", published: "true" })).location as string;
    await alice.get("/notes/new");
    const note = (await alice.post("/notes", { text: "valid" })).location as string;
    await visitor.get("/guestbook");
    expect((await visitor.post("/guestbook", { name: "Val", message: "idator" })).status).toBe(303);
    const entry = /href="(\/guestbook\/\d+)">Val</.exec((await visitor.get("/guestbook")).html)?.[1] as string;
    const pages: [string, Browser, string][] = [
      ...["/", "/about", "/docs/getting-started", "/posts", post, "/notes", note, "/guestbook", entry, "/login", "/signup", "/no/such"].map((path): [string, Browser, string] => [`GET ${path}`, visitor, path]),
      ...["/", "/posts", "/posts/new", post, `${post}/edit`, `${post}/delete`, "/notes/new", `${note}/edit`, "/notes/quick", "/chat"].map((path): [string, Browser, string] => [`GET ${path} (member)`, alice, path]),
    ];
    const problems: string[] = [];
    for (const [what, who, path] of pages) {
      const answer = await who.get(path);
      problems.push(...(await htmlErrors(answer.html)).map((error) => `${what} (${answer.status}): ${error}`));
    }
    await visitor.get("/guestbook");
    const refused = [
      ["POST /guestbook (422)", await visitor.post("/guestbook", { name: "", message: "" })],
      ["POST /posts (422)", await alice.post("/posts", { title: "", body: "", category: "" })],
      ["POST /login (422)", await visitor.post("/login", { email: "nobody@example.com", password: "wrong" })],
    ] as const;
    for (const [what, answer] of refused) {
      expect(answer.status, what).toBe(422);
      problems.push(...(await htmlErrors(answer.html)).map((error) => `${what}: ${error}`));
    }
    expect(problems).toEqual([]);
  });
});

describe("Issue 28: values the database cannot take are 4xx beside their field or 400, never a 500", () => {
  const NUL = "contains a NUL character (U+0000), which cannot be stored: remove it.";

  it("the guestbook's hand-written page: a key that is no entry's key is a 400 (not a whole number from 0 to 2^32 - 1) or a 404", async () => {
    for (const key of ["9223372036854775808", "1.5", "1e-7", "-1", "abc"]) {
      const answer = await fetch(`${url}/guestbook/${key}`);
      expect(answer.status, key).toBe(400);
    }
    for (const key of ["0", "4294967295"]) expect((await fetch(`${url}/guestbook/${key}`)).status, key).toBe(404);
  });

  it("U+0000 in the guestbook, a note, a post, the live quick note (its no-JavaScript POST): 422 beside the field; nothing is stored", async () => {
    const visitor = new Browser(url);
    await visitor.get("/guestbook");
    const before = await entries();
    const guestbook = await visitor.post("/guestbook", { name: "Nul\u0000", message: "hello" });
    expect(guestbook.status).toBe(422);
    expect(guestbook.html).toContain(`<p class="error">Name ${NUL}</p>`);
    expect(guestbook.html).not.toContain("\u0000");
    expect(await entries()).toBe(before);

    await visitor.get("/notes/new");
    const note = await visitor.post("/notes", { text: "a\u0000b" });
    expect(note.status).toBe(422);
    expect(note.html).toContain(`Text ${NUL}`);
    await visitor.get("/notes/quick");
    const quick = await visitor.post("/notes/quick", { _fw_event: "save", text: "\u0000" });
    expect(quick.status).toBe(422);
    expect(quick.html).toContain(`Text ${NUL}`);

    const alice = await member("nul");
    await alice.get("/posts/new");
    const post = await alice.post("/posts", { title: "t", body: "b\u0000", category: "news" });
    expect(post.status).toBe(422);
    expect(post.html).toContain(`Body ${NUL}`);
  });

  it("U+0000 in sign-up's email is refused beside the field; at login it is a wrong email (the users table is never asked)", async () => {
    const visitor = new Browser(url);
    await visitor.get("/signup");
    const signup = await visitor.post("/signup", { email: `a\u0000${freshEmail("nul")}`, password: PASSWORD });
    expect(signup.status).toBe(422);
    expect(signup.html).toContain("Email must be an email address");
    const login = await new Browser(url).signIn("demo\u0000@example.com", "demo-password");
    expect(login.status).toBe(422);
    expect(login.html).toContain("Email or password is wrong.");
  });

  it("an edit form whose _version no row can be at (past the version column's range) is a 400, not a 500", async () => {
    const visitor = new Browser(url);
    await visitor.get("/notes/new");
    const made = await visitor.post("/notes", { text: "versioned" });
    expect(made.status).toBe(303);
    await visitor.get(`${made.location}/edit`);
    const stale = await visitor.post(made.location as string, { _method: "PUT", _version: "9999999999", text: "edited" });
    expect(stale.status).toBe(400);
    expect(stale.html).toContain("A value in this request cannot be stored or looked up: a number is out of the range its field allows.");
  });
});
