import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BUILD_TIMEOUT_MS, errorLines, FIXTURES, tspc } from "../support/tspc.js";

/**
 * Issue 31, item 5: a program calling the app's API wrongly does not build. spec/fixtures/client-misuse
 * calls its own API through fw/client, typed by the generated Api, with one mistake per marked line.
 */
describe("a wrong call through fw/client is a type error in the caller", () => {
  it(
    "each wrong path, parameter, body, method and answer use fails the build on its own line, and nothing else does",
    async () => {
      const dir = join(FIXTURES, "client-misuse");
      const built = await tspc(dir);
      expect(built.code).not.toBe(0);
      const source = readFileSync(join(dir, "src", "calls.ts"), "utf8").split("\n");
      const marked = source.flatMap((line, i) => (line.includes("// WRONG") ? [i + 1] : []));
      const errors = errorLines(built.output);
      expect(errors.map((line) => /^src\/calls\.ts\((\d+),\d+\): error TS\d+/.exec(line)?.[1]).map(Number)).toEqual(marked);
      expect(errors.join("\n")).toContain(`Argument of type '"/api/note/:id"' is not assignable to parameter of type '"/api/notes/:id"'`);
      expect(errors.join("\n")).toContain(`'txt' does not exist in type 'NewNote'`);
      expect(errors.join("\n")).toContain(`parameter of type '"(the app has no DELETE API route)"'`);
    },
    BUILD_TIMEOUT_MS,
  );
});
