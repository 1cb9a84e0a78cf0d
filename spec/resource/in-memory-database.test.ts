import { describe, expect, it } from "vitest";
import { InMemoryDatabase } from "../../runtime/index.js";
import { MODELS, referenceConformance, type Comment, type Post } from "./reference-conformance.js";
import { ROW_MODEL, storeConformance } from "./store-conformance.js";
import { LIST_MODELS, listConformance } from "./list-conformance.js";

referenceConformance("InMemoryDatabase", async () => {
  const memory = new InMemoryDatabase();
  return {
    posts: memory.store(MODELS.posts),
    comments: memory.store(MODELS.comments),
    votes: memory.store(MODELS.votes),
    flags: memory.store(MODELS.flags),
    tags: memory.store(MODELS.tags),
    names: { posts: "Post", comments: "Comment", votes: "Vote", flags: "Flag", tags: "Tag" },
  };
});

storeConformance("InMemoryDatabase's store (a model without references)", () =>
  new InMemoryDatabase().store({ ...MODELS.posts, name: "Row", fields: ROW_MODEL.fields, search: ROW_MODEL.search } as never),
);

describe("InMemoryDatabase", () => {
  it("answers the same store for a model asked twice, and names a model by its table when it has one", async () => {
    const memory = new InMemoryDatabase();
    expect(memory.store(MODELS.posts)).toBe(memory.store(MODELS.posts));
    const posts = memory.store({ ...MODELS.posts, name: "Article", table: "articles" });
    const comments = memory.store<Comment>({ ...MODELS.comments, fields: MODELS.comments.fields.map((f) => (f.name === "post" ? { ...f, reference: { model: "Article", path: "/articles", onDelete: "restrict" as const } } : f)) });
    const post = await posts.insert({ title: "t" });
    await comments.insert({ post: post.id, body: "b" });
    await expect(posts.delete(post.id)).rejects.toMatchObject({ table: "articles", by: [{ table: "Comment", field: "post" }] });
    await expect(posts.delete(post.id)).rejects.toThrow('The articles row 1 is still referenced (from Comment.post): nothing was deleted.');
  });

  it("a reference to a model with no store in the database is a clear error, not a silent pass", async () => {
    const memory = new InMemoryDatabase();
    const comments = memory.store<Comment>(MODELS.comments);
    await expect(comments.insert({ post: 1, body: "b" })).rejects.toThrow(/the field Comment\.post references the model Post, which has no store in this database/);
  });

  it("checks and writes in the same turn: two concurrent inserts of one unique value, one wins", async () => {
    const memory = new InMemoryDatabase();
    const tags = memory.store(MODELS.tags);
    const results = await Promise.allSettled([tags.insert({ name: "x" }), tags.insert({ name: "x" })]);
    expect(results.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    const posts = memory.store<Post>(MODELS.posts);
    expect(await posts.list({ offset: 0, limit: 1 })).toEqual({ rows: [], total: 0 });
  });
});

listConformance("InMemoryDatabase", async () => {
  const memory = new InMemoryDatabase();
  return { labels: memory.store(LIST_MODELS.labels), articles: memory.store(LIST_MODELS.articles), articlesName: "Article" };
});
