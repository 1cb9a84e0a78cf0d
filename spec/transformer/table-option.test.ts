import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { FIXTURES, tspc, type Built } from "../support/tspc.js";

// A model's `table` is read by the build (issue 20): it must be a string literal and a plain SQL name.
let built: Built;

beforeAll(async () => {
  built = await tspc(join(FIXTURES, "table-errors"));
}, 120_000);

describe("issue 20: a model's table is read at build time", () => {
  it("a table that is not a string literal fails with TS91023 at it, saying what to write", () => {
    expect(built.code, built.output).not.toBe(0);
    expect(built.output).toMatch(/src\/models\/Bad\.ts\(10,51\): error TS91023: fw: src\/models\/Bad\.ts: the `table` of Tag must be a string literal the build can read: table: "tags"\./);
  });

  it("a table name that is not a plain SQL name fails with TS91023 at the name", () => {
    expect(built.output).toMatch(/src\/models\/Bad\.ts\(17,62\): error TS91023: .*the table name "bad name" of Label is not a plain SQL name.*\(e\.g\. "labels"\)/);
  });

  it("and nothing else fails: the model with a good table builds", () => {
    expect(built.output.match(/error TS\d+/g)).toEqual(["error TS91023", "error TS91023"]);
  });
});
