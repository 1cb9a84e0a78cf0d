import { describe, expect, it } from "vitest";
import { isNumberText, readWholeNumber, UINT32_MAX } from "../../runtime/http/number-text.js";

/** Issue 39, item 8: the one reader of whole numbers written as text (paths, queries, forms). */
describe("readWholeNumber: digits alone, one spelling per number", () => {
  it("reads plain decimal digits within the range", () => {
    expect(readWholeNumber("1", 0, UINT32_MAX)).toBe(1);
    expect(readWholeNumber("0", 0, UINT32_MAX)).toBe(0);
    expect(readWholeNumber("4294967295", 0, UINT32_MAX)).toBe(UINT32_MAX);
    expect(readWholeNumber("-12", -20, 20)).toBe(-12);
    expect(readWholeNumber(String(Number.MAX_SAFE_INTEGER), 0, Number.MAX_SAFE_INTEGER)).toBe(Number.MAX_SAFE_INTEGER);
  });

  it.each(["0x1", "1e0", "1.0", "01", "+1", " 1", "1 ", "\t1", "", "-0", "00", "1_000", "١", "Infinity", "NaN", "0b1", "0o1", "1n", "-"])(
    "refuses %j",
    (text) => expect(readWholeNumber(text, -10, UINT32_MAX)).toBeUndefined(),
  );

  it("refuses a number outside the range, and one past what a number holds exactly (never rounded)", () => {
    expect(readWholeNumber("4294967296", 0, UINT32_MAX)).toBeUndefined();
    expect(readWholeNumber("-1", 0, UINT32_MAX)).toBeUndefined();
    expect(readWholeNumber("9007199254740993", 0, Number.MAX_SAFE_INTEGER)).toBeUndefined();
    expect(readWholeNumber("9".repeat(400), 0, Number.MAX_SAFE_INTEGER)).toBeUndefined();
  });

  it("isNumberText: the text must be how the number is written (String(value))", () => {
    expect(isNumberText("1.5", 1.5)).toBe(true);
    expect(isNumberText("1.50", 1.5)).toBe(false);
    expect(isNumberText("7", 7n)).toBe(true);
    expect(isNumberText("0x7", 7n)).toBe(false);
  });
});
