import { describe, expect, it } from "vitest";
import { Actions, derives, Edit, Form, FromPath, InMemoryStore, Resource, resourceRoutes, ScopedStore, type ModelSpec, type OwnedDeclaration } from "../../runtime/index.js";

interface Post {
  id: number;
  author: number;
  title: string;
  published: boolean;
  featured?: boolean;
}

const owned: OwnedDeclaration = { covers: Actions.only(Edit), through: (route) => route, identify: (request) => request, carries: [] };

const model: ModelSpec<Post> = {
  name: "Post",
  fqn: "models.Post",
  path: "/posts",
  key: "id",
  owner: "author",
  fields: [
    { name: "title", label: "Title", input: "text", optional: false, describe: "text", maxLength: 200 },
    { name: "published", label: "Published", input: "checkbox", optional: false, describe: "yes or no" },
  ],
  validate: (input) => ({ success: true, data: input as Post }),
  decodeKey: FromPath.int,
};
const store = () => new ScopedStore<Post>(new InMemoryStore<Post>("id"), "author", FromPath.int);

describe("publicWhen: the read scope is declared on the companion", () => {
  it("names a boolean field, and only beside `owned` (type errors otherwise)", () => {
    derives<Post>(Form, Resource, { owned, publicWhen: "published" });
    derives<Post>(Form, Resource, { owned, publicWhen: "featured" });
    // @ts-expect-error -- `title` is not a boolean field
    derives<Post>(Form, Resource, { owned, publicWhen: "title" });
    // @ts-expect-error -- not a field at all
    derives<Post>(Form, Resource, { owned, publicWhen: "publishd" });
    // @ts-expect-error -- a read scope hides rows for their owners: it needs `owned`
    derives<Post>(Form, Resource, { publicWhen: "published" });
  });

  it("a spec written by hand is checked at boot: `owned` is needed, and the field must be a boolean of the model", () => {
    expect(() => resourceRoutes(model, store(), { publicWhen: "published" })).toThrow(/The model Post declares publicWhen: "published" without `owned`/);
    expect(() => resourceRoutes(model, store(), { owned, publicWhen: "title" })).toThrow(/publicWhen: "title", which is not one of its boolean fields/);
    expect(resourceRoutes(model, store(), { owned, publicWhen: "published" })).toHaveLength(8); // the seven, and Destroy's confirm page
  });

  it("the companion's `readable` gives a handler the rows nobody (an API call) may read", async () => {
    const Post = derives<Post>(Form, Resource, { owned, publicWhen: "published" });
    const posts = store();
    await posts.for("1").insert({ title: "draft", published: false });
    await posts.for("1").insert({ title: "out", published: true });
    expect((await Post.readable(posts, undefined).list({ offset: 0, limit: 9 })).rows.map((p) => p.title)).toEqual(["out"]);
    expect((await Post.readable(posts, "1").list({ offset: 0, limit: 9 })).total).toBe(2);
    expect((await derives<Post>(Form, Resource).readable(posts, undefined).list({ offset: 0, limit: 9 })).total).toBe(2);
  });
});
