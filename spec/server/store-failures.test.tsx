import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Conflict, DuplicateValue, InMemoryDatabase, MissingReference, Ok, Route, RouteTable, StillReferenced, type ModelSpec } from "../../runtime/index.js";
import { serve, type Served } from "../support/serve.js";

interface Post {
  id: number;
  title: string;
}
interface Comment {
  id: number;
  post: number;
  body: string;
}

const spec = <A,>(name: string, fields: ModelSpec<A>["fields"]): ModelSpec<A> => ({
  name,
  fqn: `models.${name}`,
  path: `/${name.toLowerCase()}s`,
  key: "id",
  fields,
  validate: (input: unknown) => ({ success: true, data: input as A }),
  decodeKey: { read: (text: string) => ({ value: Number(text) }), type: "integer" } as never,
});

// Handlers that write through stores and let the store's refusal through, as a hand-written handler may.
const memory = new InMemoryDatabase();
const posts = memory.store(spec<Post>("Post", [{ name: "title", label: "Title", input: "text", optional: false, describe: "a text", unique: true }]));
const comments = memory.store(
  spec<Comment>("Comment", [
    { name: "post", label: "Post", input: "reference", optional: false, describe: "a key", reference: { model: "Post", path: "/posts", onDelete: "restrict" } },
    { name: "body", label: "Body", input: "text", optional: false, describe: "a text" },
  ]),
);

const table = RouteTable.of(
  Route.get("/comment-on/:post", async (request) => Ok(`made ${(await comments.insert({ post: Number(request.params["post"]), body: "hi" })).id}`)),
  Route.get("/post/:title", async (request) => Ok(`made ${(await posts.insert({ title: String(request.params["title"]) })).id}`)),
  Route.get("/delete-post/:id", async (request) => Ok(String(await posts.delete(Number(request.params["id"]))))),
  Route.get("/stale", () => {
    throw new Conflict("posts", 3, 1, 2);
  }),
  Route.get("/gone", () => {
    throw new Conflict("posts", 3, 1, undefined);
  }),
  Route.get("/duplicate-pair", () => {
    throw new DuplicateValue("votes", "comment", ["comment", "voterId"]);
  }),
  Route.get("/missing-blog-post", () => {
    throw new MissingReference("comments", "blogPost", 99);
  }),
  Route.get("/referenced", () => {
    throw new StillReferenced("posts", 3, [{ table: "comments", field: "post" }, { table: "comments", field: "parentPost" }, { table: "Flag", field: "post" }]);
  }),
  Route.api({ method: "GET", path: "/api/comment-on/:post", handler: async (request) => Ok(String((await comments.insert({ post: Number(request.params["post"]), body: "x" })).id)) }),
);

let app: Served;
beforeAll(async () => {
  app = await serve({ routes: table });
});
afterAll(() => app.close());

async function problem(path: string): Promise<{ status: number; detail: string }> {
  const response = await app.get(path);
  const html = await response.text();
  const detail = /<p class="fw-problem-detail">([^<]*)<\/p>/.exec(html)?.[1] ?? html;
  return { status: response.status, detail: detail.replace(/&quot;/g, '"').replace(/&#39;/g, "'") };
}

describe("issue 29: a store's refusal that no handler caught is a 4xx problem page, not a 500", () => {
  it("a reference to no row (MissingReference) → 422 naming the field in words, never the key", async () => {
    expect(await problem("/comment-on/41")).toEqual({ status: 422, detail: "There is no such post." });
    expect(await problem("/missing-blog-post")).toEqual({ status: 422, detail: "There is no such blog post." });
    expect((await problem("/comment-on/41")).detail).not.toContain("41");
    expect(await problem("/api/comment-on/41")).toEqual({ status: 422, detail: "There is no such post." });
  });

  it("a unique value taken (DuplicateValue) → 422 naming the field, or every field of a composite unique", async () => {
    expect((await app.get("/post/hello")).status).toBe(200);
    expect(await problem("/post/hello")).toEqual({ status: 422, detail: "This title is already taken: another row has the same. Choose another." });
    expect(await problem("/duplicate-pair")).toEqual({ status: 422, detail: "This comment and voter id are already taken together: another row has the same. Change one of them." });
  });

  it("a delete other rows still point at (StillReferenced) → 409 saying what points at it, nothing deleted", async () => {
    const made = await (await app.get("/post/parent")).text();
    const id = made.replace("made ", "");
    expect((await app.get(`/comment-on/${id}`)).status).toBe(200);
    // In memory a model without a table is named by its name (Comment); on a database, by its table (comments).
    expect(await problem(`/delete-post/${id}`)).toEqual({ status: 409, detail: "This row cannot be deleted while other rows (comment) still point at it: delete or change those first. Nothing was deleted." });
    expect(await problem("/referenced")).toEqual({ status: 409, detail: "This row cannot be deleted while other rows (comments and flag) still point at it: delete or change those first. Nothing was deleted." });
    expect(await posts.get(Number(id))).toMatchObject({ title: "parent" });
  });

  it("a stale version (Conflict) → 409 asking to load the row again, without its key or versions", async () => {
    const expected = { status: 409, detail: "Someone else changed or deleted this row after it was read, so nothing was written. Load it again and redo the change." };
    expect(await problem("/stale")).toEqual(expected);
    expect(await problem("/gone")).toEqual(expected);
    expect(app.err.join("\n")).toBe("");
  });
});
