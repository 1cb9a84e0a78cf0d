import { describe, expect, it } from "vitest";
import { dirSegment, fileRole, isRouteFileName, patternText } from "../../transformer/conventions.js";
import { compareRows, sortRows } from "../../transformer/order.js";

describe("4.1 File names", () => {
  it.each([
    ["Index", "GET", "index", undefined],
    ["New", "GET", "new", "new"],
    ["Show", "GET", "show", undefined],
    ["Edit", "GET", "edit", "edit"],
    ["Create", "POST", "create", undefined],
    ["Update", "PUT", "update", undefined],
    ["Destroy", "DELETE", "destroy", undefined],
    ["About", "GET", "about", "about"],
    ["BlogRoll", "GET", "blogRoll", "blogroll"],
  ])("%s.ts → %s, export %s, suffix %s", (base, method, exportName, suffix) => {
    expect(fileRole(base)).toEqual({ method, exportName, suffix });
  });

  it("only names starting with an upper-case letter are route files", () => {
    expect(isRouteFileName("Index")).toBe(true);
    expect(isRouteFileName("helpers")).toBe(false);
    expect(isRouteFileName("Index.test")).toBe(false);
    expect(isRouteFileName("_Index")).toBe(false);
  });

  it("folders: plain → literal, _id → :id, __rest → *rest", () => {
    expect(dirSegment("posts")).toEqual({ type: "literal", text: "posts" });
    expect(dirSegment("_id")).toEqual({ type: "param", name: "id" });
    expect(dirSegment("__rest")).toEqual({ type: "rest", name: "rest" });
    expect(patternText([dirSegment("posts"), dirSegment("_id")], "edit")).toBe("/posts/:id/edit");
    expect(patternText([], undefined)).toBe("/");
    expect(patternText([dirSegment("a b")], undefined)).toBe("/a%20b");
  });
});

describe("4.2 Handwritten order", () => {
  const row = (method: string, pattern: string) => ({ method, pattern });

  it("segment by segment a literal before :name before *rest", () => {
    expect(compareRows(row("GET", "/a/b"), row("GET", "/a/:x"))).toBeLessThan(0);
    expect(compareRows(row("GET", "/a/:x"), row("GET", "/a/*r"))).toBeLessThan(0);
    expect(compareRows(row("GET", "/:x/b"), row("GET", "/a/:y"))).toBeGreaterThan(0);
  });

  it("on ties in rank a longer path before a shorter one, then path text, then method", () => {
    expect(compareRows(row("GET", "/a/b"), row("GET", "/a"))).toBeLessThan(0);
    expect(compareRows(row("GET", "/a/:x/c"), row("GET", "/b/:y"))).toBeLessThan(0);
    expect(compareRows(row("GET", "/about"), row("GET", "/blog"))).toBeLessThan(0);
    expect(compareRows(row("GET", "/a"), row("POST", "/a"))).toBeLessThan(0);
    expect(compareRows(row("PUT", "/a"), row("DELETE", "/a"))).toBeLessThan(0);
  });

  it("sorting does not depend on the order files were found in", () => {
    const rows = [row("GET", "/"), row("DELETE", "/p/:id"), row("GET", "/p/new"), row("GET", "/*all"), row("GET", "/p/:id"), row("POST", "/p")];
    const expected = ["GET /p/new", "GET /p/:id", "DELETE /p/:id", "POST /p", "GET /*all", "GET /"];
    expect(sortRows(rows).map((r) => `${r.method} ${r.pattern}`)).toEqual(expected);
    expect(sortRows([...rows].reverse()).map((r) => `${r.method} ${r.pattern}`)).toEqual(expected);
  });
});
