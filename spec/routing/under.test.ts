import { describe, expect, it } from "vitest";
import { Actions, FromPath, InMemoryStore, Ok, Origin, Request, resourceRoutes, Route, RouteTable, withCurrentUser, type ModelSpec } from "../../runtime/index.js";
import { liveClientRoute } from "../../runtime/live/routes.js";
import { BootError } from "../../runtime/routing/boot-error.js";
import { checkRoutes } from "../../runtime/routing/conflicts.js";
import type { Route as AnyRoute } from "../../runtime/routing/route.js";

/** Spec 4.6.7: `Route.under` rewrites a table's paths. */
const page = () => Ok("x");
const shown = (routes: Iterable<AnyRoute>): string[] => [...routes].map((route) => `${route.case === "http" ? route.method : "WS"} ${route.path.text}`);

describe("4.6 Route.under puts a table under a prefix", () => {
  it("rewrites every path, keeps the match order and the table's identify; the root becomes the prefix", () => {
    const identify = (request: Request) => withCurrentUser(request, "7");
    const table = new RouteTable([Route.get("/", page), Route.get("/posts/:id", page), Route.post("/posts", page), Route.ws("/chat", { message() {} })], identify);
    const moved = Route.under("/admin", table);
    expect(moved).toBeInstanceOf(RouteTable);
    expect(shown(moved)).toEqual(["GET /admin", "GET /admin/posts/:id", "POST /admin/posts", "WS /admin/chat"]);
    expect(moved.identify).toBe(identify);
    expect(moved.routes.map((route) => route.mount)).toEqual(["/admin", "/admin", "/admin", "/admin"]);
    // The routes match under the prefix alone.
    expect(moved.routes[1]?.path.segments).toEqual([{ type: "literal", value: "admin" }, { type: "literal", value: "posts" }, { type: "param", name: "id" }]);
  });

  it("takes an array too, and a trailing slash on the prefix is ignored", () => {
    expect(shown(Route.under("/app/", [Route.get("/a", page)]))).toEqual(["GET /app/a"]);
  });

  it("nested calls add up, the inner prefix last: under('/a', under('/b', t)) is under('/a/b', t)", () => {
    const inner = Route.under("/b", RouteTable.of(Route.get("/x", page)));
    const outer = Route.under("/a", inner);
    expect(shown(outer)).toEqual(["GET /a/b/x"]);
    expect(outer.routes[0]?.mount).toBe("/a/b");
  });

  it("'/' leaves the table as it is", () => {
    const table = RouteTable.of(Route.get("/x", page));
    expect(Route.under("/", table)).toBe(table);
  });

  it("a prefix is literal segments: a parameter or a catch-all in it, or no leading slash, fails boot naming the fix", () => {
    const table = RouteTable.of(Route.get("/x", page));
    expect(() => Route.under("/orgs/:org", table)).toThrow(BootError);
    expect(() => Route.under("/orgs/:org", table)).toThrow(/a prefix is a path of literal segments \("\/admin"\), not a pattern/);
    expect(() => Route.under("/files/*rest", table)).toThrow(/not a pattern/);
    expect(() => Route.under("admin", table)).toThrow(/must start with "\/"/);
  });

  it("a table put under /fw fails the boot check like any route there: /fw stays fw's", () => {
    expect(() => checkRoutes(Route.under("/fw", RouteTable.of(Route.get("/x", page))).routes)).toThrow(/is under \/fw/);
  });

  it("fw's own endpoints stay under /fw (and pass the boot check), learning the mount", () => {
    const moved = Route.under("/admin", RouteTable.of(Route.get("/x", page), liveClientRoute()));
    expect(shown(moved)).toEqual(["GET /admin/x", "GET /fw/live.js"]);
    expect(moved.routes[1]?.mount).toBe("/admin");
    expect(checkRoutes(moved.routes).routes).toHaveLength(2);
  });

  it("derived routes move with their submit targets, so no form page reads as an orphan; origin and role are kept", () => {
    interface Note {
      id: number;
      text: string;
    }
    const Note: ModelSpec<Note> = {
      name: "Note",
      fqn: "models.Note",
      path: "/notes",
      key: "id",
      fields: [{ name: "text", label: "Text", input: "text", optional: false, describe: "text", maxLength: 100 }],
      validate: (input) => ({ success: true, data: input as Note }),
      decodeKey: FromPath.int,
    };
    const moved = Route.under("/admin", resourceRoutes(Note, new InMemoryStore<Note>("id"), { actions: Actions.all }));
    expect(shown(moved)).toEqual([
      "GET /admin/notes",
      "GET /admin/notes/new",
      "GET /admin/notes/:id",
      "GET /admin/notes/:id/edit",
      "GET /admin/notes/:id/delete",
      "POST /admin/notes",
      "PUT /admin/notes/:id",
      "DELETE /admin/notes/:id",
    ]);
    const edit = moved[3];
    expect(edit?.case === "http" && edit.submits).toEqual({ method: "PUT", path: "/admin/notes/:id" });
    expect(edit?.origin).toBe(Origin.Resource);
    expect(edit?.case === "http" && edit.role).toBe("Edit");
    expect(checkRoutes(moved).warnings).toEqual([]);
  });
});

describe("Request.mount and href: what a handler under a prefix links with", () => {
  it("href puts a path of the table under the mount; the table's home is the mount itself", () => {
    const request = new Request({ path: "/admin/posts", mount: "/admin" });
    expect([request.mount, request.href("/posts/3"), request.href("/")]).toEqual(["/admin", "/admin/posts/3", "/admin"]);
    const plain = new Request({ path: "/posts" });
    expect([plain.mount, plain.href("/posts/3"), plain.href("/")]).toEqual(["", "/posts/3", "/"]);
  });

  it("a copy keeps it (a guard's withCurrentUser)", () => {
    expect(withCurrentUser(new Request({ mount: "/admin" }), "1").mount).toBe("/admin");
  });
});
