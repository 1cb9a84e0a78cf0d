import { describe, expect, it } from "vitest";
import { loadDriver } from "../../runtime/db/driver.js";
import { CannotOpenDatabase } from "../../runtime/db/open-error.js";

// The engines' drivers are optional peer dependencies of fw: an app installs the one it uses.
describe("an engine's driver that is not installed", () => {
  it("is a CannotOpenDatabase naming the package and the install command", async () => {
    // Node's own error for the missing package, as a real `import("pg")` raises it.
    const missing = import("pg-that-is-not-installed" as string).catch((error: unknown) => {
      const notFound = error as Error & { code?: string };
      throw Object.assign(new Error(notFound.message.replace("pg-that-is-not-installed", "pg")), { code: notFound.code });
    });
    const failure = await loadDriver("pg", () => missing).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(CannotOpenDatabase);
    expect(String((failure as Error).message)).toContain("npm install pg");
  });
  it("lets any other failure through as it is", async () => {
    const broken = new Error("the driver threw while loading");
    await expect(loadDriver("@electric-sql/pglite", () => Promise.reject(broken))).rejects.toBe(broken);
  });
});
