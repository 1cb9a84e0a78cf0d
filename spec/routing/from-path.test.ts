import { describe, expect, it } from "vitest";
import { FromPath } from "../../runtime/index.js";

/** How typia's `http.createParameter<number & tags.Type<"uint32">>()` reads a segment: `Number()`, then its check. */
const typiaLikeUint32 = (segment: string): number => {
  const value = Number(segment);
  if (!Number.isInteger(value) || value < 0 || value > 4294967295) throw new Error(`expected uint32, got ${segment}`);
  return value;
};

const NOT_CANONICAL = ["0x1", "1e0", "1.0", "01", "+1", " 1", "1 ", ""];

/** Issue 39, item 8: a number in a path has one spelling; `/posts/01` is no post's address. */
describe("FromPath decoders read numbers strictly", () => {
  it.each(NOT_CANONICAL)("FromPath.int refuses %j", (segment) => {
    expect(FromPath.int.read(segment)).toBeUndefined();
  });

  it.each(NOT_CANONICAL)("FromPath.typia refuses %j, which Number() reads as 1 (or 0)", (segment) => {
    expect(typiaLikeUint32(segment === "" ? "0" : segment)).toBeLessThanOrEqual(1); // what the parse alone would take
    expect(FromPath.typia("Id<Post>", typiaLikeUint32).read(segment)).toBeUndefined();
  });

  it("keeps what reads as itself: integers, a negative, a decimal for a plain number, text for a string", () => {
    expect(FromPath.int.read("-7")).toEqual({ value: -7 });
    expect(FromPath.typia("Id<Post>", typiaLikeUint32).read("7")).toEqual({ value: 7 });
    expect(FromPath.typia("number", Number).read("1.5")).toEqual({ value: 1.5 });
    expect(FromPath.typia("number", Number).read("1.50")).toBeUndefined();
    expect(FromPath.typia("bigint", BigInt).read("12")).toEqual({ value: 12n });
    expect(FromPath.typia("bigint", BigInt).read("0x12")).toBeUndefined();
    expect(FromPath.typia("string", (s) => s).read("01")).toEqual({ value: "01" });
  });

  it("a number past the type's range is refused by typia's own check", () => {
    expect(FromPath.typia("Id<Post>", typiaLikeUint32).read("4294967296")).toBeUndefined();
    expect(FromPath.typia("Id<Post>", typiaLikeUint32).read("4294967295")).toEqual({ value: 4294967295 });
  });
});
