import { resolve } from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError, TestClient, type ApiClient } from "../../runtime/testing/index.js";
import { runNode } from "../support/process.js";
import { BUILD_TIMEOUT_MS } from "../support/tspc.js";
import { Browser, freshEmail, PASSWORD, type Answer } from "../auth/client.js";
import { bootExample, defaultEngine, exampleDatabase, type Engine } from "../support/example.js";
import { htmlErrors } from "../support/html-validate.js";
import { PRODUCTION_ENV } from "../support/serve.js";

// The example as `npm start` builds it (npm test builds first): its text limits and the posts'
// read scope, seen over HTTP by a visitor, the author and another member. On the default engine
// (PostgreSQL where the machine has it, else PGlite).
const app = bootExample([], { ...PRODUCTION_ENV });
// Comments on posts (issue 29) rest on the database's foreign keys and on read scopes compiled to
// SQL, so they are checked on both engines: on this app's, and, when that is PostgreSQL, on a
// second app on PGlite, booted beside the first.
const apps = new Map<Engine, ReturnType<typeof bootExample>>([[defaultEngine(), app]]);
if (defaultEngine() === "postgres") apps.set("pglite", bootExample([], { ...PRODUCTION_ENV }, { database: exampleDatabase("migrated", "pglite") }));
const urls = new Map<Engine, string>();
let url: string;

beforeAll(async () => {
  for (const [engine, started] of apps) urls.set(engine, await started.url);
  url = await app.url;
});

afterAll(async () => {
  for (const started of apps.values()) started.child.kill("SIGTERM");
  await Promise.all([...apps.values()].map((started) => started.exited));
});

async function member(name: string, base = url): Promise<Browser> {
  const browser = new Browser(base);
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

  it("issue 43: /posts?q= searches titles and bodies, ranked, the body's passage marked; a draft is found by its author alone", async () => {
    const word = `zq${process.pid}x${Date.now() % 100_000}`;
    await alice.get("/posts/new");
    expect((await alice.post("/posts", { title: `Lanterns ${word}`, body: `How to mend the lanterns & lamps of ${word}`, category: "howto", published: "true" })).status).toBe(303);
    expect((await alice.post("/posts", { title: "A quiet draft", body: `More ${word} lanterns to come`, category: "news" })).status).toBe(303);
    const titles = (html: string): string[] => [...html.matchAll(/<a href="\/posts\/\d+">([^<]*)<\/a>/g)].map((m) => m[1] as string);
    const mine = await alice.get(`/posts?q=${word}+lantern`);
    expect(titles(mine.html)).toEqual([`Lanterns ${word}`, "A quiet draft"]);
    expect(mine.html).toContain(`<input type="search" name="q" value="${word} lantern" maxlength="200">`);
    expect(mine.html).toContain(`How to mend the <mark>lanterns</mark> &amp; lamps of <mark>${word}</mark>`);
    const visitor = await new Browser(url).get(`/posts?q=${word}`);
    expect(titles(visitor.html)).toEqual([`Lanterns ${word}`]);
    expect((await new Browser(url).get(`/posts?q=${word}+-mend`)).html).toContain("No posts match.");
    const tooLong = await new Browser(url).get(`/posts?q=${"x".repeat(201)}`);
    expect(tooLong.status).toBe(400);
    expect(tooLong.html).toContain("A search of the posts takes at most 200 characters; this one has 201.");
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

describe.each([...apps.keys()])("Issue 29, item 9: comments on posts, on %s", (engine) => {
  const marker = `${engine}-${process.pid}`;
  const error = '<p class="fw-field-error" id="comment-post-error">There is no such post.</p>';
  let base: string;
  let alice: Browser;
  let bob: Browser;

  beforeAll(async () => {
    base = urls.get(engine) as string;
    [alice, bob] = [await member(`alice-${engine}`, base), await member(`bob-${engine}`, base)];
  });

  /** A post of `who`'s, published or a draft; answers its key. */
  async function newPost(who: Browser, title: string, published: boolean): Promise<string> {
    await who.get("/posts/new");
    const made = await who.post("/posts", { title, body: "A body", category: "news", ...(published ? { published: "true" } : {}) });
    expect(made.status, made.html).toBe(303);
    return (made.location as string).slice("/posts/".length);
  }

  /** `who` comments on post `post` through the form; answers the comment's path (after a 303). */
  async function commentOn(who: Browser, post: string, body: string): Promise<string> {
    await who.get(`/comments/new?post=${post}`);
    const made = await who.post("/comments", { post, body });
    expect(made.status, made.html).toBe(303);
    return made.location as string;
  }

  it("a post's page lists its comments, for everyone who reads it, and 'Add a comment' opens the form with the post chosen; a comment's page links its post", async () => {
    const title = `Commented ${marker}`;
    const post = await newPost(alice, title, true);
    const empty = await alice.get(`/posts/${post}`);
    expect(empty.html).toContain('<section class="fw-related" id="comments"><h2>Comments</h2><p class="fw-empty">No comments yet.</p>');
    expect(empty.html).toContain(`<a href="/comments/new?post=${post}" class="fw-new">Add a comment</a>`);
    const form = await bob.get(`/comments/new?post=${post}`);
    expect(form.html).toContain(`<select id="comment-post" name="post" required>`);
    expect(form.html).toContain(`<option value="${post}" selected>${title}</option>`);
    const made = await bob.post("/comments", { post, body: `Nice one ${marker}` });
    expect(made.status).toBe(303);
    const at = made.location as string;
    expect(at).toMatch(/^\/comments\/\d+$/);
    const page = await bob.get(at);
    expect(page.html).toContain('<p class="flash" role="status">Comment created.</p>');
    expect(page.html).toContain(`<dt>Post</dt><dd><a href="/posts/${post}">${title}</a></dd>`);
    for (const reader of [alice, bob, new Browser(base)]) {
      const listed = await reader.get(`/posts/${post}`);
      expect(listed.html).toContain(`<td>Nice one ${marker}</td>`);
      expect(listed.html).toContain(`<a href="${at}">Show</a>`);
    }
    const filtered = await new Browser(base).get(`/comments?post=${post}`);
    expect(filtered.html).toContain(`<h1>Comments of ${title}</h1>`);
    expect(filtered.html).toContain(`<td>Nice one ${marker}</td>`);
  });

  it("a comment on a draft is read only by who may read the draft: to anyone else its page is a 404, and /comments, the post picker and the post's title never show it; once published, everyone reads it", async () => {
    const title = `Unpublished ${marker}`;
    const body = `Note to self ${marker}`;
    const draft = await newPost(alice, title, false);
    const at = await commentOn(alice, draft, body);
    // The draft's author reads it everywhere: its page, /comments (the post's title as a link), the picker.
    expect((await alice.get(at)).html).toContain(`<dt>Post</dt><dd><a href="/posts/${draft}">${title}</a></dd>`);
    expect((await alice.get("/comments")).html).toContain(`<td><a href="/posts/${draft}">${title}</a></td><td>${body}</td>`);
    expect((await alice.get("/comments/new")).html).toContain(`<option value="${draft}">${title}</option>`);
    for (const [who, reader] of [["a visitor", new Browser(base)], ["another member", bob]] as const) {
      const page = await reader.get(at);
      expect(page.status, who).toBe(404);
      for (const path of ["/comments", `/comments?post=${draft}`, `/posts/${draft}`]) {
        const seen = await reader.get(path);
        expect(seen.html, `${who}: ${path}`).not.toContain(body);
        expect(seen.html, `${who}: ${path}`).not.toContain(title);
      }
    }
    const picker = await bob.get(`/comments/new?post=${draft}`);
    expect(picker.status).toBe(200);
    expect(picker.html).not.toContain(title);
    expect(picker.html).not.toContain(`<option value="${draft}"`);
    expect(picker.html).toContain('<option value="" selected>Choose…</option>'); // a row bob may not read is not chosen

    await alice.get(`/posts/${draft}/edit`);
    expect((await alice.post(`/posts/${draft}`, { _method: "PUT", title, body: "A body", category: "news", published: "true" })).status).toBe(303);
    expect((await bob.get(at)).html).toContain(`<a href="/posts/${draft}">${title}</a>`);
    expect((await new Browser(base).get("/comments")).html).toContain(`<td>${body}</td>`);
  });

  it("only its author edits or deletes a comment: another member, the post's author included, gets 403 and no Edit link; its author's edit and delete go through", async () => {
    const post = await newPost(alice, `Open ${marker}`, true);
    const at = await commentOn(bob, post, `Bob says ${marker}`);
    expect((await alice.get(`/posts/${post}`)).html).not.toContain(`<a href="${at}/edit">`);
    expect((await alice.get(`${at}/edit`)).status).toBe(403);
    expect((await alice.get(`${at}/delete`)).status).toBe(403);
    expect((await alice.post(at, { _method: "PUT", post, body: "Alice was here" })).status).toBe(403);
    expect((await alice.post(at, { _method: "DELETE" })).status).toBe(403);
    expect((await alice.get(at)).html).toContain(`Bob says ${marker}`);

    expect((await bob.get(`/posts/${post}`)).html).toContain(`<a href="${at}/edit">Edit</a>`);
    await bob.get(`${at}/edit`);
    expect((await bob.post(at, { _method: "PUT", post, body: `Bob, edited ${marker}` })).status).toBe(303);
    expect((await alice.get(`/posts/${post}`)).html).toContain(`<td>Bob, edited ${marker}</td>`);
    await bob.get(`${at}/delete`);
    expect((await bob.post(at, { _method: "DELETE" })).status).toBe(303);
    expect((await bob.get(at)).status).toBe(404);
    expect((await alice.get(`/posts/${post}`)).html).toContain("No comments yet.");
  });

  it("a comment naming a post that does not exist, a key that is none, or another member's draft is refused 422 with 'There is no such post.' beside the field: the same page either way, and nothing is stored", async () => {
    const hidden = await newPost(alice, `Hidden ${marker}`, false);
    const open = await newPost(alice, `Visible ${marker}`, true);
    await bob.get("/comments/new");
    const refused = new Map<string, Answer>();
    for (const post of ["999999999", hidden, "abc", "9223372036854775808"]) {
      const answer = await bob.post("/comments", { post, body: `Lost ${marker}` });
      expect(answer.status, post).toBe(422);
      expect(answer.html, post).toContain(`<select id="comment-post" name="post" aria-invalid="true" aria-describedby="comment-post-error" required>`);
      expect(answer.html, post).toContain(error);
      expect(answer.html, post).toContain(`value="Lost ${marker}"`); // what was typed is kept
      refused.set(post, answer);
    }
    // Nothing tells a draft from a post that never was: the same page, byte for byte.
    expect(refused.get(hidden)?.html).toBe(refused.get("999999999")?.html);

    const at = await commentOn(bob, open, `Moving ${marker}`);
    await bob.get(`${at}/edit`);
    const moved = await bob.post(at, { _method: "PUT", post: hidden, body: `Moved ${marker}` });
    expect(moved.status).toBe(422);
    expect(moved.html).toContain(error);
    // Alice reads every post here, her draft included: no comment of bob's reached it, and his comment stays where it was.
    const all = await alice.get("/comments");
    expect(all.html).not.toContain(`Lost ${marker}`);
    expect(all.html).not.toContain(`Moved ${marker}`);
    expect((await bob.get(at)).html).toContain(`<dt>Post</dt><dd><a href="/posts/${open}">Visible ${marker}</a></dd>`);
  });

  it("deleting a post deletes its comments, other members' too: its confirm page says how many first", async () => {
    const post = await newPost(alice, `Going ${marker}`, true);
    const comments = [await commentOn(alice, post, `One ${marker}`), await commentOn(bob, post, `Two ${marker}`), await commentOn(bob, post, `Three ${marker}`)];
    const confirm = await alice.get(`/posts/${post}/delete`);
    expect(confirm.html).toContain('<p class="fw-confirm">This post will be deleted for good.</p><p class="fw-cascade">Its 3 comments will be deleted too.</p>');
    expect(confirm.html).toContain("<button type=\"submit\">Delete post</button>");
    const deleted = await alice.post(`/posts/${post}`, { _method: "DELETE" });
    expect([deleted.status, deleted.location]).toEqual([303, "/posts"]);
    for (const at of comments) expect((await bob.get(at)).status, at).toBe(404);
    const all = await alice.get("/comments");
    for (const word of ["One", "Two", "Three"]) expect(all.html).not.toContain(`${word} ${marker}`);
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
    await alice.get("/comments/new");
    const postKey = post.slice("/posts/".length);
    const comment = (await alice.post("/comments", { post: postKey, body: "Valid, too" })).location as string;
    await alice.get("/notes/new");
    const note = (await alice.post("/notes", { text: "valid" })).location as string;
    await visitor.get("/guestbook");
    expect((await visitor.post("/guestbook", { name: "Val", message: "idator" })).status).toBe(303);
    const entry = /href="(\/guestbook\/\d+)">Val</.exec((await visitor.get("/guestbook")).html)?.[1] as string;
    const pages: [string, Browser, string][] = [
      ...["/", "/about", "/docs/getting-started", "/posts", post, "/comments", comment, "/notes", note, "/guestbook", entry, "/login", "/signup", "/no/such"].map((path): [string, Browser, string] => [`GET ${path}`, visitor, path]),
      ...["/", "/posts", "/posts/new", post, `${post}/edit`, `${post}/delete`, "/comments/new", `/comments/new?post=${postKey}`, comment, `${comment}/edit`, `${comment}/delete`, "/notes/new", `${note}/edit`, "/notes/quick", "/chat"].map((path): [string, Browser, string] => [`GET ${path} (member)`, alice, path]),
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
      ["POST /comments (422)", await alice.post("/comments", { post: "999999999", body: "" })],
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
    expect(guestbook.html).toContain(`<p class="error" id="guestbook-name-error">Name ${NUL}</p>`);
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

/** The example's API as far as this file may know it (the typed calls are spec/client/example-calls.ts). */
type ExampleApi = {
  "POST /api/entries": { params: {}; body: { name: string; message: string }; answer: unknown };
  "GET /api/posts/:id": { params: { id: number }; body: never; answer: unknown };
};

interface ExampleCalls {
  callEveryExampleRoute(api: ApiClient<ExampleApi>, name: string): Promise<{ total: number; titles: string[]; title: string | undefined; signed: unknown; names: string[] }>;
}

describe("Issue 31: every API route of the example, through fw/client typed by its generated Api", () => {
  it(
    "spec/client/example-calls.ts type-checks against the example's Api (a wrong call, or an answer typed any, would not)",
    async () => {
      const checked = await runNode(resolve("node_modules/typescript/bin/tsc"), ["-p", "spec/client/tsconfig.example-calls.json"]);
      expect(checked.out + checked.err).toBe("");
      expect(checked.code).toBe(0);
    },
    BUILD_TIMEOUT_MS,
  );

  it("calls every route through fw/testing's client, its answers checked against their types; a refusal is a typed ApiError", async () => {
    const author = await member("api");
    await author.get("/posts/new");
    expect((await author.post("/posts", { title: `Through the API ${process.pid}`, body: "b", category: "howto", published: "true" })).status).toBe(303);
    // Both are read by path: the root typecheck leaves out the example's generated Api.
    const { answers } = (await import(resolve("example/dist/.fw/api.js"))) as { answers: object };
    const { callEveryExampleRoute } = (await import(resolve("spec/client/example-calls.ts"))) as ExampleCalls;
    const api = new TestClient(url).api<ExampleApi>({ answers });
    const name = `Client ${process.pid}`;
    const called = await callEveryExampleRoute(api, name);
    expect(called.titles).toContain(`Through the API ${process.pid}`);
    expect(called.total).toBeGreaterThanOrEqual(called.titles.length);
    expect(called.title).toBe(called.titles[0]);
    expect(called.signed).toMatchObject({ name, message: "Signed through fw/client." });
    expect(called.names).toContain(name);
    const refused = await api.post("/api/entries", { name: " ", message: "" }).catch((thrown: unknown) => thrown);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ kind: "refused", status: 400, problem: { title: "Bad Request" } });
    expect((refused as ApiError).problem?.detail).toMatch(/\$\.name: expected string & Pattern.*\$\.message: expected string & Pattern/);
    await expect(api.get("/api/posts/:id", { id: 2 ** 31 })).rejects.toMatchObject({ status: 404, problem: { detail: `There is no published post ${2 ** 31}.` } });
  });
});

/** The example's OpenAPI document, as `openapi` prints it. */
async function openApiDocument(): Promise<{ paths: Record<string, Record<string, unknown>>; components: object }> {
  const printed = await runNode(resolve("example/dist/main.js"), ["openapi"], {}, resolve("example"));
  expect([printed.code, printed.err]).toEqual([0, ""]);
  return JSON.parse(printed.out) as { paths: Record<string, Record<string, unknown>>; components: object };
}

/**
 * A check of a value against one schema of the document, as a client holding the document would
 * run it (Ajv, JSON Schema 2020-12 as OpenAPI 3.1 has it): the schema is compiled with the
 * document's components beside it, so its `#/components/…` references resolve.
 */
function schemaCheck(document: { components: object }, schema: object): (value: unknown) => boolean {
  const compiled = new Ajv2020({ strict: false }).compile({ ...schema, components: document.components });
  return (value) => compiled(value);
}

const emoji = (n: number): string => "\u{1F600}".repeat(n);

describe("Issue 39, item 8: what the OpenAPI document says is what the server checks", () => {
  it("a post's id: the document says 0 to 4294967295, and the server answers 400 exactly past that; a leading zero is a 400 too", async () => {
    const document = await openApiDocument();
    const validator = new Validator();
    expect((await validator.validate(structuredClone(document) as Record<string, unknown>)).valid).toBe(true);
    const parameters = (document.paths["/api/posts/{id}"]?.["get"] as { parameters: { name: string; schema: object }[] }).parameters;
    const idSchema = parameters.find((p) => p.name === "id")?.schema as object;
    const accepts = schemaCheck(document, idSchema);
    expect([accepts(4294967295), accepts(4294967296), accepts(-1), accepts(1.5)]).toEqual([true, false, false, false]);
    expect((await fetch(`${url}/api/posts/4294967295`)).status).toBe(404);
    expect((await fetch(`${url}/api/posts/4294967296`)).status).toBe(400);
    for (const spelled of ["0x1", "1e0", "1.0", "01", "+1", "%201"]) expect([spelled, (await fetch(`${url}/api/posts/${spelled}`)).status]).toEqual([spelled, 400]);
  });

  it("a guestbook entry's name of at most 100 characters counts code points, in the document and on the server: 60 emoji pass both, 101 neither", async () => {
    const document = await openApiDocument();
    const body = (document.paths["/api/entries"]?.["post"] as { requestBody: { content: { "application/json": { schema: object } } } }).requestBody.content["application/json"].schema;
    const accepts = schemaCheck(document, body);
    const sign = (name: string) => fetch(`${url}/api/entries`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name, message: "hello" }) });
    for (const [name, expected] of [[emoji(60), 201], [emoji(100), 201], [emoji(101), 400], ["n".repeat(100), 201], ["n".repeat(101), 400]] as const) {
      const answer = await sign(name);
      expect([name.length, [...name].length, accepts({ name, message: "hello" }), answer.status]).toEqual([name.length, [...name].length, expected === 201, expected]);
    }
  });

  it("the guestbook's form counts the same: 60 emoji are a name, 101 are refused beside the field, counted as 101", async () => {
    const visitor = new Browser(url);
    await visitor.get("/guestbook");
    expect((await visitor.post("/guestbook", { name: emoji(60), message: "hello" })).status).toBe(303);
    const refused = await visitor.post("/guestbook", { name: emoji(101), message: "hello" });
    expect(refused.status).toBe(422);
    expect(refused.html).toContain("Name must be at most 100 characters long (this one has 101).");
    expect(refused.html).toContain(`value="${emoji(100)}"`);
  });
});
