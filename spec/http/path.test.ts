import { describe, expect, it } from "vitest";
import { BadRequest } from "../../runtime/index.js";
import { originForm, splitPath } from "../../runtime/http/path.js";

describe("2.3 Request paths", () => {
  it.each([
    ["/", []],
    ["", []],
    ["/a", ["a"]],
    ["/a/", ["a"]],
    ["/a/b/c", ["a", "b", "c"]],
    ["/a%2Fb/x", ["a/b", "x"]],
    ["/a%5Cb", ["a\\b"]],
    ["/..a%2Fb..", ["..a/b.."]],
    ["/a/%E2%9C%93", ["a", "✓"]],
    ["/a/.b", ["a", ".b"]],
    ["/...", ["..."]],
    ["/a%20b/", ["a b"]],
  ])("%j splits into %j", (path, segments) => {
    expect(splitPath(path)).toEqual(segments);
  });

  it.each([
    "/./a", "/a/..", "/a/%2e%2e", "/a/%00", "/a/%ZZ", "/a/%E2%9C", "/a/%C0%AF",
    "/a//b", "//", "//a", "/a//",
    "/..%2Fetc", "/a%2F..", "/a%2F.%2Fb", "/%2Fetc", "/a%2F", "/%2F", "/a%2F%2Fb", "/..\\x", "/a%5C..%5Cb",
  ])("%j is a 400", (path) => {
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
      const refused = (s: string): boolean => s.split("/").some((piece) => piece === "" || piece === "." || piece === "..");
      if (expected.some(refused)) expect(() => splitPath(path)).toThrow(BadRequest);
      else expect(splitPath(path), path).toEqual(expected);
    }
  });
});

describe("Request targets (RFC 9112 section 3.2)", () => {
  it.each([
    ["/a/b?x=1", "/a/b?x=1"],
    ["http://example.com/a/b?x=1", "/a/b?x=1"],
    ["HTTPS://Example.COM/a", "/a"],
    ["http://example.com", "/"],
    ["http://example.com?x=1", "/?x=1"],
  ])("%s is served as %s", (target, expected) => {
    expect(originForm(target, "example.com")).toBe(expected);
  });

  it("the absolute-form's authority must be the Host header's, port included", () => {
    expect(originForm("http://example.com:8080/a", "example.com:8080")).toBe("/a");
    expect(() => originForm("http://example.com:8080/a", "example.com")).toThrow(/names the host "example.com:8080", but the Host header says "example.com"/);
    expect(() => originForm("http://evil.test/a", "example.com")).toThrow(BadRequest);
    expect(() => originForm("http://user@example.com/a", "example.com")).toThrow(BadRequest);
    expect(() => originForm("http://example.com/a", undefined)).toThrow(BadRequest);
  });

  it.each(["*", "example.com:443", "ftp://example.com/a", "a/b", "", "http:/example.com/a"])("%j is a 400", (target) => {
    expect(() => originForm(target, "example.com")).toThrow(BadRequest);
  });
});
