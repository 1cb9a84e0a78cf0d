// `npm run docs` (docs/build-api.mjs): the API reference is generated from the code's JSDoc with
// TypeDoc, for every public module of package.json's `exports`. It is not committed (docs/api/ is
// git-ignored), so this test builds it, into a temp dir, to keep it from rotting: TypeDoc must
// read the sources without an error, and the pages of a few exports of each module must exist
// and carry their JSDoc. (About 10 s on a quiet machine; a minute on a loaded one.)
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const out = mkdtempSync(join(tmpdir(), "fw-api-docs-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

function npmRunDocs(): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn("npm", ["run", "docs", "--", "--out", out], { cwd: resolve(".") });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("close", (code) => done({ code, output }));
  });
}

describe("npm run docs", () => {
  it("generates a page for every public module, named as it is imported, and for their exports", async () => {
    const { code, output } = await npmRunDocs();
    expect(code, output).toBe(0);
    expect(output).toContain("fw, fw/auth, fw/db, fw/client, fw/testing");
    // Every module entry of package.json (fw/live too, once it is there) has its page.
    const exports = (JSON.parse(readFileSync("package.json", "utf8")) as { exports: Record<string, { types: string }> }).exports;
    const modules = Object.entries(exports)
      .filter(([, target]) => /^\.\/dist\/runtime\/(.+\/)?index\.d\.ts$/.test(target.types))
      .map(([key]) => (key === "." ? "fw.html" : `fw_${key.slice(2)}.html`));
    expect(modules).toEqual(expect.arrayContaining(["fw.html", "fw_auth.html", "fw_db.html", "fw_client.html", "fw_testing.html"]));
    expect(readdirSync(join(out, "modules")).sort()).toEqual(modules.sort());
    // A few exports of each module, with their JSDoc.
    const pages: [string, string][] = [
      ["classes/fw.HttpApp.html", "HttpApp"],
      ["functions/fw.derives.html", "derives"],
      ["functions/fw.Json.html", "Json"],
      ["functions/fw_auth.formSignIn.html", "formSignIn"],
      ["classes/fw_db.DbApp.html", "DbApp"],
      ["classes/fw_db.SqlStore.html", "SqlStore"],
      ["functions/fw_client.createClient.html", "createClient"],
      ["classes/fw_client.ApiError.html", "ApiError"],
      ["functions/fw_testing.startApp.html", "startApp"],
      ["classes/fw_testing.TestClient.html", "TestClient"],
    ];
    for (const [page, name] of pages) {
      expect(existsSync(join(out, page)), `${page} (${name})`).toBe(true);
      expect(readFileSync(join(out, page), "utf8")).toContain(name);
    }
    // The JSDoc is there, not only the signature: startApp's comment says what it starts.
    expect(readFileSync(join(out, "functions/fw_testing.startApp.html"), "utf8")).toContain("Starts the built app for one test");
  }, 180_000);
});
