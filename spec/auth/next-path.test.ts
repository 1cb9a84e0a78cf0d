import { describe, expect, it } from "vitest";
import { MAX_NEXT_LENGTH, safeNext } from "../../runtime/auth/index.js";

describe("After sign-in only a same-origin relative path is followed", () => {
  it.each([
    ["/"],
    ["/posts"],
    ["/posts/new?x=1&y=two"],
    ["/docs/caf%C3%A9"],
    ["/search?q=a%20b"],
    ["/a/b/c#part"],
  ])("%j is followed", (next) => {
    expect(safeNext(next)).toBe(next);
  });

  it.each([
    ["//evil.com"],
    ["///evil.com"],
    ["/\\evil.com"],
    ["\\\\evil.com"],
    ["https://evil.com"],
    ["http:evil.com"],
    ["javascript:alert(1)"],
    ["data:text/html,hi"],
    ["evil.com"],
    [""],
    [" /posts"],
    ["/%2F%2Fevil.com"],
    ["/%2f/evil.com"],
    ["%2F%2Fevil.com"],
    ["/%5Cevil.com"],
    ["/%5cevil.com"],
    ["/%252F%252Fevil.com"],
    ["/%25252F%25252Fevil.com"],
    ["/%09/evil.com"],
    ["/%0D%0ALocation:%20x"],
    ["/\t/evil.com"],
    ["/\n/evil.com"],
    ["/\u0000"],
    ["/%00"],
    ["/posts\u00e9"],
    ["/%E0%A4%A"],
    [`/${"a".repeat(MAX_NEXT_LENGTH)}`],
  ])("%j goes to /", (next) => {
    expect(safeNext(next)).toBe("/");
  });

  it("nothing asked goes to /", () => {
    expect(safeNext(undefined)).toBe("/");
  });
});
