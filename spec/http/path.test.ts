import { describe, expect, it } from "vitest";
import { BadRequest } from "../../runtime/index.js";
import { splitPath } from "../../runtime/http/path.js";

describe("2.3 Request paths", () => {
  it.each([
    ["/", []],
    ["", []],
    ["/a", ["a"]],
    ["/a/", ["a"]],
    ["/a//b", ["a", "", "b"]],
    ["//", [""]],
    ["/a/b/c", ["a", "b", "c"]],
    ["/%2F/x", ["/", "x"]],
    ["/a/%E2%9C%93", ["a", "✓"]],
    ["/a/.b", ["a", ".b"]],
    ["/...", ["..."]],
    ["/a%20b/", ["a b"]],
  ])("%j splits into %j", (path, segments) => {
    expect(splitPath(path)).toEqual(segments);
  });

  it.each(["/./a", "/a/..", "/a/%2e%2e", "/a/%00", "/a/%ZZ", "/a/%E2%9C", "/a/%C0%AF"])("%j is a 400", (path) => {
    expect(() => splitPath(path)).toThrow(BadRequest);
  });

  it("agrees with the plain split-then-decode on random paths", () => {
    const alphabet = ["a", "b", "", "%20", "%2F", ".", "x.y", "%41"];
    let seed = 7;
    const next = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let i = 0; i < 2000; i++) {
      const parts = Array.from({ length: 1 + next(5) }, () => alphabet[next(alphabet.length)] as string);
      const path = "/" + parts.join("/") + (next(2) === 0 ? "/" : "");
      const trimmed = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
      const expected = trimmed === "/" ? [] : trimmed.slice(1).split("/").map(decodeURIComponent);
      if (expected.some((s) => s === "." || s === "..")) expect(() => splitPath(path)).toThrow(BadRequest);
      else expect(splitPath(path), path).toEqual(expected);
    }
  });
});
