import { describe, expect, expectTypeOf, it } from "vitest";
import { Ok, Origin, Request, Route, RouteTable, type Kind } from "../../runtime/index.js";
import { kindName } from "../../runtime/routing/kind.js";
import * as fw from "../../runtime/index.js";

const page = () => Ok("x");

describe("2.1 Route", () => {
  it("has Http and Ws cases; Http defaults to the browser kind and the Handwritten origin", () => {
    const route = Route.get("/a", page);
    expect(route.case).toBe("http");
    expect(kindName(route.kind)).toBe("browser");
    expect(route.origin).toBe(Origin.Handwritten);
    expect(Route.ws("/live", { message() {} }).case).toBe("ws");
    expect(Route.http({ method: "GET", path: "/b", handler: page, origin: Origin.Resource }).origin).toBe("Resource");
  });

  it("mints the API kind only through Route.api, whose handler takes an ApiRequest", () => {
    expect(kindName(Route.api({ method: "GET", path: "/api", handler: () => Ok("") }).kind)).toBe("api");
    // A browser handler does not fit an API route: its Request has members an ApiRequest lacks.
    // @ts-expect-error reads request.session, which an ApiRequest does not have
    Route.api({ method: "GET", path: "/api", handler: (request: Request) => Ok(request.session.get("x") ?? "") });
  });

  it("kind is copyable, but fw exports no value naming either kind", () => {
    const api = Route.api({ method: "GET", path: "/api", handler: () => Ok("") });
    const copied = { ...Route.get("/page", page), kind: api.kind };
    expect(kindName(copied.kind)).toBe("api");
    expectTypeOf(copied.kind).toEqualTypeOf<Kind>();
    const exported = Object.values(fw as Record<string, unknown>);
    expect(exported).not.toContain(api.kind);
    expect(exported).not.toContain(Route.get("/", page).kind);
  });
});

describe("2.2 RouteTable", () => {
  const a = Route.get("/z", page);
  const b = Route.get("/a", page);
  const c = Route.post("/m", page);

  it("keeps the order it was given and never sorts", () => {
    expect(RouteTable.of(a, b, c).routes).toEqual([a, b, c]);
  });

  it("concat (++) keeps both orders, this table's first", () => {
    expect(RouteTable.of(a).concat(RouteTable.of(b, c)).routes).toEqual([a, b, c]);
    expect(RouteTable.of(c).concat([a]).routes).toEqual([c, a]);
  });

  it("a hand-built table names nobody; concatenated identifies run in turn (at once while each answers at once)", async () => {
    const request = new Request({ path: "/" });
    expect(RouteTable.of(a).identify(request)).toBe(request);
    const named = new RouteTable([a], (r) => new Request({ path: r.path, currentUser: "7" }));
    const tagged = new RouteTable([b], (r) => new Request({ path: `${r.path}!`, ...(r.currentUser === undefined ? {} : { currentUser: r.currentUser }) }));
    const both = RouteTable.of(c).concat(named).concat(tagged);
    const seen = both.identify(request);
    if (seen instanceof Promise) throw new Error("identifies that answer at once compose to one that does");
    expect(seen.currentUser).toBe("7");
    expect(seen.path).toBe("/!");
    // One that answers later (asking a users store) makes the whole answer later, still in turn.
    const later = new RouteTable([a], async (r) => new Request({ path: r.path, currentUser: "8" }));
    const mixed = await RouteTable.of(c).concat(later).concat(tagged).identify(request);
    expect([mixed.currentUser, mixed.path]).toEqual(["8", "/!"]);
  });
});
