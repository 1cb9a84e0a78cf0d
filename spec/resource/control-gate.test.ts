import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Actions, FromPath, guardRoutes, Index, InMemoryStore, NotFound, resourceRoutes, RouteTable, Show, type GuardDeclaration, type ModelSpec, type Request, type Route } from "../../runtime/index.js";
import { Visitor } from "../support/browser.js";
import { serve, type Served } from "../support/serve.js";

// Issue 41, item 2: a derived page shows only the controls the viewer may use. A model whose
// guard covers New, Edit and Destroy and says whom it admits (as `auth.role("admin", …)` does)
// shows those links to the viewers it admits alone; the others read the same page without them,
// and the guard still refuses them at the page (404, as a role guard answers).
interface Tag {
  id: number;
  name: string;
}

const model: ModelSpec<Tag> = {
  name: "Tag",
  fqn: "Tag",
  path: "/tags",
  key: "id",
  fields: [{ name: "name", label: "Name", input: "text", optional: false, describe: "text", maxLength: 40 }],
  validate: (input) => ({ success: true, data: input as Tag }),
  decodeKey: FromPath.int,
};

/** Admins are who send `x-role: admin` (standing in for the roles read with the user); asked later, as a store read answers. */
const isAdmin = (request: Request): boolean => request.headers.get("x-role") === "admin";
const guard: GuardDeclaration = {
  actions: Actions.except(Index, Show),
  carries: [],
  identify: (request) => request,
  through: (route: Route): Route =>
    route.case !== "http"
      ? route
      : {
          ...route,
          handler: (request) => {
            if (!isAdmin(request)) throw new NotFound();
            return route.handler(request);
          },
        },
  admits: (request) => new Promise((answer) => setTimeout(() => answer(isAdmin(request)), 1)),
};

describe("issue 41: a role-guarded model's derived pages show New, Edit and Delete to whom the guard admits", () => {
  let served: Served | undefined;
  const store = new InMemoryStore<Tag>("id");
  let key = 0;

  beforeAll(async () => {
    key = (await store.insert({ name: "release" })).id;
    served = await serve({ routes: RouteTable.of(...guardRoutes(guard, resourceRoutes(model, store, { guard }))) });
  });
  afterAll(async () => served?.close());

  it("a visitor the guard does not admit reads the Index and Show with no New, Edit or Delete, and the pages behind them are 404s", async () => {
    const visitor = new Visitor((served as Served).url);
    const index = await visitor.get("/tags");
    expect(index.html).toContain("release");
    expect(index.html).not.toContain('href="/tags/new"');
    expect(index.html).not.toContain(`href="/tags/${key}/edit"`);
    const show = await visitor.get(`/tags/${key}`);
    expect(show.status).toBe(200);
    expect(show.html).not.toContain(`href="/tags/${key}/edit"`);
    expect(show.html).not.toContain(`href="/tags/${key}/delete"`);
    for (const path of ["/tags/new", `/tags/${key}/edit`, `/tags/${key}/delete`]) expect((await visitor.get(path)).status, path).toBe(404);
  });

  it("an admitted viewer sees every control on the same pages, and each leads to its page", async () => {
    const admin = new Visitor((served as Served).url, { "x-role": "admin" });
    const index = await admin.get("/tags");
    expect(index.html).toContain('<a href="/tags/new" class="fw-new">New tag</a>');
    expect(index.html).toContain(`<a href="/tags/${key}/edit">Edit</a>`);
    const show = await admin.get(`/tags/${key}`);
    expect(show.html).toContain(`<a href="/tags/${key}/edit" class="fw-edit">Edit</a>`);
    expect(show.html).toContain(`<a href="/tags/${key}/delete" class="fw-destroy">Delete</a>`);
    for (const path of ["/tags/new", `/tags/${key}/edit`, `/tags/${key}/delete`]) expect((await admin.get(path)).status, path).toBe(200);
  });

  it("without a guard that says whom it admits, the controls are shown as before", async () => {
    const open = await serve({ routes: RouteTable.of(...resourceRoutes(model, store)) });
    try {
      const show = await new Visitor(open.url).get(`/tags/${key}`);
      expect(show.html).toContain(`<a href="/tags/${key}/edit" class="fw-edit">Edit</a>`);
      expect((await new Visitor(open.url).get("/tags")).html).toContain('class="fw-new">New tag</a>');
    } finally {
      await open.close();
    }
  });
});
