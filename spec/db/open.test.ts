import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { appDatabase } from "../../runtime/db/index.js";

// Which database an app opens (docs/guides/database.md): DATABASE_URL wins over the app's own
// directory, and `pglite:DIR` names an embedded one. Nothing is opened: the choice is made at once.
describe("issue 20: the database an app opens", () => {
  const cwd = "/srv/app";

  it("without DATABASE_URL: the embedded engine in the app's directory, else .fw/db", () => {
    expect(appDatabase({ cwd, env: {} }).description).toBe(`PGlite at ${join(cwd, ".fw/db")}`);
    expect(appDatabase({ cwd, env: {}, directory: "data/db" }).description).toBe(`PGlite at ${join(cwd, "data/db")}`);
    expect(appDatabase({ cwd, env: { DATABASE_URL: "  " } }).engine).toBe("pglite");
  });

  it("DATABASE_URL=postgres://…: the server, its password never shown", () => {
    const db = appDatabase({ cwd, env: { DATABASE_URL: "postgres://app:s3cret@db.internal:5432/app" }, directory: "data/db" });
    expect(db.engine).toBe("postgres");
    expect(db.description).not.toContain("s3cret");
    expect(db.description).toContain("db.internal:5432/app");
  });

  it("DATABASE_URL=pglite:DIR: the embedded engine there, over the app's own directory; pglite: alone keeps the app's", () => {
    expect(appDatabase({ cwd, env: { DATABASE_URL: "pglite:tmp/test-db" }, directory: "data/db" }).description).toBe(`PGlite at ${join(cwd, "tmp/test-db")}`);
    expect(appDatabase({ cwd, env: { DATABASE_URL: "pglite:/var/lib/app" } }).description).toBe("PGlite at /var/lib/app");
    expect(appDatabase({ cwd, env: { DATABASE_URL: "pglite:///var/lib/app" } }).description).toBe("PGlite at /var/lib/app");
    expect(appDatabase({ cwd, env: { DATABASE_URL: "pglite:" }, directory: "data/db" }).description).toBe(`PGlite at ${join(cwd, "data/db")}`);
  });
});
