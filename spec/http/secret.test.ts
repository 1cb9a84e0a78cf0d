import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { Secret } from "../../runtime/index.js";

const value = "s".repeat(32);

describe("2.10 Secret", () => {
  it("redacts its string, JSON and inspect forms", () => {
    const secret = new Secret(value);
    expect(String(secret)).not.toContain(value);
    expect(`${secret}`).toBe("Secret(<redacted>)");
    expect(JSON.stringify({ secret })).toBe('{"secret":"Secret(<redacted>)"}');
    expect(inspect(secret)).toBe("Secret(<redacted>)");
    expect(inspect({ nested: { secret } })).not.toContain(value);
  });

  it("compares by value", () => {
    expect(new Secret(value).equals(new Secret(value))).toBe(true);
    expect(new Secret(value).equals(new Secret("t".repeat(32)))).toBe(false);
    expect(new Secret(value).equals(new Secret(value + "x"))).toBe(false);
  });

  it("refuses fewer than 32 bytes, saying how to make one", () => {
    expect(() => new Secret("short")).toThrow(/5 bytes; fw needs at least 32.*randomBytes/);
    expect(() => new Secret("é".repeat(16))).not.toThrow(); // 32 bytes in UTF-8
  });
});
