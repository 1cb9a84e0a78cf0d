import { describe, expect, it } from "vitest";
import { Actions, Create, derives, Destroy, Edit, Form, FromPath, Index, InMemoryDatabase, Resource, Route, ScopedStore, ServiceUnavailable, Show, Update, type Store } from "../../runtime/index.js";
import { Visitor } from "../support/browser.js";
import { serve } from "../support/serve.js";
import { owned, relationsSpecs, relationsTable, type Comment } from "./relations-app.js";
import { relationsPagesSuite } from "./relations-pages-suite.js";

// The pages of references on the in-memory engine: an InMemoryDatabase keeps references and
// uniques as a database does. The same suite runs on PGlite and PostgreSQL in spec/db/relations-pages.test.ts.
relationsPagesSuite("in memory", async () => {
  const specs = relationsSpecs();
  const memory = new InMemoryDatabase();
  return {
    specs,
    stores: {
      authors: memory.store(specs.author),
      posts: new ScopedStore(memory.store(specs.post), "owner", FromPath.int),
      comments: memory.store(specs.comment),
      reviews: memory.store(specs.review),
    },
  };
}, { validate: true });

describe("issue 29: a target whose owner alone reads its rows (owned covers Index and Show), from another model's pages", () => {
  it("its owner picks and sees their rows by label, though the other model's routes ran no guard of the target's; others see none", async () => {
    const specs = relationsSpecs();
    const memory = new InMemoryDatabase();
    const stores = { authors: memory.store(specs.author), posts: new ScopedStore(memory.store(specs.post), "owner", FromPath.int), comments: memory.store(specs.comment), reviews: memory.store(specs.review) };
    const app = await serve({ routes: relationsTable(specs, stores, { owned: { ...owned, covers: Actions.only(Index, Show, Create, Edit, Update, Destroy) } }) });
    try {
      const author = (await stores.authors.insert({ name: "Ada" })).id;
      const mine = (await stores.posts.for("1").insert({ title: "Mine", author, published: true })).id;
      const theirs = (await stores.posts.for("2").insert({ title: "Theirs", author, published: true })).id;
      await stores.reviews.insert({ post: mine, reviewer: "R", stars: 1 });
      await stores.reviews.insert({ post: theirs, reviewer: "S", stars: 2 });
      const alice = new Visitor(app.url, { "x-user": "1" });
      const form = (await alice.get("/reviews/new")).html;
      expect(form).toContain(`<option value="${mine}">Mine</option>`);
      expect(form).not.toContain("Theirs");
      const reviews = (await alice.get("/reviews")).html;
      expect(reviews).toContain(`<td><a href="/posts/${mine}">Mine</a></td>`);
      expect(reviews).toContain(`<td>Post ${theirs}</td>`);
      expect((await new Visitor(app.url).get("/reviews")).html).toContain(`<td>Post ${mine}</td>`);
    } finally {
      await app.close();
    }
  });
});

describe("issue 29: a Show whose references' labels cannot be read", () => {
  it("answers the labels' failure (rejected or thrown as the statement is sent) as its problem page, and serves the row again once they can", async () => {
    const specs = relationsSpecs();
    const memory = new InMemoryDatabase();
    const authors = memory.store(specs.author);
    let failing: "no" | "rejects" | "throws" = "no";
    // The authors' store as a page reads labels through it: its `list` fails while `failing` says so.
    const flaky = Object.create(authors) as typeof authors;
    flaky.list = (page) => {
      if (failing === "throws") throw new ServiceUnavailable("The authors are not there.", 7);
      if (failing === "rejects") return Promise.reject(new ServiceUnavailable("The authors are not there.", 7));
      return authors.list(page);
    };
    const stores = { authors: flaky, posts: new ScopedStore(memory.store(specs.post), "owner", FromPath.int), comments: memory.store(specs.comment), reviews: memory.store(specs.review) };
    const app = await serve({ routes: relationsTable(specs, stores) });
    try {
      const author = (await authors.insert({ name: "Ada" })).id;
      const post = (await stores.posts.for("1").insert({ title: "One", author, published: true })).id;
      const visitor = new Visitor(app.url, { "x-user": "1" });
      for (const how of ["rejects", "throws"] as const) {
        failing = how;
        const down = await visitor.get(`/posts/${post}`);
        expect(down.status).toBe(503);
        expect(down.response.headers.get("retry-after")).toBe("7");
        expect(down.html).toContain("The authors are not there.");
        failing = "no";
        const up = await visitor.get(`/posts/${post}`);
        expect(up.status).toBe(200);
        expect(up.html).toContain(`<a href="/authors/${author}">Ada</a>`);
      }
    } finally {
      await app.close();
    }
  });
});

describe("issue 29: the rows tables write their HTML as text (rows-table.tsx), escaped as the renderer escapes", () => {
  it("a cell, a reference's label and a row's links are escaped on the Index and in Show's list of referencing rows", async () => {
    const specs = relationsSpecs();
    const memory = new InMemoryDatabase();
    const stores = { authors: memory.store(specs.author), posts: new ScopedStore(memory.store(specs.post), "owner", FromPath.int), comments: memory.store(specs.comment), reviews: memory.store(specs.review) };
    const app = await serve({ routes: relationsTable(specs, stores) });
    try {
      const hostile = `<i>"Ada" & 'Co'</i>`;
      const escaped = "&lt;i&gt;&quot;Ada&quot; &amp; &#39;Co&#39;&lt;/i&gt;";
      const author = (await stores.authors.insert({ name: hostile })).id;
      const post = (await stores.posts.for("1").insert({ title: hostile, author, published: true })).id;
      const other = (await stores.posts.for("1").insert({ title: `</td><script>alert(1)</script>`, author, published: true })).id;
      await stores.comments.insert({ post, body: hostile, seeAlso: other });
      const alice = new Visitor(app.url, { "x-user": "1" });
      const posts = (await alice.get("/posts")).html;
      expect(posts).toContain(`<tr><td>${escaped}</td><td><a href="/authors/${author}">${escaped}</a></td><td>Yes</td><td><a href="/posts/${post}">Show</a> <a href="/posts/${post}/edit">Edit</a></td></tr>`);
      expect(posts).not.toContain("<script>alert(1)</script>");
      const show = (await alice.get(`/posts/${post}`)).html;
      expect(show).toContain(`<tr><td>${escaped}</td><td><a href="/posts/${other}">&lt;/td&gt;&lt;script&gt;alert(1)&lt;/script&gt;</a></td>`);
      expect(show).not.toContain("<script>alert(1)</script>");
    } finally {
      await app.close();
    }
  });
});

describe("issue 29: a row's links are escaped when the table's prefix needs it (rows-table.tsx hrefWriter)", () => {
  it("under Route.under(\"/o'neil&co\"), the Index's Show and Edit links and Show's list links carry the prefix escaped", async () => {
    const specs = relationsSpecs();
    const memory = new InMemoryDatabase();
    const stores = { authors: memory.store(specs.author), posts: new ScopedStore(memory.store(specs.post), "owner", FromPath.int), comments: memory.store(specs.comment), reviews: memory.store(specs.review) };
    const app = await serve({ routes: Route.under("/o'neil&co", relationsTable(specs, stores)) });
    try {
      const author = (await stores.authors.insert({ name: "Ada" })).id;
      const post = (await stores.posts.for("1").insert({ title: "Open", author, published: true })).id;
      const comment = (await stores.comments.insert({ post, body: "first" })).id;
      const alice = new Visitor(app.url, { "x-user": "1" });
      const prefix = "/o&#39;neil&amp;co";
      const posts = (await alice.get("/o'neil&co/posts")).html;
      expect(posts).toContain(`<td><a href="${prefix}/posts/${post}">Show</a> <a href="${prefix}/posts/${post}/edit">Edit</a></td>`);
      const show = (await alice.get(`/o'neil&co/posts/${post}`)).html;
      expect(show).toContain(`<a href="${prefix}/comments/${comment}">Show</a>`);
      expect(show).not.toContain(`href="/o'neil`);
    } finally {
      await app.close();
    }
  });
});

describe("issue 29: a companion's readable(store, viewer) keeps readableWith, as the pages do", () => {
  it("Comment.readable lists the comments of the posts the viewer may read, and refuses a store the table did not make", async () => {
    const specs = relationsSpecs();
    const memory = new InMemoryDatabase();
    const stores = { authors: memory.store(specs.author), posts: new ScopedStore(memory.store(specs.post), "owner", FromPath.int), comments: memory.store(specs.comment), reviews: memory.store(specs.review) };
    relationsTable(specs, stores);
    const Comment = derives<Comment>(Form, Resource, { readableWith: "post" });
    const author = (await stores.authors.insert({ name: "Ada" })).id;
    const open = (await stores.posts.for("1").insert({ title: "Open", author, published: true })).id;
    const draft = (await stores.posts.for("1").insert({ title: "Draft", author, published: false })).id;
    await stores.comments.insert({ post: open, body: "on the open post" });
    await stores.comments.insert({ post: draft, body: "on the draft" });
    const bodies = async (viewer: string | undefined): Promise<string[]> =>
      (await Comment.readable(stores.comments as Store<Comment>, viewer).list({ offset: 0, limit: 10 })).rows.map((row) => row.body);
    expect(await bodies(undefined)).toEqual(["on the open post"]);
    expect(await bodies("2")).toEqual(["on the open post"]);
    expect(await bodies("1")).toEqual(["on the open post", "on the draft"]);
    expect(() => Comment.readable(memory.store({ ...specs.comment, name: "Loose" }) as Store<Comment>, undefined)).toThrow(/declares readableWith: "post".*pass the store the generated table supplies/);
  });
});

describe("issue 30: an Index counts its rows only 10 pages ahead (a page's cost does not grow with its table)", () => {
  it("issue 43: the pager counts 10 pages ahead ('500 or more authors'), walks by keyset cursors to the last row and back; an offset page (?page=) still reads", async () => {
    const specs = relationsSpecs();
    const memory = new InMemoryDatabase();
    const stores = { authors: memory.store(specs.author), posts: new ScopedStore(memory.store(specs.post), "owner", FromPath.int), comments: memory.store(specs.comment), reviews: memory.store(specs.review) };
    const app = await serve({ routes: relationsTable(specs, stores) });
    try {
      // 1,101 authors: 23 pages of 50. Page 1 counts 501 of them (10 pages past it, and one more).
      for (let n = 1; n <= 1101; n++) await stores.authors.insert({ name: `Writer ${String(n).padStart(4, "0")}` });
      const visitor = new Visitor(app.url);
      const first = (await visitor.get("/authors")).html;
      expect(first).toContain("<span>500 or more authors</span>");
      expect(first).not.toContain('rel="prev"');
      const nextOf = (html: string): string | undefined => /<a href="([^"]+)" rel="next">Next<\/a>/.exec(html)?.[1]?.replaceAll("&amp;", "&");
      const prevOf = (html: string): string | undefined => /<a href="([^"]+)" rel="prev">Previous<\/a>/.exec(html)?.[1]?.replaceAll("&amp;", "&");
      expect(nextOf(first)).toMatch(/^\/authors\?after=[A-Za-z0-9_-]+$/);
      // Every page by its Next, each counted the same way: the cost of a page is not its depth.
      let html = first;
      let pages = 1;
      for (let next = nextOf(html); next !== undefined; next = nextOf(html)) {
        html = (await visitor.get(next)).html;
        pages++;
        expect(html).toContain('rel="prev"');
      }
      expect(pages).toBe(23);
      expect(html).toContain("Writer 1101");
      expect(html).toContain("<span>500 or more authors</span>");
      // Back by Previous to the first page, which has none.
      for (let previous = prevOf(html); previous !== undefined; previous = prevOf(html)) html = (await visitor.get(previous)).html;
      expect(html).toContain("Writer 0001");
      expect(html).toContain('rel="next"');
      expect((await visitor.get("/authors?page=3")).html).toContain("Writer 0101");
      expect((await visitor.get("/authors?page=24")).status).toBe(404);
    } finally {
      await app.close();
    }
  });

  it("Show's list of referencing rows counts the same way: 10 pages of 20 ahead, then 'or more'", async () => {
    const specs = relationsSpecs();
    const memory = new InMemoryDatabase();
    const stores = { authors: memory.store(specs.author), posts: new ScopedStore(memory.store(specs.post), "owner", FromPath.int), comments: memory.store(specs.comment), reviews: memory.store(specs.review) };
    const app = await serve({ routes: relationsTable(specs, stores) });
    try {
      const author = (await stores.authors.insert({ name: "Ada" })).id;
      const post = (await stores.posts.for("1").insert({ title: "Busy", author, published: true })).id;
      // 450 comments: 23 pages of 20. Page 1 counts 201 of them; page 14, to the end (260 + 201 > 450).
      for (let n = 1; n <= 450; n++) await stores.comments.insert({ post, body: `comment ${n}` });
      const visitor = new Visitor(app.url);
      expect((await visitor.get(`/posts/${post}`)).html).toContain("<span>Page 1 of 11 or more</span>");
      expect((await visitor.get(`/posts/${post}?comments_page=4`)).html).toContain("<span>Page 4 of 14 or more</span>");
      expect((await visitor.get(`/posts/${post}?comments_page=14`)).html).toContain("<span>Page 14 of 23</span>");
    } finally {
      await app.close();
    }
  });
});
