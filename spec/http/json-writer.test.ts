import { describe, expect, it, vi } from "vitest";
import { plainJson, typedJsonWriter } from "../../runtime/http/json-writer.js";

/**
 * Issue 31, item 6: a route's typed JSON answers go out through JSON.stringify when typia's exact
 * check accepts a plain value (both would write the same members), else through typia's checked
 * typed stringify. The build's side (typia's real functions for a handler's type) is
 * spec/http/json-api.test.ts.
 */
const typedText = '"written by typia"';

function writer(exact: boolean) {
  const check = vi.fn((_value: unknown) => exact);
  const typed = vi.fn((_value: unknown) => typedText);
  return { check, typed, write: typedJsonWriter(check, typed) };
}

describe("typedJsonWriter", () => {
  it("writes a plain value the exact check accepts with JSON.stringify, and never calls typia's writer", () => {
    const { check, typed, write } = writer(true);
    const posts = [{ id: 1, title: 'A "quoted" title', tags: ["a"], author: { id: 2, name: "Ada" }, updatedAt: null, draft: undefined }];
    expect(write(posts)).toBe(JSON.stringify(posts));
    expect(check).toHaveBeenCalledWith(posts);
    expect(typed).not.toHaveBeenCalled();
  });

  it("gives typia's writer a value the exact check refuses (a member the type leaves out, or not the type at all)", () => {
    const { typed, write } = writer(false);
    expect(write({ id: 1, passwordHash: "secret" })).toBe(typedText);
    expect(typed).toHaveBeenCalledTimes(1);
  });

  it("gives typia's writer what JSON.stringify would write otherwise: a Date, a class instance (getters), a toJSON, a hole in an array", () => {
    class Person {
      constructor(readonly first: string) {}
      get name(): string {
        return this.first;
      }
    }
    const values: unknown[] = [
      { at: new Date(0) },
      [new Person("Ada")],
      { id: 1, toJSON: () => ({ id: 2 }) },
      [1, undefined],
      { big: 1n },
      undefined,
    ];
    for (const value of values) {
      const { check, typed, write } = writer(true);
      expect(write(value)).toBe(typedText);
      expect(typed).toHaveBeenCalledWith(value);
      expect(check).not.toHaveBeenCalled();
    }
  });

  it("gives up on a cycle (or a value deeper than 64) and lets typia's writer report it, instead of overflowing the stack", () => {
    const cycle: Record<string, unknown> = { id: 1 };
    cycle["self"] = cycle;
    expect(plainJson(cycle)).toBe(false);
    let deep: unknown = 1;
    for (let i = 0; i < 100; i++) deep = [deep];
    expect(plainJson(deep)).toBe(false);
    expect(plainJson(Object.assign(Object.create(null) as object, { id: 1 }))).toBe(true);
  });
});
