import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runNode } from "../support/process.js";
import { BUILD_TIMEOUT_MS, FIXTURES, run as tspc, watch } from "../support/tspc.js";

// Issue 39 item 15: the tutorial's step 2 deletes src/tests/home.test.ts, and the app's
// `npm test` (tspc -p . && node --test dist/tests/*.test.js) went on running the
// dist/tests/home.test.js an earlier build had written: tsc never deletes an output. An app made
// by `fw new`, built as its scripts build it (tspc, with fw's transformer), inside the checkout so
// its packages resolve from the checkout's node_modules (as spec/dev/new-app.test.ts does).
const FW = resolve("bin/fw.js");
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** `npm test` in the app: its own script, as a developer runs it. */
function npmTest(dir: string): Promise<{ code: number | null; out: string }> {
  return new Promise((done) => {
    const child = spawn("npm", ["test"], { cwd: dir, env: { ...process.env, FW_SECRET: undefined, DATABASE_URL: undefined, NODE_ENV: undefined } });
    let out = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.stderr.on("data", (chunk) => (out += chunk));
    child.on("close", (code) => done({ code, out }));
  });
}

const OTHER_TEST = `import assert from "node:assert/strict";
import { test } from "node:test";

test("the only test left", () => {
  assert.equal(1 + 1, 2);
});
`;

describe("issue 39 item 15: the build removes the outputs of deleted sources", () => {
  it("a deleted test's output is gone after the next build, so the app's npm test no longer runs it; files no build listed stay", async () => {
    const dir = join(mkdtempSync(join(FIXTURES, "_tmp-stale-")), "app");
    made.push(dirname(dir));
    const created = await runNode(FW, ["new", dir]);
    expect(created.code, created.err).toBe(0);
    mkdirSync(join(dir, "node_modules"));
    symlinkSync(resolve("."), join(dir, "node_modules", "fw"), "dir");

    const first = await tspc(dir);
    expect(first.output).toBe("");
    for (const file of ["dist/tests/home.test.js", "dist/tests/home.test.js.map", "dist/models/Item.js", "dist/.fw/routes.js"]) expect(existsSync(join(dir, file)), file).toBe(true);
    // What the build wrote, listed beside it (paths relative to dist/).
    expect(JSON.parse(readFileSync(join(dir, "dist/.fw-outputs.json"), "utf8"))).toEqual(expect.arrayContaining(["tests/home.test.js", "tests/home.test.js.map", "main.js", ".fw/routes.js"]));
    // Not the build's: a file put in dist/ by hand, and what `fw bundle` writes.
    mkdirSync(join(dir, "dist/bundle"));
    writeFileSync(join(dir, "dist/bundle/main.js"), "// fw bundle's\n");
    writeFileSync(join(dir, "dist/notes.txt"), "mine\n");

    // Step 2 of the tutorial: the test goes (another takes its place), and the model with it.
    rmSync(join(dir, "src/tests/home.test.ts"));
    writeFileSync(join(dir, "src/tests/other.test.ts"), OTHER_TEST);
    rmSync(join(dir, "src/models/Item.ts"));
    writeFileSync(join(dir, "src/layout.tsx"), readFileSync(join(dir, "src/layout.tsx"), "utf8").replace(' <a href="/items">Items</a>', ""));
    writeFileSync(join(dir, "src/app/Index.tsx"), readFileSync(join(dir, "src/app/Index.tsx"), "utf8").replace(/ The <a href="\/items">items<\/a> pages are derived\s+from the model in <code>src\/models\/Item.ts<\/code>\./, ""));
    const second = await tspc(dir);
    expect(second.output).toBe("");
    expect(second.code).toBe(0);
    for (const file of ["dist/tests/home.test.js", "dist/tests/home.test.js.map", "dist/models/Item.js", "dist/models/Item.js.map"]) expect(existsSync(join(dir, file)), `${file} is gone`).toBe(false);
    expect(existsSync(join(dir, "dist/models")), "the folder it left empty is gone").toBe(false);
    for (const file of ["dist/tests/other.test.js", "dist/app/Index.js", "dist/main.js", "dist/bundle/main.js", "dist/notes.txt"]) expect(existsSync(join(dir, file)), `${file} is kept`).toBe(true);

    // The app's own test script runs the one test there is.
    const tested = await npmTest(dir);
    expect(tested.out, tested.out).toMatch(/^# pass 1$/m);
    expect(tested.out).toMatch(/^# fail 0$/m);
    expect(tested.out).not.toContain("home.test");
    expect(tested.code).toBe(0);
  }, 4 * BUILD_TIMEOUT_MS);

  it("under tspc --watch (what fw dev runs), a route file deleted while it watches takes its output with it", async () => {
    const dir = join(mkdtempSync(join(FIXTURES, "_tmp-stale-watch-")), "app");
    made.push(dirname(dir));
    const created = await runNode(FW, ["new", dir]);
    expect(created.code, created.err).toBe(0);
    mkdirSync(join(dir, "node_modules"));
    symlinkSync(resolve("."), join(dir, "node_modules", "fw"), "dir");
    writeFileSync(join(dir, "src/app/About.tsx"), 'import { Ok, type Response } from "fw";\n\nexport function about(): Response {\n  return Ok(<h1>About</h1>);\n}\n');
    const watching = watch(dir);
    try {
      expect(await watching.nextBuild()).toContain("Found 0 errors");
      expect(existsSync(join(dir, "dist/app/About.js"))).toBe(true);
      rmSync(join(dir, "src/app/About.tsx"));
      const rebuilt = await watching.nextBuild();
      expect(rebuilt, rebuilt).not.toMatch(/Found [1-9]\d* errors?\./);
      expect(existsSync(join(dir, "dist/app/About.js")), "dist/app/About.js is gone").toBe(false);
      expect(existsSync(join(dir, "dist/app/About.js.map"))).toBe(false);
      expect(existsSync(join(dir, "dist/app/Index.js"))).toBe(true);
      expect(readFileSync(join(dir, "dist/.fw/routes.js"), "utf8")).not.toContain("About");
    } finally {
      watching.child.kill("SIGTERM");
    }
  }, 4 * BUILD_TIMEOUT_MS);
});
