import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { errorLines, FIXTURES, limited, tspc, type Built } from "../support/tspc.js";

/**
 * Mistakes TypeScript itself reports, where fw either says what TypeScript cannot (a failure is
 * thrown: TS91029 in place of "Did you mean to include 'new'?") or keeps quiet (a misspelt field
 * type: no follow-on TS91013 about `any`). Built plain, and with --incremental (the builder reads
 * diagnostics another way).
 */
const dir = join(FIXTURES, "typescript-mistakes");
let plain: Built;
let incremental: Built;

beforeAll(async () => {
  [plain, incremental] = (await limited(2, [() => tspc(dir), () => tspc(dir, ["--incremental"])])) as [Built, Built];
}, 300_000);

describe.each([
  ["plain", () => plain],
  ["--incremental", () => incremental],
])("TypeScript's own errors, %s", (_, built) => {
  it("`return NotFound(…)` and `throw NotFound()`: fw's TS91029 says to throw `new NotFound(…)`, TypeScript's TS2348 is gone", () => {
    const { output, code } = built();
    expect(code).not.toBe(0);
    const lines = errorLines(output).filter((line) => line.startsWith("src/app/Index.ts"));
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      expect(line).toMatch(/^src\/app\/Index\.ts\(\d+,\d+\): error TS91029: fw: `NotFound` is one of fw's failures: it is thrown, not called or returned\. Write `throw new NotFound\(…\)`/);
    }
  });

  it("`return new BadRequest(…)` where a Response is declared: TS91029 in place of Response's missing properties", () => {
    const lines = errorLines(built().output).filter((line) => line.includes("items/_id/Show.ts"));
    expect(lines).toEqual([expect.stringMatching(/^src\/app\/items\/_id\/Show\.ts\(4,3\): error TS91029: fw: `BadRequest` is one of fw's failures.*`throw new BadRequest\(…\)`/)]);
  });

  it("a failure returned with the return type inferred: TS91002 adds the same advice", () => {
    expect(built().output).toMatch(/src\/app\/items\/Index\.ts\(\d+,\d+\): error TS91002: fw: .*`index` returns `Response \| Forbidden`.*`Forbidden` is one of fw's failures: throw it, do not return it \(`throw new Forbidden\(…\)`\)/);
  });

  it("an app's own class called NotFound keeps TypeScript's error: only fw's failures get fw's advice", () => {
    const lines = errorLines(built().output).filter((line) => line.startsWith("src/app/Old.ts"));
    expect(lines).toEqual([expect.stringMatching(/error TS2348: Value of type 'typeof NotFound' is not callable/)]);
  });

  it("a misspelt model field type: TypeScript's TS2552 alone, no follow-on TS91013 about the unresolved type", () => {
    const lines = errorLines(built().output).filter((line) => line.startsWith("src/models/Note.ts"));
    expect(lines).toEqual([expect.stringMatching(/error TS2552: Cannot find name 'strng'/)]);
  });

  it("nothing else: no error in the generated module or elsewhere", () => {
    expect(errorLines(built().output)).toHaveLength(6);
  });
});
