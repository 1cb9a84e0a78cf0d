import { describe, expect, it } from "vitest";
import { METHODS } from "../../runtime/http/method.js";
import { explainMatch } from "../../runtime/routing/explain.js";
import { Matcher } from "../../runtime/routing/matcher.js";
import { Route } from "../../runtime/routing/route.js";
import { matchReport } from "../../runtime/server/routes-match.js";
import { Random, randomPath, randomTable } from "../support/random.js";

describe("routes --match: the in-order explanation agrees with the Matcher", () => {
  it("on random overlapping tables: same answering route, and for a 405 the same methods", () => {
    for (let seed = 1; seed <= 300; seed++) {
      const random = new Random(seed);
      const routes = randomTable(random, 1 + random.int(25));
      const matcher = new Matcher(routes);
      for (let n = 0; n < 30; n++) {
        const method = random.pick(METHODS);
        const segments = randomPath(random);
        const lookup = matcher.lookup(method, segments);
        const considered = explainMatch(routes, method, segments);
        const last = considered[considered.length - 1];
        const context = `seed ${seed}: ${method} /${segments.join("/")}`;
        if (lookup.type === "found") {
          expect(last?.verdict.type, context).toBe("answers");
          expect(last?.route, context).toBe(lookup.route);
        } else {
          expect(considered, context).toHaveLength(routes.length);
          expect(considered.every((entry) => entry.verdict.type !== "answers"), context).toBe(true);
          const differing = new Set(considered.flatMap((entry) => (entry.verdict.type === "method" ? [entry.verdict.serves] : [])));
          if (differing.has("GET")) differing.add("HEAD");
          expect([...differing].sort(), context).toEqual(lookup.type === "method" ? [...lookup.allowed].sort() : []);
        }
        // The report checks the same agreement itself, and throws when it fails.
        expect(() => matchReport(routes, { method, target: `/${segments.map(encodeURIComponent).join("/")}` }), context).not.toThrow();
      }
    }
  });

  it("says where a pattern fails: a different literal, a path too short or too long, an empty segment", () => {
    const routes = [
      Route.get("/a/b", () => {
        throw new Error("never");
      }),
      Route.get("/a/:x/c", () => {
        throw new Error("never");
      }),
      Route.get("/", () => {
        throw new Error("never");
      }),
    ];
    const why = (segments: string[]): string[] =>
      explainMatch(routes, "GET", segments).map((entry) => (entry.verdict.type === "pattern" ? entry.verdict.why : entry.verdict.type));
    expect(why(["a", "z"])).toEqual([
      'segment 2 is "z", the pattern wants "b"',
      "the path ends after 2 segments; the pattern goes on with \"c\"",
      "the path has 2 segments, the pattern 0 segments",
    ]);
    expect(why(["a", "", "c"])[1]).toBe("segment 2 is empty, and :x takes a non-empty one");
    expect(why(["a"])[0]).toBe('the path ends after 1 segment; the pattern goes on with "b"');
  });
});
