import { describe, expect, it } from "vitest";
import { FromPath, guardRoutes, InMemoryDatabase, Relations, resourceRoutes, RouteTable, ScopedStore, type FieldSpec, type ModelSpec } from "../../runtime/index.js";
import { Visitor } from "../support/browser.js";
import { serve } from "../support/serve.js";
import { owned, relationsSpecs } from "./relations-app.js";

// Issue 43, item 5: a list of references to rows the viewer may not all read (the relations
// app's posts: a draft is its owner's alone). A digest lists posts: the form offers, takes and
// names only the posts its viewer may read, and a hidden one's label never shows.
interface Digest {
  id: number;
  title: string;
  posts: number[];
}

const digest: ModelSpec<Digest> = {
  name: "Digest",
  fqn: "models.Digest",
  path: "/digests",
  key: "id",
  fields: [
    { name: "title", label: "Title", input: "text", optional: false, describe: "a text", maxLength: 200 },
    { name: "posts", label: "Posts", input: "references", optional: false, describe: "a list of posts", reference: { model: "Post", path: "/posts", onDelete: "cascade" } } satisfies FieldSpec,
  ],
  validate: (input) => ({ success: true, data: input as Digest }),
  decodeKey: FromPath.int,
};

describe("issue 43, item 5: a list naming rows the viewer may not read", () => {
  it("the multi-select offers the readable posts; a hidden one is a 422 like a missing one; its label never shows, on Show, Index or a filter's heading", async () => {
    const specs = relationsSpecs();
    const memory = new InMemoryDatabase();
    const authors = memory.store(specs.author);
    const posts = new ScopedStore(memory.store(specs.post), "owner", FromPath.int);
    const digests = memory.store(digest);
    const relations = new Relations();
    const routes = RouteTable.of(
      ...resourceRoutes(specs.author, authors, { relations, referenced: true }),
      ...guardRoutes(owned, resourceRoutes(specs.post, posts, { relations, owned, publicWhen: "published", referenced: true })),
      ...resourceRoutes(digest, digests, { relations }),
    );
    const app = await serve({ routes });
    try {
      const author = (await authors.insert({ name: "Ada" })).id;
      const draft = (await posts.for("1").insert({ title: "Secret draft", author, published: false })).id;
      const open = (await posts.for("1").insert({ title: "Open post", author, published: true })).id;
      const bob = new Visitor(app.url, { "x-user": "2" });
      const form = (await bob.get("/digests/new")).html;
      expect(form).toContain(`<select id="digest-posts" name="posts" multiple size="3"><option value="${open}">Open post</option></select>`);
      expect(form).not.toContain("Secret draft");
      const hidden = await bob.post("/digests", { title: "Mine", posts: [String(open), String(draft)] });
      expect(hidden.status).toBe(422);
      expect(hidden.html).toContain("There is no such post.");
      expect(hidden.html).not.toContain("Secret draft");
      const missing = await bob.post("/digests", { title: "Mine", posts: [String(open), "999"] });
      expect(missing.status).toBe(422);
      expect(missing.html).toContain("There is no such post.");
      expect(await digests.count()).toBe(0);
      expect((await bob.post("/digests", { title: "Mine", posts: [String(open)] })).status).toBe(303);
      // Alice's digest names her draft: Bob sees it as "Post N", never its title.
      const alices = (await digests.insert({ title: "Alice's", posts: [draft, open] })).id;
      const show = (await bob.get(`/digests/${alices}`)).html;
      expect(show).toContain(`<dt>Posts</dt><dd>Post ${draft}, <a href="/posts/${open}">Open post</a></dd>`);
      expect((await bob.get("/digests")).html).not.toContain("Secret draft");
      const filtered = (await bob.get(`/digests?posts=${draft}`)).html;
      expect(filtered).toContain(`<h1>Digests of post ${draft}</h1>`);
      expect(filtered).not.toContain("Secret draft");
      // Alice reads her draft: its label, and the digests listing it on its Show.
      const alice = new Visitor(app.url, { "x-user": "1" });
      expect((await alice.get(`/digests/${alices}`)).html).toContain(`<a href="/posts/${draft}">Secret draft</a>`);
      expect((await alice.get(`/posts/${draft}`)).html).toContain(`<section class="fw-related" id="digests"><h2>Digests</h2>`);

      // Deleting a listed post: its confirm page says the digests stay (without it), nothing blocks it, and the lists lose it.
      const confirm = await alice.get(`/posts/${open}/delete`);
      expect(confirm.status).toBe(200);
      expect(confirm.html).toContain('<p class="fw-set-null">2 digests will stay, without it in their posts.</p>');
      expect(confirm.html).not.toContain("cannot be deleted");
      expect(confirm.html).not.toContain("will be deleted too");
      expect((await alice.post(`/posts/${open}`, { _method: "DELETE" })).status).toBe(303);
      expect(await digests.count()).toBe(2);
      expect((await digests.get(alices))?.posts).toEqual([draft]);
    } finally {
      await app.close();
    }
  });
});
