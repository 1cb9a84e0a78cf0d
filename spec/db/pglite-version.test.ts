import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { installedPgliteVersion, mismatchWarning, templateMismatch, templateVersions } from "../../runtime/db/pglite-template.js";
import { runNode } from "../support/process.js";
import { FIXTURES } from "../support/tspc.js";

// Issue 39 item 16: an app that installed another PGlite than the one fw's template of a new
// embedded database was made for ran initdb for every new database (each test app: 10-14 s
// instead of about 1), and nothing said why. A real app in a folder of its own, as after `npm
// install`: fw's build copied into its node_modules/fw, and PGlite copied beside it with another
// version number in its package.json (the test cannot download a second release; the engine is
// the real one, and runs initdb as it would). Its test, run by node's test runner with
// fw/testing's startApp, shows the warning. SLOW: one initdb, 10-35 s.
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** The installed version with its patch number moved on: a version fw has no template for. */
function another(version: string): string {
  const [major, minor, patch] = version.split(".");
  return `${major}.${minor}.${Number.parseInt(patch ?? "0", 10) + 1}`;
}

const MAIN = `import { Ok, Route, RouteTable } from "fw";
import { DbApp } from "fw/db";

process.exitCode = await new DbApp({ routes: RouteTable.of(Route.get("/", async () => Ok("ok"))), accessLog: false }).main();
`;

const TEST = `import assert from "node:assert/strict";
import { test } from "node:test";
import { startApp } from "fw/testing";

test("the app serves", async () => {
  const app = await startApp({ main: "main.mjs" });
  try {
    assert.equal((await app.client().get("/")).status, 200);
  } finally {
    await app.close();
  }
});
`;

describe("issue 39 item 16: a PGlite other than the one fw's template was made for", () => {
  it("fw's own build has a template for the PGlite it installs: nothing to warn about", () => {
    const installed = installedPgliteVersion() as string;
    expect(templateVersions()).toEqual([installed]);
    expect(templateMismatch()).toBeUndefined();
    expect(templateMismatch(another(installed))).toEqual({ installed: another(installed), madeFor: installed });
  });

  it("a new embedded database says so once, naming both versions and the install that makes them agree; a test app's warning reaches the test's output", async () => {
    const madeFor = installedPgliteVersion() as string;
    const installed = another(madeFor);
    // Inside the checkout, so fw's own dependencies (ws, typia, dotenv…) resolve from its node_modules.
    const app = mkdtempSync(join(FIXTURES, "_tmp-pglite-version-"));
    made.push(app);
    mkdirSync(join(app, "node_modules/fw"), { recursive: true });
    cpSync(resolve("dist"), join(app, "node_modules/fw/dist"), { recursive: true });
    cpSync(resolve("package.json"), join(app, "node_modules/fw/package.json"));
    const pglite = join(app, "node_modules/@electric-sql/pglite");
    cpSync(resolve("node_modules/@electric-sql/pglite"), pglite, { recursive: true });
    const manifest = JSON.parse(readFileSync(join(pglite, "package.json"), "utf8")) as { version: string };
    writeFileSync(join(pglite, "package.json"), JSON.stringify({ ...manifest, version: installed }, null, 2));
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "pglite-version-app", private: true, type: "module" }));
    writeFileSync(join(app, "main.mjs"), MAIN);
    writeFileSync(join(app, "app.test.mjs"), TEST);

    const warning = mismatchWarning({ installed, madeFor });
    expect(warning).toBe(
      `fw/db: warning: @electric-sql/pglite ${installed} is installed, and fw's template of a new embedded database was made for ${madeFor}: ` +
        "each new embedded database (each test app's too) runs PostgreSQL's initdb instead, 10 s or more where the template takes about 1. " +
        `Install the version fw was made for: npm install --save-exact @electric-sql/pglite@${madeFor}`,
    );
    const ran = await runNode("--test", ["app.test.mjs"], { DATABASE_URL: undefined, NODE_ENV: undefined }, app);
    expect(ran.out, ran.out + ran.err).toMatch(/^# pass 1$/m);
    expect(ran.code).toBe(0);
    // Node's test runner shows what a test file writes to stderr as a comment line.
    expect(ran.out.split("\n").filter((line) => line.includes("fw/db: warning:"))).toEqual([`# ${warning}`]);
  }, 300_000);
});
