import { describe, expect, it } from "vitest";
import { Actions, Create, Destroy, Edit, FromPath, Index, InMemoryDatabase, ScopedStore, Show, Update } from "../../runtime/index.js";
import { Visitor } from "../support/browser.js";
import { serve } from "../support/serve.js";
import { owned, relationsSpecs, relationsTable } from "./relations-app.js";
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
