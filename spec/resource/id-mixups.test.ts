import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BUILD_TIMEOUT_MS, errorLines, FIXTURES, tspc } from "../support/tspc.js";

/**
 * Issue 39, item 7: `Id<Post>` and `Id<Note>` are different types. spec/fixtures/id-mixups
 * passes a note's key where a post's is asked for, once in each place that takes a key (an
 * assignment, the typed path builder, a store's `where`, `Store.get`, fw/client's call), each
 * on a line marked WRONG, and once through an `Id` joined with another tag; a model's own key, a
 * number literal and a plain number build.
 */
describe("a key of one model where another model's key is asked for", () => {
  it(
    "fails the build on each marked line, and nowhere else",
    async () => {
      const dir = join(FIXTURES, "id-mixups");
      const built = await tspc(dir);
      expect(built.code).not.toBe(0);
      const source = readFileSync(join(dir, "src", "mixups.ts"), "utf8").split("\n");
      const marked = source.flatMap((line, i) => (line.includes("// WRONG") ? [i + 1] : []));
      expect(marked).toHaveLength(6);
      const errors = errorLines(built.output);
      expect(errors.map((line) => /^src\/mixups\.ts\((\d+),\d+\): error TS\d+/.exec(line)?.[1]).map(Number)).toEqual(marked);
      expect(errors.join("\n")).toContain("Type 'Id<Note>' is not assignable to type 'Id<Post>'");
      // `Id<Post> & Unique` (no alias left) is still read as a reference to Post by the build.
      const routes = readFileSync(join(dir, "src", ".fw", "routes.ts"), "utf8");
      expect(routes).toContain('{"name":"post","label":"Post","optional":false,"input":"reference","describe":"a post","unique":true,"reference":{"model":"Post"');
    },
    BUILD_TIMEOUT_MS,
  );
});
