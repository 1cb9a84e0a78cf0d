import { describe, expect, it } from "vitest";
import { parseInt8 } from "../../runtime/db/values.js";
import { onEveryEngine } from "./engines.js";

// docs/guides/database.md: the key and other bigint columns read as numbers while they are
// safe integers, as bigints beyond; the same on both engines. pg's text is read by parseInt8,
// which takes a short number without making a BigInt (a page of 50 rows reads 100 of them).
const CASES: readonly [string, number | bigint][] = [
  ["0", 0],
  ["7", 7],
  ["-7", -7],
  ["999999999999999", 999_999_999_999_999],
  ["-999999999999999", -999_999_999_999_999],
  ["1000000000000000", 1_000_000_000_000_000],
  ["-1000000000000000", -1_000_000_000_000_000],
  ["9007199254740991", Number.MAX_SAFE_INTEGER],
  ["-9007199254740991", Number.MIN_SAFE_INTEGER],
  ["9007199254740992", 9007199254740992n],
  ["-9007199254740992", -9007199254740992n],
  ["9223372036854775807", 9223372036854775807n],
  ["-9223372036854775808", -9223372036854775808n],
];

describe("issue 20: int8 values read as numbers while safe, bigints beyond", () => {
  it("parseInt8, at the boundaries of the short path and of the safe integers", () => {
    for (const [text, value] of CASES) expect([text, parseInt8(text)]).toEqual([text, value]);
  });

  onEveryEngine((engine) => {
    it(`${engine.name} reads int8 columns by the same rule`, async () => {
      const select = CASES.map(([text], i) => `'${text}'::int8 AS v${i}`).join(", ");
      const { rows } = await engine.db().query(`SELECT ${select}`);
      expect(CASES.map((_, i) => rows[0]?.[`v${i}`])).toEqual(CASES.map(([, value]) => value));
    });
  });
});
