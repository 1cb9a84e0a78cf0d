import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { FIXTURES, tspc, type Built } from "../support/tspc.js";

// A model field named `_…` could never be carried by a form: fw's forms reserve those names
// (`_method` overrides the verb, `_csrf` carries the token; spec 2.15, 5.8).
let built: Built;

beforeAll(async () => {
  built = await tspc(join(FIXTURES, "reserved-field"));
}, 120_000);

describe("2.15 A model field whose name starts with `_` fails the build", () => {
  it("with TS91018 at the field, naming the model file, the field, and the fix", () => {
    expect(built.code, built.output).not.toBe(0);
    expect(built.output).toMatch(
      /src\/models\/Order\.ts\(7,3\): error TS91018: fw: src\/models\/Order\.ts: the field `_method` of the model Order starts with "_", which fw reserves for the fields its forms send \(_method, _csrf\)\. Rename it, e\.g\. `method`\./,
    );
    expect(built.output).toMatch(/src\/models\/Order\.ts\(8,3\): error TS91018: .*the field `_csrf` of the model Order .*Rename it, e\.g\. `csrf`\./);
  });

  it("and gives no other diagnostic for the model (its other fields are fine)", () => {
    expect(built.output.match(/error TS\d+/g)).toEqual(["error TS91018", "error TS91018"]);
  });
});
