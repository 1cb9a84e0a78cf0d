import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import ts from "typescript";
import { expect, it } from "vitest";

// The client is plain JavaScript with `// @ts-check` and JSDoc types; `npm run typecheck` has no
// DOM types, so this checks it on its own, strictly, against the browser's (DOM) library.
it("fw/live's client (runtime/live/client/live.js) type-checks strictly against the DOM", () => {
  const file = fileURLToPath(new URL("../../runtime/live/client/live.js", import.meta.url));
  const program = ts.createProgram([file], {
    allowJs: true,
    checkJs: true,
    noEmit: true,
    strict: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    lib: ["lib.es2023.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
    types: [],
  });
  const problems = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
  expect(problems).toEqual([]);
});

it("fw/live's client stays within its size target: 10 KB gzipped", () => {
  const source = readFileSync(new URL("../../runtime/live/client/live.js", import.meta.url));
  expect(gzipSync(source, { level: 9 }).length).toBeLessThanOrEqual(10 * 1024);
});
