import { describe, expect, it } from "vitest";
import { BootError, PathPattern } from "../../runtime/index.js";

describe("2.3 PathPattern", () => {
  it("parses literals, :name and *name, ignoring a trailing slash", () => {
    const pattern = PathPattern.parse("/posts/:id/files/*rest/");
    expect(pattern.text).toBe("/posts/:id/files/*rest");
    expect(pattern.segments).toEqual([
      { type: "literal", value: "posts" },
      { type: "param", name: "id" },
      { type: "literal", value: "files" },
      { type: "rest", name: "rest" },
    ]);
    expect(PathPattern.parse("/").segments).toEqual([]);
  });

  it("stores literals percent-decoded, so they compare with decoded request segments", () => {
    expect(PathPattern.parse("/caf%C3%A9").segments).toEqual([{ type: "literal", value: "café" }]);
  });

  it("fails boot, naming the pattern, on a catch-all that is not last", () => {
    expect(() => PathPattern.parse("/files/*rest/edit")).toThrow(BootError);
    expect(() => PathPattern.parse("/files/*rest/edit")).toThrow(/"\/files\/\*rest\/edit" has the catch-all "\*rest" before its last segment/);
  });

  it("fails boot, naming the pattern and the name, on a parameter name used twice", () => {
    expect(() => PathPattern.parse("/a/:id/b/:id")).toThrow(/"\/a\/:id\/b\/:id" uses the parameter name "id" twice/);
    expect(() => PathPattern.parse("/a/:id/*id")).toThrow(/"id" twice/);
  });

  it.each(["posts", "/a//b", "/:", "/:1x", "/*", "/:__proto__", "/%ZZ"])("refuses the malformed pattern %j", (text) => {
    expect(() => PathPattern.parse(text)).toThrow(BootError);
  });

  it("has one shape per set of matched paths: parameter names erased, a literal * kept apart from a catch-all", () => {
    expect(PathPattern.parse("/a/:x").shape).toBe(PathPattern.parse("/a/:y/").shape);
    expect(PathPattern.parse("/a/%2A").shape).not.toBe(PathPattern.parse("/a/*rest").shape);
    expect(PathPattern.parse("/a/%3A").shape).not.toBe(PathPattern.parse("/a/:p").shape);
  });
});
