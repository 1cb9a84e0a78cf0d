import { describe, expect, it } from "vitest";
import { BootError } from "../../runtime/routing/boot-error.js";
import { type CheckedRoutes, checkRoutes, findShadowed, type Shadowing } from "../../runtime/routing/conflicts.js";
import type { Segment } from "../../runtime/routing/path-pattern.js";
import { Origin, Route } from "../../runtime/routing/route.js";
import { notCalled, Random, randomTable } from "../support/random.js";

const get = (path: string, source: string) => Route.get(path, notCalled, { source });
const derived = (method: "GET" | "POST", path: string, source: string) =>
  Route.http({ method, path, handler: notCalled, origin: Origin.Resource, source });

function bootError(run: () => unknown): BootError {
  try {
    run();
  } catch (error) {
    if (error instanceof BootError) return error;
    throw error;
  }
  throw new Error("expected a BootError");
}

describe("checkRoutes: two routes on one method and path", () => {
  it("fails boot on two handwritten routes, naming both", () => {
    const error = bootError(() => checkRoutes([get("/posts/:id", "show.ts"), get("/posts/:key", "other.ts")]));
    expect(error.message).toContain("GET /posts/:id (from show.ts)");
    expect(error.message).toContain("GET /posts/:key (from other.ts)");
    expect(error.message).toMatch(/remove one/);
  });

  it("fails boot on two derived routes", () => {
    const error = bootError(() => checkRoutes([derived("GET", "/posts", "Post"), derived("GET", "/posts/", "Article")]));
    expect(error.message).toContain("(from Post)");
    expect(error.message).toContain("(from Article)");
  });

  it("fails boot on two ws routes of one shape", () => {
    const ws = (source: string) => Route.ws("/live/:room", { message() {} }, { source });
    expect(() => checkRoutes([ws("a.ts"), ws("b.ts")])).toThrow(BootError);
  });

  it("drops the derived route beside a handwritten one, with a warning naming both", () => {
    const before = get("/", "home.ts");
    const resource = derived("GET", "/posts/:id", "Post");
    const handwritten = get("/posts/:slug", "show.ts");
    const after = Route.post("/posts", notCalled, { source: "create.ts" });
    const checked = checkRoutes([before, resource, handwritten, after]);
    expect(checked.routes).toEqual([before, handwritten, after]); // in the derived route's place
    expect(checked.warnings).toHaveLength(1);
    expect(checked.warnings[0]).toContain("GET /posts/:id (from Post)");
    expect(checked.warnings[0]).toContain("GET /posts/:slug (from show.ts)");
  });

  it("serves the handwritten route in the derived one's place, so overriding Show leaves the derived New reachable", () => {
    const handwritten = get("/posts/:id", "posts/_id/Show.ts");
    const other = get("/about", "About.ts");
    const index = derived("GET", "/posts", "Post");
    const fresh = derived("GET", "/posts/new", "Post");
    const show = { ...derived("GET", "/posts/:id", "Post"), role: "Show" };
    const checked = checkRoutes([handwritten, other, index, fresh, show]);
    expect(checked.routes).toEqual([other, index, fresh, handwritten]);
  });

  it("a deliberate override (the derived page's method and path, parameters named alike) warns nobody at boot: `routes` lists it as a note", () => {
    const handwritten = get("/posts/:id", "src/app/posts/_id/Show.tsx");
    const show = { ...derived("GET", "/posts/:id", "src/models/Post.ts"), role: "Show" };
    const checked = checkRoutes([handwritten, show]);
    expect(checked.routes).toEqual([handwritten]);
    expect(checked.warnings).toEqual([]);
    expect(checked.notes).toEqual([
      "GET /posts/:id (from src/app/posts/_id/Show.tsx) overrides the derived Show page GET /posts/:id (from src/models/Post.ts), in its place; the model's other pages still link to it.",
    ]);
  });

  it("an override that does not look deliberate (the same shape, parameters named otherwise) still warns, saying how to make it deliberate", () => {
    const handwritten = get("/posts/:slug", "src/app/posts/_slug/Show.tsx");
    const show = { ...derived("GET", "/posts/:id", "src/models/Post.ts"), role: "Show" };
    const checked = checkRoutes([handwritten, show]);
    expect(checked.routes).toEqual([handwritten]);
    expect(checked.notes).toEqual([]);
    expect(checked.warnings).toEqual([
      "GET /posts/:id (from src/models/Post.ts) is dropped: the handwritten GET /posts/:slug (from src/app/posts/_slug/Show.tsx) is on the same method and path and is served instead. " +
        "That overrides the derived Show page; the model's other pages still link to it. If that is what you meant, write its path as /posts/:id (its parameters named alike) and this warning goes. " +
        "To remove the page rather than replace it, leave Show out of the model's actions (Actions.except(Show)).",
    ]);
  });

  it("keeps routes on one path with different methods", () => {
    const routes = [get("/posts/:id", "show.ts"), Route.delete("/posts/:id", notCalled, { source: "destroy.ts" })];
    expect(checkRoutes(routes)).toEqual({ routes, warnings: [], notes: [] });
  });

  it("tells a literal star from a catch-all", () => {
    const routes = [get("/files/%2A", "star.ts"), get("/files/*rest", "files.ts")];
    expect(checkRoutes(routes).routes).toEqual(routes);
  });

  it("tells only once about a handwritten route duplicating a derived one", () => {
    const checked = checkRoutes([get("/posts/:id", "show.ts"), derived("GET", "/posts/:id", "Post")]);
    expect([...checked.warnings, ...checked.notes]).toHaveLength(1);
  });
});

describe("checkRoutes: shadowing", () => {
  const warningsOf = (...routes: Route[]): readonly string[] => checkRoutes(routes).warnings;

  it("warns when an earlier param covers a later literal, naming both and the fix", () => {
    const warnings = warningsOf(get("/posts/:id", "show.ts"), get("/posts/new", "new.ts"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("GET /posts/new (from new.ts) is never reached");
    expect(warnings[0]).toContain("GET /posts/:id (from show.ts)");
    expect(warnings[0]).toMatch(/move it before .*, or remove one/);
  });

  it("does not warn when the literal comes first", () => {
    expect(warningsOf(get("/posts/new", "new.ts"), get("/posts/:id", "show.ts"))).toEqual([]);
  });

  it("warns when a catch-all covers a later catch-all", () => {
    const warnings = warningsOf(get("/*all", "all.ts"), get("/a/*rest", "a.ts"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("GET /a/*rest (from a.ts) is never reached");
    expect(warnings[0]).toContain("GET /*all (from all.ts)");
  });

  it("treats two catch-alls of one shape as duplicates, not shadowing", () => {
    expect(() => warningsOf(get("/a/*x", "x.ts"), get("/a/*y", "y.ts"))).toThrow(BootError);
    expect(warningsOf(get("/a/*x", "x.ts"), derived("GET", "/a/*y", "Post"))).toHaveLength(1);
  });

  it("warns when a shorter catch-all covers a longer one", () => {
    const warnings = warningsOf(get("/a/*x", "x.ts"), get("/a/b/*y", "y.ts"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("GET /a/b/*y (from y.ts)");
  });

  it("warns when a catch-all covers a path that ends where it starts, saying the catch-all answers it with an empty rest", () => {
    const warnings = warningsOf(get("/a/*x", "x.ts"), get("/a", "a.ts"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("its catch-all takes /a with `x` empty, so answer that case in its handler and remove this route");
  });

  it("tells a shadowed derived route to leave its action out, not to move (derived routes always come last)", () => {
    const [warning, ...rest] = warningsOf(get("/*page", "pages.ts"), derived("GET", "/posts", "Post"));
    expect(rest).toEqual([]);
    expect(warning).toContain("GET /posts (from Post) is never reached");
    expect(warning).toContain("leave the action out of the model's actions (Actions.except), or narrow /*page");
    expect(warning).not.toContain("move it before");
  });

  it("does not let a param or a literal cover a catch-all", () => {
    expect(warningsOf(get("/a/:x", "x.ts"), get("/a/*y", "y.ts"))).toEqual([]);
    expect(warningsOf(get("/a", "x.ts"), get("/a/*y", "y.ts"))).toEqual([]);
  });

  it("does not let a literal cover a param", () => {
    expect(warningsOf(get("/a/b", "b.ts"), get("/a/:x", "x.ts"))).toEqual([]);
  });

  it("does not warn across lengths or methods", () => {
    expect(warningsOf(get("/a/:x", "x.ts"), get("/a/b/c", "c.ts"))).toEqual([]);
    expect(warningsOf(Route.post("/a/:x", notCalled, { source: "x.ts" }), get("/a/b", "b.ts"))).toEqual([]);
    expect(warningsOf(Route.head("/a/:x", notCalled, { source: "x.ts" }), get("/a/b", "b.ts"))).toEqual([]);
  });

  it("warns when an earlier GET covers a later HEAD", () => {
    const warnings = warningsOf(get("/a/:x", "x.ts"), Route.head("/a/b", notCalled, { source: "b.ts" }));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("HEAD /a/b (from b.ts)");
    expect(warnings[0]).toContain("GET /a/:x (from x.ts)");
  });

  it("compares ws routes with ws routes only", () => {
    const ws = (path: string, source: string) => Route.ws(path, { message() {} }, { source });
    expect(warningsOf(ws("/live/*rest", "all.ts"), ws("/live/room", "room.ts"))).toHaveLength(1);
    expect(warningsOf(get("/live/*rest", "all.ts"), ws("/live/room", "room.ts"))).toEqual([]);
  });

  it("names the first earlier route that covers", () => {
    const first = get("/*all", "all.ts");
    const second = get("/a/:x", "x.ts");
    const third = get("/a/b", "b.ts");
    expect(findShadowed([first, second, third])).toEqual([
      { route: second, by: first },
      { route: third, by: first },
    ]);
  });
});

/** The spec's rule, pair by pair: does `a` match every path `b` matches? */
function covers(a: readonly Segment[], b: readonly Segment[]): boolean {
  for (let i = 0; ; i++) {
    const x = a[i];
    const y = b[i];
    if (x?.type === "rest") return true;
    if (x === undefined || y === undefined) return x === y;
    if (y.type === "rest") return false;
    if (x.type === "literal" && (y.type !== "literal" || y.value !== x.value)) return false;
  }
}

function naiveShadowed(routes: readonly Route[]): Shadowing[] {
  const key = (r: Route): string => (r.case === "ws" ? "WS" : r.method);
  const serves = (earlier: Route, later: Route): boolean =>
    key(earlier) === key(later) || (key(earlier) === "GET" && key(later) === "HEAD");
  return routes.flatMap((route, j) => {
    const by = routes.slice(0, j).find((e) => serves(e, route) && covers(e.path.segments, route.path.segments));
    return by === undefined ? [] : [{ route, by }];
  });
}

describe("findShadowed agrees with a naive pairwise check", () => {
  it("on thousands of random small tables", () => {
    const seed = Number(process.env.FW_SEED ?? Date.now() % 2 ** 32);
    const random = new Random(seed);
    for (let table = 0; table < 3000; table++) {
      const routes = randomTable(random, 1 + random.int(25));
      const actual = findShadowed(routes);
      const expected = naiveShadowed(routes);
      const same =
        actual.length === expected.length &&
        actual.every((s, i) => s.route === expected[i]?.route && s.by === expected[i]?.by);
      if (!same) {
        const name = (r: Route) => `${r.case === "ws" ? "WS" : r.method} ${r.path.text} (${r.source})`;
        const list = (ss: readonly Shadowing[]) => ss.map((s) => `${name(s.route)} by ${name(s.by)}`).join("; ");
        expect.fail(`seed ${seed}, table #${table}: got [${list(actual)}], expected [${list(expected)}]`);
      }
    }
  });

  it("and checkRoutes warns once per shadowed route that survives the duplicate check", () => {
    const seed = Number(process.env.FW_SEED ?? Date.now() % 2 ** 32);
    const random = new Random(seed);
    for (let table = 0; table < 500; table++) {
      const routes = randomTable(random, 1 + random.int(25));
      let checked: CheckedRoutes;
      try {
        checked = checkRoutes(routes);
      } catch (error) {
        if (error instanceof BootError) continue; // random tables often hold two routes of one origin on one path
        throw error;
      }
      const dropped = routes.length - checked.routes.length;
      expect(checked.warnings.length + checked.notes.length, `seed ${seed}`).toBe(dropped + naiveShadowed(checked.routes).length);
    }
  });
});

describe("checkRoutes: the reserved /fw prefix (spec 4.6)", () => {
  it("fails boot on an app route under /fw, naming its source file and the fix", () => {
    const error = bootError(() => checkRoutes([get("/", "src/app/Index.tsx"), get("/fw/status", "src/app/fw/status.ts")]));
    expect(error.message).toContain("GET /fw/status (from src/app/fw/status.ts) is under /fw");
    expect(error.message).toMatch(/move it to another path/);
    const socket = Route.ws("/FW/live", { message() {} }, { source: "src/app/FW/live.ts" });
    expect(checkRoutes([socket]).routes).toHaveLength(1); // paths are case-sensitive: /FW is the app's
    expect(() => checkRoutes([Route.ws("/fw", { message() {} }, { source: "src/app/fw.ts" })])).toThrow(/\(from src\/app\/fw\.ts\) is under \/fw/);
  });

  it("fw's own endpoints pass (fw/live's socket and client); the mark that lets them is no route field an app can set or copy", async () => {
    const { liveClientRoute } = await import("../../runtime/live/routes.js");
    const client = liveClientRoute();
    expect(checkRoutes([client]).routes).toEqual([client]);
    // A guard's `through` spreads the route: the copy is still fw's endpoint.
    expect(checkRoutes([{ ...client, guard: "someGuard" }]).routes).toHaveLength(1);
    // The public field that used to say so is no longer read.
    const claimed = { ...get("/fw/mine", "src/app/fw/Mine.ts"), fwEndpoint: true } as Route;
    expect(() => checkRoutes([claimed])).toThrow(/GET \/fw\/mine \(from src\/app\/fw\/Mine\.ts\) is under \/fw/);
    // Nor does a copy of fw's endpoint moved to another path under /fw pass as fw's.
    const moved = { ...client, path: get("/fw/mine", "x").path, source: "src/app/fw/Mine.ts" };
    expect(() => checkRoutes([moved])).toThrow(/GET \/fw\/mine \(from src\/app\/fw\/Mine\.ts\) is under \/fw/);
    expect(Object.keys(client)).not.toContain("fwEndpoint");
  });

  it("leaves alone routes that only start with fw, or whose first segment is a parameter", () => {
    expect(checkRoutes([get("/fwd", "a.ts"), get("/fw-notes", "b.ts"), get("/:section/health", "c.ts"), get("/docs/fw", "d.ts")]).routes).toHaveLength(4);
  });
});

describe("checkRoutes: the orphan check runs over the whole table (spec 4.3)", () => {
  const editPage = Route.http({
    method: "GET",
    path: "/drafts/:id/edit",
    handler: notCalled,
    origin: Origin.Resource,
    source: "src/models/Draft.ts",
    submits: { method: "PUT", path: "/drafts/:id" },
  });

  it("warns about a form page whose submit target no route of the table mounts", () => {
    expect(checkRoutes([editPage]).warnings.join("\n")).toMatch(/GET \/drafts\/:id\/edit \(from src\/models\/Draft\.ts\) shows a form that submits to PUT \/drafts\/:id, which is not mounted/);
  });

  it("a target mounted by another file of the table (a handwritten route, not the model's own Actions) counts, wherever it stands", () => {
    const handwritten = Route.put("/drafts/:key", notCalled, { source: "src/app/drafts/_key/Update.ts" });
    expect(checkRoutes([editPage, handwritten]).warnings).toEqual([]);
    expect(checkRoutes([handwritten, editPage]).warnings).toEqual([]);
    // Only the method and the path's shape matter: a PATCH there does not mount the PUT.
    expect(checkRoutes([editPage, Route.patch("/drafts/:key", notCalled, { source: "x.ts" })]).warnings).toHaveLength(1);
  });
});
