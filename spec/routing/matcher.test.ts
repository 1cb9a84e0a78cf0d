import { describe, expect, it } from "vitest";
import { METHODS } from "../../runtime/http/method.js";
import { splitPath } from "../../runtime/http/path.js";
import { type Lookup, Matcher } from "../../runtime/routing/matcher.js";
import { Route } from "../../runtime/routing/route.js";
import { naiveLookup, naiveLookupWs } from "../support/naive-match.js";
import { notCalled, Random, randomPath, randomTable } from "../support/random.js";

const get = (path: string, source = path) => Route.get(path, notCalled, { source });

/** Splits a path the way the server does before matching (already decoded, no trailing slash). */
const segs = (path: string): string[] => (path === "/" ? [] : path.slice(1).split("/"));

function found(lookup: Lookup): { route: Route; params: Readonly<Record<string, string>> } {
  if (lookup.type !== "found") throw new Error(`expected a match, got ${JSON.stringify(lookup)}`);
  return lookup;
}

describe("Matcher: first match in table order", () => {
  it("serves a literal before a param when the table says so", () => {
    const literal = get("/posts/new");
    const param = get("/posts/:id");
    const matcher = new Matcher([literal, param]);
    expect(found(matcher.lookup("GET", segs("/posts/new"))).route).toBe(literal);
    expect(found(matcher.lookup("GET", segs("/posts/7")))).toEqual({ type: "found", route: param, params: { id: "7" } });
  });

  it("serves a param before a literal when the table says so (never specificity)", () => {
    const param = get("/posts/:id");
    const literal = get("/posts/new");
    const lookup = found(new Matcher([param, literal]).lookup("GET", segs("/posts/new")));
    expect(lookup.route).toBe(param);
    expect(lookup.params).toEqual({ id: "new" });
  });

  it("matches literals case-sensitively", () => {
    const matcher = new Matcher([get("/About")]);
    expect(matcher.lookup("GET", segs("/about"))).toEqual({ type: "none" });
    expect(matcher.lookup("GET", segs("/About")).type).toBe("found");
  });

  it("matches the root pattern only on the root path", () => {
    const root = get("/");
    const matcher = new Matcher([root]);
    expect(found(matcher.lookup("GET", [])).route).toBe(root);
    expect(matcher.lookup("GET", ["a"]).type).toBe("none");
  });

  it("lets a catch-all capture nothing", () => {
    const rest = get("/files/*path");
    const lookup = found(new Matcher([rest]).lookup("GET", segs("/files")));
    expect(lookup.route).toBe(rest);
    expect(lookup.params).toEqual({ path: "" });
  });

  it("lets a catch-all capture many segments, empty ones included", () => {
    const rest = get("/files/:owner/*path");
    const lookup = found(new Matcher([rest]).lookup("GET", ["files", "me", "a", "", "b.txt"]));
    expect(lookup.params).toEqual({ owner: "me", path: "a//b.txt" });
  });

  it("returns decoded segments as they are, slashes included", () => {
    const lookup = found(new Matcher([get("/tags/:tag")]).lookup("GET", ["tags", "a/b c"]));
    expect(lookup.params).toEqual({ tag: "a/b c" });
  });

  it("does not let :name take an empty segment", () => {
    const param = get("/a/:x/b");
    const rest = get("/a/*rest");
    const matcher = new Matcher([param, rest]);
    const lookup = found(matcher.lookup("GET", ["a", "", "b"]));
    expect(lookup.route).toBe(rest);
    expect(lookup.params).toEqual({ rest: "/b" });
    expect(new Matcher([param]).lookup("GET", ["a", "", "b"])).toEqual({ type: "none" });
  });

  it("gives a plain object of params", () => {
    const lookup = found(new Matcher([get("/:a/:b")]).lookup("GET", ["x", "y"]));
    expect(Object.getPrototypeOf(lookup.params)).toBe(Object.prototype);
    expect(lookup.params).toEqual({ a: "x", b: "y" });
  });

  it("takes a later route of the method even when an earlier route of another method matches", () => {
    const post = Route.post("/posts/:id", notCalled, { source: "post.ts" });
    const show = get("/posts/:id");
    expect(found(new Matcher([post, show]).lookup("GET", segs("/posts/1"))).route).toBe(show);
  });
});

describe("Matcher: HEAD", () => {
  it("serves HEAD with the GET route", () => {
    const show = get("/posts/:id");
    expect(found(new Matcher([show]).lookup("HEAD", segs("/posts/1"))).route).toBe(show);
  });

  it("serves an explicit HEAD route that comes earlier than the GET route", () => {
    const head = Route.head("/posts/:id", notCalled, { source: "head.ts" });
    const show = get("/posts/:id");
    expect(found(new Matcher([head, show]).lookup("HEAD", segs("/posts/1"))).route).toBe(head);
  });

  it("serves the GET route when it comes earlier than the HEAD route", () => {
    const show = get("/posts/:id");
    const head = Route.head("/posts/:id", notCalled, { source: "head.ts" });
    expect(found(new Matcher([show, head]).lookup("HEAD", segs("/posts/1"))).route).toBe(show);
  });

  it("never serves GET with a HEAD route", () => {
    const head = Route.head("/posts/:id", notCalled, { source: "head.ts" });
    expect(new Matcher([head]).lookup("GET", segs("/posts/1"))).toEqual({ type: "method", allowed: ["HEAD"] });
  });
});

describe("Matcher: 405 and 404", () => {
  it("lists the allowed methods in METHODS order, with HEAD beside GET", () => {
    const routes = [
      Route.delete("/posts/:id", notCalled),
      Route.options("/*any", notCalled),
      Route.put("/posts/:id", notCalled),
      get("/posts/:id"),
      Route.post("/posts", notCalled),
    ];
    expect(new Matcher(routes).lookup("PATCH", segs("/posts/1"))).toEqual({
      type: "method",
      allowed: ["GET", "PUT", "DELETE", "HEAD", "OPTIONS"],
    });
  });

  it("answers none when no pattern matches", () => {
    const matcher = new Matcher([get("/posts/:id"), Route.post("/posts", notCalled)]);
    expect(matcher.lookup("GET", segs("/users/1"))).toEqual({ type: "none" });
  });
});

describe("Matcher: WebSocket routes", () => {
  it("keeps ws routes out of lookup and HTTP routes out of lookupWs", () => {
    const ws = Route.ws("/live/:room", { message() {} }, { source: "live.ts" });
    const page = get("/live/:room");
    const matcher = new Matcher([ws, page]);
    expect(found(matcher.lookup("GET", segs("/live/x"))).route).toBe(page);
    expect(matcher.lookupWs(segs("/live/x"))).toEqual({ route: ws, params: { room: "x" } });
    expect(new Matcher([ws]).lookup("GET", segs("/live/x"))).toEqual({ type: "none" });
    expect(new Matcher([page]).lookupWs(segs("/live/x"))).toBeUndefined();
  });

  it("takes the first ws route in table order", () => {
    const first = Route.ws("/live/*rest", { message() {} }, { source: "a.ts" });
    const second = Route.ws("/live/room", { message() {} }, { source: "b.ts" });
    expect(new Matcher([first, second]).lookupWs(segs("/live/room"))?.route).toBe(first);
  });
});

/** Describes how the matcher's answer differs from the naive scan's, or undefined when equal. */
function difference(actual: Lookup, expected: Lookup): string | undefined {
  const same =
    actual.type === expected.type &&
    (actual.type !== "found" ||
      (expected.type === "found" &&
        actual.route === expected.route &&
        JSON.stringify(actual.params) === JSON.stringify(expected.params))) &&
    (actual.type !== "method" ||
      (expected.type === "method" && actual.allowed.join() === expected.allowed.join()));
  return same ? undefined : `got ${show(actual)}, expected ${show(expected)}`;
}

function show(lookup: Lookup): string {
  if (lookup.type === "found") {
    return `found ${lookup.route.method} ${lookup.route.path.text} (${lookup.route.source}) ${JSON.stringify(lookup.params)}`;
  }
  return JSON.stringify(lookup);
}

/** The first disagreement between the matcher and the naive scan on one random table. */
function checkTable(random: Random): string | undefined {
  const routes = randomTable(random, 1 + random.int(40));
  const matcher = new Matcher(routes);
  for (let i = 0; i < 60; i++) {
    const path = randomPath(random);
    // Built only on failure: the table text would dominate the run time.
    const where = (): string =>
      `table ${routes.map((r) => `${r.case === "ws" ? "WS" : r.method} ${r.path.text}`).join(", ")}; path /${path.join("/")}`;
    for (const method of METHODS) {
      const diff = difference(matcher.lookup(method, path), naiveLookup(routes, method, path));
      if (diff !== undefined) return `${method}: ${diff}; ${where()}`;
    }
    const ws = matcher.lookupWs(path);
    const expected = naiveLookupWs(routes, path);
    if (ws?.route !== expected?.route || JSON.stringify(ws?.params) !== JSON.stringify(expected?.params)) {
      return `WS: got ${ws?.route.path.text}, expected ${expected?.route.path.text}; ${where()}`;
    }
  }
  return undefined;
}

describe("Matcher agrees with a naive ordered scan", () => {
  it("on thousands of random overlapping tables", () => {
    const seed = Number(process.env.FW_SEED ?? Date.now() % 2 ** 32);
    const random = new Random(seed);
    for (let table = 0; table < 3000; table++) {
      const failure = checkTable(random);
      // The seed replays the whole run: FW_SEED=<seed> npx vitest run spec/routing
      if (failure !== undefined) expect.fail(`seed ${seed}, table #${table}: ${failure}`);
    }
  });
});

/** `lookupPath` on a raw path, or the 400 it throws, as text. */
function byPath(matcher: Matcher, method: (typeof METHODS)[number], raw: string): string {
  try {
    return show(matcher.lookupPath(method, raw));
  } catch (error) {
    return `throws ${(error as Error).message}`;
  }
}

/** The search on the split path, or the 400 splitting throws, as text. */
function bySegments(matcher: Matcher, method: (typeof METHODS)[number], raw: string): string {
  try {
    return show(matcher.lookup(method, splitPath(raw)));
  } catch (error) {
    return `throws ${(error as Error).message}`;
  }
}

describe("Matcher.lookupPath: a raw path answers as the search on its split segments", () => {
  it("for literal paths remembered at boot, and any other path", () => {
    const routes = [
      Route.get("/caf%C3%A9", notCalled),
      Route.get("/a%2Fb", notCalled),
      Route.get("/100%25", notCalled),
      Route.get("/:x", notCalled),
      Route.get("/about", notCalled),
      Route.post("/about", notCalled),
      Route.get("/", notCalled),
      Route.get("/files/*rest", notCalled),
      Route.get("/files", notCalled),
    ];
    const matcher = new Matcher(routes);
    const raws = ["/", "//", "/about", "/about/", "/caf\u00e9", "/caf%C3%A9", "/a/b", "/a%2Fb", "/100%", "/100%25", "/files", "/files/", "/%61bout", "/x/.."];
    for (const raw of raws) for (const method of METHODS) expect(byPath(matcher, method, raw), `${method} ${raw}`).toBe(bySegments(matcher, method, raw));
    // "/about" is won by "/:x" (params), so it is searched each time, never remembered.
    expect(found(matcher.lookupPath("GET", "/about")).params).toEqual({ x: "about" });
  });

  it("on random tables and paths", () => {
    const seed = Number(process.env.FW_SEED ?? Date.now() % 2 ** 32);
    const random = new Random(seed);
    for (let table = 0; table < 500; table++) {
      const routes = randomTable(random, 1 + random.int(20));
      const matcher = new Matcher(routes);
      for (let i = 0; i < 30; i++) {
        const segments = randomPath(random);
        const raw = `/${segments.join("/")}${random.next() < 0.3 ? "/" : ""}`;
        for (const method of METHODS) {
          const got = byPath(matcher, method, raw);
          const expected = bySegments(matcher, method, raw);
          if (got !== expected) expect.fail(`seed ${seed}, table #${table}, ${method} ${raw}: got ${got}, expected ${expected}`);
        }
      }
    }
  });
});
