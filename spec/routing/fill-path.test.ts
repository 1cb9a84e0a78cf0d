import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fillPath, Fields, Ok, Route } from "../../runtime/index.js";
import { pathFiller } from "../../runtime/routing/fill-path.js";
import { isHttpFailure } from "../../runtime/http/failure.js";
import { splitPath } from "../../runtime/http/path.js";
import { Matcher } from "../../runtime/routing/matcher.js";

/** Issue 31 item 1: a pattern filled with values gives the path the matcher reads them back from. */
describe("fillPath builds a path of the table from its pattern", () => {
  it("fills parameters, a catch-all and a query, percent-encoding each segment and field", () => {
    expect(fillPath("/")).toBe("/");
    expect(fillPath("/posts")).toBe("/posts");
    expect(fillPath("/posts/:id", { id: 7 })).toBe("/posts/7");
    expect(fillPath("/posts/:id/edit", { id: 7n })).toBe("/posts/7/edit");
    expect(fillPath("/tags/:tag", { tag: "a b/c?d#e" })).toBe("/tags/a%20b%2Fc%3Fd%23e");
    expect(fillPath("/docs/*rest", { rest: "guides/live pages" })).toBe("/docs/guides/live%20pages");
    expect(fillPath("/flags/:on", { on: false })).toBe("/flags/false");
    expect(fillPath("/posts", {}, { page: 2, order: "-title", q: "a&b=c", none: undefined })).toBe("/posts?page=2&order=-title&q=a%26b%3Dc");
    expect(fillPath("/posts", {}, { tag: ["x", "y z"] })).toBe("/posts?tag=x&tag=y%20z");
    expect(fillPath("/posts", {}, {})).toBe("/posts");
  });

  it("writes a whole-number key as its digits (the derived pages' shortcut) and any other number as String() and percent-encoding write it", () => {
    expect(fillPath("/posts/:id", { id: -3 })).toBe("/posts/-3");
    expect(fillPath("/posts/:id", { id: Number.MAX_SAFE_INTEGER })).toBe(`/posts/${Number.MAX_SAFE_INTEGER}`);
    expect(fillPath("/posts/:id", { id: 1e21 })).toBe("/posts/1e%2B21");
    expect(fillPath("/posts/:id", { id: 1.5 })).toBe("/posts/1.5");
    expect(fillPath("/posts/:id", { id: Number.NaN })).toBe("/posts/NaN");
    expect(() => fillPath("/posts/:other", { id: 7 })).toThrow("the parameter `other` is missing");
    expect(() => fillPath("/posts", {}, { q: "\ud800" })).toThrow("fillPath: the query field `q` is not valid Unicode text");
  });

  it("an empty catch-all is the path without it, as the matcher answers it", () => {
    expect(fillPath("/docs/*rest", { rest: "" })).toBe("/docs");
    expect(fillPath("/*rest", { rest: "" })).toBe("/");
  });

  it("throws, naming the pattern and the parameter, for a missing parameter and for values no segment holds", () => {
    expect(() => fillPath("/posts/:id", {})).toThrow('fillPath("/posts/:id"): the parameter `id` is missing: pass { id: … }.');
    expect(() => fillPath("/posts/:id", { id: "" })).toThrow(/the parameter `id` is "", which no path segment can hold/);
    expect(() => fillPath("/posts/:id", { id: ".." })).toThrow(/the parameter `id` is "\.\."/);
    expect(() => fillPath("/docs/*rest", { rest: "a//b" })).toThrow(/the parameter `rest` is ""/);
    expect(() => fillPath("/docs/*rest", { rest: "a/../b" })).toThrow(/the parameter `rest` is "\.\."/);
    expect(() => fillPath("/tags/:tag", { tag: "\ud800" })).toThrow(/the parameter `tag` is not valid Unicode text/);
    expect(() => fillPath("posts")).toThrow(/a pattern starts with "\/"/);
  });

  it("whatever the values, the matcher reads the filled path back to the same parameters, and the query to the same fields", () => {
    const routes = [Route.get("/a/:one/b/:two", () => Ok("")), Route.get("/c/*rest", () => Ok(""))];
    const matcher = new Matcher(routes);
    const text = fc.oneof(fc.string({ maxLength: 10, unit: "grapheme" }), fc.array(fc.constantFrom("a", ".", "/", "\\", "\0", " ", "%", "é"), { maxLength: 6 }).map((parts) => parts.join("")));
    fc.assert(
      fc.property(text, text, fc.array(text, { maxLength: 4 }), fc.string({ maxLength: 8 }), (one, two, pieces, field) => {
        // A value fillPath refuses is one the server would answer 400 (splitPath refuses it too).
        const refusedToo = (value: string): boolean => {
          try {
            splitPath(`/x/${encodeURIComponent(value)}/y`);
            return false;
          } catch (error) {
            return isHttpFailure(error);
          }
        };
        let filled: string;
        try {
          filled = fillPath("/a/:one/b/:two", { one, two });
        } catch (error) {
          expect(String(error)).toContain("which no path segment can hold");
          expect(refusedToo(one) || refusedToo(two)).toBe(true);
          return;
        }
        const first = matcher.lookupPath("GET", filled);
        expect(first.type === "found" ? first.params : first).toEqual({ one, two });
        const rest = pieces.filter((p) => !p.includes("/") && !refusedToo(p)).join("/");
        const second = matcher.lookupPath("GET", fillPath("/c/*rest", { rest }));
        expect(second.type === "found" ? second.params : second).toEqual({ rest });
        const withQuery = fillPath("/c/*rest", { rest }, { q: field });
        expect(Fields.parse(withQuery.slice(withQuery.indexOf("?") + 1), "query").get("q")).toBe(field);
      }),
      { numRuns: 1000 },
    );
  });
});

/** Issue 29's Index of 50 rows fills 100 to 150 links from a handful of patterns: a pattern made ready once writes what fillPath writes. */
describe("pathFiller fills one pattern's one parameter many times", () => {
  it("writes exactly what fillPath writes, for whole numbers (its shortcut) and any other value (fillPath's checks)", () => {
    const patterns = ["/posts/:id", "/posts/:id/edit", "/a/b/:id/c/d", "/:id", "/x/:id/y/*rest", "/x/:other", "/plain", "/docs/*id"];
    const value = fc.oneof(
      fc.integer(),
      fc.double(),
      fc.constantFrom(Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 2, -0, 1e21, Number.NaN),
      fc.bigInt(),
      fc.boolean(),
      fc.string({ maxLength: 6 }),
      fc.constantFrom("", ".", "..", "a/b", "\ud800"),
    );
    const outcome = (make: () => string): string => {
      try {
        return make();
      } catch (error) {
        return `threw: ${String(error)}`;
      }
    };
    fc.assert(
      fc.property(fc.constantFrom(...patterns), value, (pattern, one) => {
        const fill = pathFiller(pattern, "id");
        expect(outcome(() => fill(one))).toBe(outcome(() => fillPath(pattern, { id: one })));
      }),
      { numRuns: 2000 },
    );
    expect(pathFiller("/posts/:id/edit", "id")(7)).toBe("/posts/7/edit");
  });
});
