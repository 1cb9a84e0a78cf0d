import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { runNode } from "../support/process.js";
import { BUILD_TIMEOUT_MS, FIXTURES, tspc } from "../support/tspc.js";

const dir = join(FIXTURES, "plain-client");
const tsc = resolve("node_modules/typescript/bin/tsc");

/**
 * Issue 39, item 9: a program beside the app, calling it through fw/client and built with plain
 * `tsc` (docs/guides/json-apis.md). Its `answers` are typia's checks, which only typia's transform
 * writes: loading them from a plain build says what to use, never "typia is not defined"; the
 * API's types alone build and run.
 */
describe("fw/client in a program built with plain tsc", () => {
  it(
    "importing `answers` stops at load with a message naming tspc and the type-only import; `import type { Api }` builds and runs",
    async () => {
      expect((await tspc(dir)).code).toBe(0);
      const plain = await runNode(tsc, ["-p", "tsconfig.client.json"], {}, dir);
      expect([plain.code, plain.out + plain.err]).toEqual([0, ""]);
      const checked = await runNode(join(dir, "dist/client/client/checked.js"), [], {}, dir);
      expect(checked.code).not.toBe(0);
      expect(checked.err).not.toContain("typia is not defined");
      expect(checked.err).toContain("fw: the app's .fw/api.ts was compiled without typia's transform (plain tsc?), so `answers`, typia's checks of each answer, cannot run. Build this program with tspc and typia's transform in compilerOptions.plugins");
      expect(checked.err).toContain("or import only `type Api` from .fw/api.js and call createClient without `answers`.");
      const typed = await runNode(join(dir, "dist/client/client/typed.js"), [], {}, dir);
      expect([typed.code, typed.out.trim()]).toEqual([0, "client ready: function"]);
    },
    2 * BUILD_TIMEOUT_MS,
  );
});
